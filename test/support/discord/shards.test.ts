import { Client, Events, GatewayIntentBits, Routes, SlashCommandBuilder, type APIGatewayBotInfo, type GuildTextBasedChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loginClient, restFor, shardOf, startDiscordServer, type DiscordServer, type GuildInfo } from './index.ts';
import { RawGateway, type Frame } from './raw-gateway.ts';

const ping = new SlashCommandBuilder().setName('ping').setDescription('Which client answers');

/** A dispatch a client received, as discord.js reports it (Events.Raw) with the shard it came in on. */
interface Received {
  t: string;
  shardId: number;
  guildId: string | undefined;
}

function guildOf(packet: { t?: unknown; d?: unknown }): string | undefined {
  const d = packet.d;
  if (typeof d !== 'object' || d === null) return undefined;
  if ('guild_id' in d && typeof d.guild_id === 'string') return d.guild_id;
  // GUILD_CREATE and GUILD_DELETE carry the guild as `d` itself.
  if (String(packet.t).startsWith('GUILD_') && 'id' in d && typeof d.id === 'string') return d.id;
  return undefined;
}

describe('fake Discord shards: two clients running shards 0-1 and 2-3 of 4', () => {
  let discord: DiscordServer;
  let guilds: GuildInfo[];
  const clients: { name: 'a' | 'b'; shards: number[]; client: Client<true>; received: Received[]; interactions: string[] }[] = [];
  const ownerOf = (guildId: string) => {
    const owner = clients.find((c) => c.shards.includes(shardOf(guildId, 4)));
    if (!owner) throw new Error(`no client runs the shard of guild ${guildId}`);
    return owner;
  };

  beforeAll(async () => {
    // max_concurrency 4 lets discord.js identify the shards without its 5 s wait between them.
    discord = await startDiscordServer({ maxConcurrency: 4 });
    guilds = discord.addGuilds(8, (i) => ({ name: `g${i}`, channels: [{ name: 'general' }, { name: 'daily' }] }));
    await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: [ping.toJSON()] });
    const [a, b] = await Promise.all([
      loginClient(discord, { shards: [0, 1], shardCount: 4 }),
      loginClient(discord, { shards: [2, 3], shardCount: 4 }),
    ]);
    clients.push({ name: 'a', shards: [0, 1], client: a, received: [], interactions: [] });
    clients.push({ name: 'b', shards: [2, 3], client: b, received: [], interactions: [] });
    for (const entry of clients) {
      entry.client.on(Events.Raw, (packet: { t?: unknown; d?: unknown }, shardId: number) => {
        entry.received.push({ t: String(packet.t), shardId, guildId: guildOf(packet) });
      });
      entry.client.on(Events.InteractionCreate, (interaction) => {
        entry.interactions.push(interaction.id);
        if (interaction.isChatInputCommand()) void interaction.reply(`pong from ${entry.name} on shard ${interaction.guild?.shardId ?? 0}`);
      });
    }
  });
  afterAll(async () => {
    for (const { client } of clients.splice(0)) await client.destroy();
    await discord.close();
  });

  /** Every guild event a client received came in on the shard that owns the guild, and that shard is one of its own. */
  function expectEventsOnOwningShards(): void {
    for (const { shards, received } of clients) {
      for (const r of received.filter((x) => x.guildId !== undefined)) {
        expect(shards).toContain(r.shardId);
        expect({ t: r.t, shard: shardOf(r.guildId ?? '', 4) }).toEqual({ t: r.t, shard: r.shardId });
      }
    }
  }

  it('both become ready, each with only its shards’ guilds; the server reports four connected shards', () => {
    for (const { client, shards } of clients) {
      const expected = shards.flatMap((id) => discord.guildIdsOnShard(id, 4)).sort();
      expect([...client.guilds.cache.keys()].sort()).toEqual(expected);
      expect(expected).toHaveLength(4);
      expect(client.ws.shards.size).toBe(2);
    }
    expect(discord.shards().map(({ shard, state, connections, identifies, guilds: count }) => ({ shard, state, connections, identifies, count }))).toEqual(
      [0, 1, 2, 3].map((id) => ({ shard: [id, 4], state: 'connected', connections: 1, identifies: 1, count: 2 })),
    );
    const creates = discord.gatewayDispatches.filter((d) => d.t === 'GUILD_CREATE');
    expect(creates).toHaveLength(guilds.length);
    for (const create of creates) expect(create.to.map((t) => t.shard)).toEqual([[shardOf(create.guildId ?? '', 4), 4]]);
    expect(discord.gatewayEvents.filter((e) => e.kind === 'ready').map((e) => e.shard?.[0]).sort()).toEqual([0, 1, 2, 3]);
  });

  it('an interaction reaches only the client running the guild’s shard, which answers it; DMs go to shard 0', async () => {
    for (const guild of guilds) {
      const owner = ownerOf(guild.id);
      const shard = shardOf(guild.id, 4);
      const ix = discord.invokeCommand({ name: 'ping', channelId: guild.channelId('general') });
      expect((await ix.waitForResponse()).content).toBe(`pong from ${owner.name} on shard ${shard}`);
      expect(ix.deliveredTo.map((d) => d.shard)).toEqual([[shard, 4]]);
      expect(owner.interactions).toContain(ix.id);
      expect(clients.find((c) => c !== owner)?.interactions).not.toContain(ix.id);
    }
    const dm = discord.invokeCommand({ name: 'ping', dm: true });
    expect((await dm.waitForResponse()).content).toBe('pong from a on shard 0');
    expect(dm.deliveredTo.map((d) => d.shard)).toEqual([[0, 4]]);
    expect(clients.map((c) => c.interactions.length)).toEqual([5, 4]);
    expectEventsOnOwningShards();
  });

  it('GUILD_CREATE of a new guild, CHANNEL_DELETE and GUILD_DELETE go only to the shard owning the guild', async () => {
    const arrived = Promise.race(clients.map((c) => new Promise<typeof c>((resolve) => c.client.once(Events.GuildCreate, () => resolve(c)))));
    const late = discord.addGuild({ name: 'late' });
    const owner = ownerOf(late.id);
    expect((await arrived).name).toBe(owner.name);
    expect(owner.client.guilds.cache.has(late.id)).toBe(true);

    const target = guilds.find((g) => ownerOf(g.id).name === 'b');
    const leaving = guilds.find((g) => ownerOf(g.id).name === 'a');
    if (!target || !leaving) throw new Error('each client should own some guild');
    const b = ownerOf(target.id).client;
    const a = ownerOf(leaving.id).client;
    const channelGone = new Promise<string>((resolve) => b.once(Events.ChannelDelete, (c) => resolve(c.id)));
    discord.deleteChannel(target.channelId('daily'));
    expect(await channelGone).toBe(target.channelId('daily'));
    const guildGone = new Promise<string>((resolve) => a.once(Events.GuildDelete, (g) => resolve(g.id)));
    discord.removeGuild(leaving.id);
    expect(await guildGone).toBe(leaving.id);

    for (const t of ['GUILD_CREATE', 'CHANNEL_DELETE', 'GUILD_DELETE']) {
      const last = discord.gatewayDispatches.filter((d) => d.t === t).at(-1);
      expect(last?.to.map((x) => x.shard)).toEqual([[shardOf(last?.guildId ?? '', 4), 4]]);
    }
    const others = clients.filter((c) => c !== owner).flatMap((c) => c.received);
    expect(others.some((r) => r.guildId === late.id)).toBe(false);
    expect(clients.find((c) => c.name === 'a')?.received.some((r) => r.t === 'CHANNEL_DELETE')).toBe(false);
    expect(clients.find((c) => c.name === 'b')?.received.some((r) => r.t === 'GUILD_DELETE')).toBe(false);
    expectEventsOnOwningShards();
  });

  it('records every message both clients post, with channel, nonce and content, and counts them per second', async () => {
    const before = discord.stats().perSecond.reduce((n, s) => n + s.posts, 0);
    const sent: { channelId: string; nonce: string; content: string }[] = [];
    for (const { name, client } of clients) {
      for (const guild of client.guilds.cache.values()) {
        const channel = guild.channels.cache.find((c) => c.name === 'general') as GuildTextBasedChannel | undefined;
        if (!channel) throw new Error(`no general channel in ${guild.id}`);
        const nonce = `${name}-${guild.id.slice(-6)}`;
        sent.push({ channelId: channel.id, nonce, content: `word from ${name}` });
        await channel.send({ content: `word from ${name}`, nonce, enforceNonce: true });
      }
    }
    // Eight guilds, one added and one removed since.
    expect(sent).toHaveLength(8);
    const recorded = discord.allMessages().filter((m) => m.interactionId === null);
    expect(recorded.map((m) => ({ channelId: m.channelId, nonce: m.nonce, content: m.content }))).toEqual(sent);
    expect(discord.stats().perSecond.reduce((n, s) => n + s.posts, 0) - before).toBe(sent.length);
  });

  it('a session resumed after a close keeps its shard, and its guilds’ interactions still reach it', async () => {
    const b = clients.find((c) => c.name === 'b');
    if (!b) throw new Error('no client b');
    const resumed = new Promise<number>((resolve) => b.client.once(Events.ShardResume, (id) => resolve(id)));
    discord.closeGateway(4000, 'shard 2 only', { shard: 2 });
    expect(await resumed).toBe(2);
    await discord.waitFor(() => (discord.shards().every((s) => s.state === 'connected') ? true : undefined), 'all shards connected');
    expect(discord.shards().map((s) => [s.shard[0], s.identifies, s.resumes])).toEqual([
      [0, 1, 0],
      [1, 1, 0],
      [2, 1, 1],
      [3, 1, 0],
    ]);
    const guild = discord.guildIdsOnShard(2, 4).map((id) => guilds.find((g) => g.id === id)).find((g) => g !== undefined);
    if (!guild) throw new Error('no guild on shard 2');
    const ix = discord.invokeCommand({ name: 'ping', channelId: guild.channelId('general') });
    expect((await ix.waitForResponse()).content).toBe('pong from b on shard 2');
    expectEventsOnOwningShards();
  });
});

