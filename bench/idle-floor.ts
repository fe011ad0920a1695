/**
 * npm run bench:idle-floor -- [--seconds 80]
 *
 * The floor under bench:fanout's idle_rss_mb: what node alone and a discord.js client with the bot's cache settings (createDiscordClient, compiled in
 * dist/) hold idle, logged in to the local Discord-compatible server in the same 20 servers of 500 channels as
 * bench:fanout's 10,000. Also the same gateway session on the packages discord.js is built on (@discordjs/ws and
 * @discordjs/rest, no Client, caches or structures; `ws`), and that with one time-zone Intl.DateTimeFormat used
 * (`ws_intl`: the ICU data the bot needs for time zones). Ends with one `bench idle-floor: …` line: the RSS of each,
 * split into anonymous and file-backed memory (/proc, Linux).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startDiscordServer } from '../test/support/discord/index.ts';
import { processMemory } from './proc-memory.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '80' } } });
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const discord = await startDiscordServer({ globalLimitPerSecond: 50 });
discord.addGuilds(20, (index) => ({ name: `F ${index}`, channels: Array.from({ length: 500 }, (_, i) => ({ name: `w-${i}` })) }));
const client = resolve(import.meta.dirname, '../dist/src/discord/client.js');
const programs: Record<string, string> = {
  node: 'setInterval(() => {}, 1000);',
  'discord.js': `const { createDiscordClient } = await import(${JSON.stringify(client)});
const client = createDiscordClient({ apiUrl: process.env.API });
client.once('clientReady', () => process.stderr.write('ready\\n'));
await client.login(process.env.TOKEN);`,
  ws: wsSession(''),
  ws_intl: wsSession(`new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', dateStyle: 'full', timeStyle: 'long' }).format(new Date());`),
};
/** discord.js's own session without discord.js: the bot's intent (Guilds), no compression (zlib-sync is not installed), large_threshold 50. */
function wsSession(extra: string): string {
  return `import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { GatewayIntentBits } from 'discord-api-types/v10';
${extra}
const rest = new REST({ api: process.env.API.replace(/\\/+$/, '').replace(/\\/v\\d+$/, ''), globalRequestsPerSecond: 50 }).setToken(process.env.TOKEN);
const manager = new WebSocketManager({ token: process.env.TOKEN, intents: GatewayIntentBits.Guilds, rest, largeThreshold: 50, compression: null });
manager.once(WebSocketShardEvents.Ready, () => process.stderr.write('ready\\n'));
await manager.connect();`;
}
const repo = resolve(import.meta.dirname, '..');
const children = Object.entries(programs).map(([name, code]) => ({
  name,
  child: spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: repo, env: { ...process.env, API: discord.apiUrl, TOKEN: discord.token }, stdio: ['ignore', 'inherit', 'inherit'] }),
}));
await sleep(Number(values.seconds) * 1000);
const figures: string[] = [];
for (const { name, child } of children) {
  const memory = processMemory(child.pid ?? 0);
  const key = name === 'discord.js' ? 'discordjs' : name;
  figures.push(`${key}_rss_mb=${memory.rssMb.toFixed(1)} ${key}_anon_mb=${memory.anonMb.toFixed(1)} ${key}_file_mb=${memory.fileMb.toFixed(1)}`);
  child.kill('SIGTERM');
}
process.stdout.write(`bench idle-floor: ${figures.join(' ')} seconds=${values.seconds}\n`);
await discord.close();
process.exit(0);
