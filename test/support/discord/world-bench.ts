/**
 * How long a large sharded world takes to build and to connect:
 *
 *   npx tsx test/support/discord/world-bench.ts [--guilds 2000] [--channels 20000] [--shards 4] [--clients 2]
 *
 * Builds the world with addGuilds, then logs in `clients` discord.js Clients, each running an equal range of the
 * `shards`, and waits until all are ready (every GUILD_CREATE of their shards received). Prints the times, memory,
 * what each shard holds, and checks that each client got exactly its shards' guilds and channels.
 */
import { parseArgs } from 'node:util';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { startDiscordServer } from './index.ts';

const { values } = parseArgs({
  options: {
    guilds: { type: 'string', default: '2000' },
    channels: { type: 'string', default: '20000' },
    shards: { type: 'string', default: '4' },
    clients: { type: 'string', default: '2' },
  },
});
const guildCount = Number(values.guilds);
const channelCount = Number(values.channels);
const shardCount = Number(values.shards);
const clientCount = Number(values.clients);
for (const [name, value] of Object.entries({ guildCount, channelCount, shardCount, clientCount })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1`);
}
if (clientCount > shardCount) throw new Error('every client needs at least one shard');

const mb = (): string => `${Math.round(process.memoryUsage().rss / 1e6)} MB`;
const started = performance.now();
const discord = await startDiscordServer({ maxConcurrency: shardCount });
const listening = performance.now();
const perGuild = Math.floor(channelCount / guildCount);
const extra = channelCount % guildCount;
discord.addGuilds(guildCount, (i) => ({ channels: Array.from({ length: perGuild + (i < extra ? 1 : 0) }, (_, c) => ({ name: `words-${c}` })) }));
const built = performance.now();
console.log(`server listening in ${(listening - started).toFixed(0)} ms`);
console.log(`${guildCount} guilds, ${channelCount} channels built in ${(built - listening).toFixed(0)} ms (rss ${mb()})`);

const ranges = Array.from({ length: clientCount }, (_, c) =>
  Array.from({ length: shardCount }, (_, id) => id).filter((id) => Math.floor((id * clientCount) / shardCount) === c),
);
const clients = await Promise.all(
  ranges.map(async (shards) => {
    const client = new Client({ intents: [GatewayIntentBits.Guilds], shards, shardCount, rest: { api: discord.apiUrl } });
    const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
    await client.login(discord.token);
    return { shards, client: await ready, readyAt: performance.now() };
  }),
);
console.log(`${clientCount} clients ready ${(Math.max(...clients.map((c) => c.readyAt)) - built).toFixed(0)} ms after the world was built (rss ${mb()})`);

let mismatches = 0;
for (const { shards, client } of clients) {
  const expected = new Set(shards.flatMap((id) => discord.guildIdsOnShard(id, shardCount)));
  const got = [...client.guilds.cache.keys()];
  const wrong = got.length !== expected.size || got.some((id) => !expected.has(id));
  if (wrong) mismatches += 1;
  console.log(`shards ${shards.join(',')}: ${got.length} guilds, ${client.channels.cache.size} channels${wrong ? ' — NOT the guilds of its shards' : ''}`);
}
for (const s of discord.shards()) {
  console.log(`  shard ${s.shard[0]}/${s.shard[1]}: ${s.state}, ${s.guilds} guilds, ${s.dispatches} dispatches`);
}
for (const { client } of clients) await client.destroy();
await discord.close();
if (mismatches > 0) process.exitCode = 1;