describe('fake Discord shards: IDENTIFY and GET /gateway/bot', () => {
  let discord: DiscordServer | undefined;
  const sockets: RawGateway[] = [];
  afterEach(async () => {
    for (const raw of sockets.splice(0)) await raw.close(1000);
    await discord?.close();
    discord = undefined;
  });

  async function server(options: Parameters<typeof startDiscordServer>[0] = {}): Promise<DiscordServer> {
    discord = await startDiscordServer(options);
    return discord;
  }

  /** Opens a bare connection and IDENTIFYs (with `shard` unless undefined). */
  async function identify(on: DiscordServer, shard: unknown): Promise<RawGateway> {
    const raw = new RawGateway(on.gatewayUrl);
    sockets.push(raw);
    await raw.next((f) => f.op === 10);
    await raw.send({ op: 2, d: { token: on.token, intents: 1, properties: {}, ...(shard === undefined ? {} : { shard }) } });
    return raw;
  }

  const ids = (frames: Frame[], t: string): string[] => frames.filter((f) => f.t === t).map((f) => (f.d as { id: string }).id);

  it('READY carries the shard and lists only its guilds; the GUILD_CREATEs after it are exactly those', async () => {
    const on = await server();
    on.addGuilds(9);
    const raw = await identify(on, [1, 3]);
    const ready = (await raw.next((f) => f.t === 'READY')).d as { shard: unknown; guilds: { id: string; unavailable: boolean }[] };
    expect(ready.shard).toEqual([1, 3]);
    const mine = on.guildIdsOnShard(1, 3);
    expect(mine).toHaveLength(3);
    expect(ready.guilds.map((g) => g.id).sort()).toEqual([...mine].sort());
    await raw.next((f) => f.t === 'GUILD_CREATE' && ids([f], 'GUILD_CREATE')[0] === mine.at(-1));
    expect(ids(raw.frames, 'GUILD_CREATE').sort()).toEqual([...mine].sort());

    const unsharded = await identify(on, undefined);
    const all = (await unsharded.next((f) => f.t === 'READY')).d as { shard?: unknown; guilds: unknown[] };
    expect(all.shard).toBeUndefined();
    expect(all.guilds).toHaveLength(9);
  });

  it('closes an invalid shard with 4010: through discord.js, and for each malformed shard', async () => {
    const on = await server();
    on.addGuild();
    const client = new Client({ intents: [GatewayIntentBits.Guilds], shards: [4], shardCount: 4, rest: { api: on.apiUrl } });
    try {
      const disconnected = new Promise<number>((resolve) => client.once(Events.ShardDisconnect, (event) => resolve(event.code)));
      await expect(client.login(on.token)).rejects.toThrow('Invalid shard');
      expect(await disconnected).toBe(4010);
    } finally {
      await client.destroy();
    }
    for (const shard of [[1, 1], [0, 0], [-1, 2], [0.5, 2], [0], '0,1', null]) {
      expect({ shard, code: await (await identify(on, shard)).closed }).toEqual({ shard, code: 4010 });
    }
    expect(on.shards()).toEqual([]);
  });

  it('closes with 4011 when the shard count leaves too many guilds per shard', async () => {
    const few = await server({ maxGuildsPerShard: 2 });
    few.addGuilds(5);
    const client = new Client({ intents: [GatewayIntentBits.Guilds], shards: [0], shardCount: 2, rest: { api: few.apiUrl } });
    try {
      const disconnected = new Promise<number>((resolve) => client.once(Events.ShardDisconnect, (event) => resolve(event.code)));
      await expect(client.login(few.token)).rejects.toThrow('Sharding is required');
      expect(await disconnected).toBe(4011);
    } finally {
      await client.destroy();
    }
    expect(await (await identify(few, undefined)).closed).toBe(4011);
    const enough = await identify(few, [2, 3]);
    expect((await enough.next((f) => f.t === 'READY')).d).toMatchObject({ shard: [2, 3] });
    await enough.close(1000);
    await few.close();

    // Discord's own threshold: 2,500 guilds per shard.
    const many = await server();
    many.addGuilds(2501, { channels: [] });
    expect(await (await identify(many, [0, 1])).closed).toBe(4011);
    const two = await identify(many, [1, 2]);
    const ready = (await two.next((f) => f.t === 'READY')).d as { guilds: unknown[] };
    expect(ready.guilds).toHaveLength(many.guildIdsOnShard(1, 2).length);
    expect(ready.guilds.length).toBeGreaterThanOrEqual(1250);
  });

  it('GET /gateway/bot recommends the configured shard count, else one per 1,000 guilds, with the session start limit', async () => {
    const configured = await server({ shards: 6, maxConcurrency: 16, sessionStartLimit: 2000 });
    const first = (await restFor(configured).get(Routes.gatewayBot())) as APIGatewayBotInfo;
    expect(first).toMatchObject({ url: configured.gatewayUrl, shards: 6, session_start_limit: { total: 2000, remaining: 2000, max_concurrency: 16 } });
    await (await identify(configured, [5, 6])).next((f) => f.t === 'READY');
    const after = (await restFor(configured).get(Routes.gatewayBot())) as APIGatewayBotInfo;
    expect(after.session_start_limit.remaining).toBe(1999);
    expect(after.session_start_limit.reset_after).toBeLessThanOrEqual(86_400_000);
    expect(after.session_start_limit.reset_after).toBeGreaterThan(86_000_000);
    await configured.close();

    const derived = await server();
    const shards = async (): Promise<number> => ((await restFor(derived).get(Routes.gatewayBot())) as APIGatewayBotInfo).shards;
    expect(await shards()).toBe(1);
    derived.addGuilds(1000, { channels: [] });
    expect(await shards()).toBe(1);
    derived.addGuild({ channels: [] });
    expect(await shards()).toBe(2);
    expect(derived.shardCount).toBe(2);
    await expect(startDiscordServer({ shards: 0 })).rejects.toThrow('shards must be a whole number of at least 1');
  });
});
