import { Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginClient, restFor, startDiscordServer, type DiscordServer } from './index.ts';
import { RawGateway } from './raw-gateway.ts';

describe('fake Discord gateway protocol', () => {
  let discord: DiscordServer;
  const sockets: RawGateway[] = [];
  const open = (): RawGateway => {
    const raw = new RawGateway(discord.gatewayUrl);
    sockets.push(raw);
    return raw;
  };
  const identify = (raw: RawGateway, token = discord.token) => raw.send({ op: 2, d: { token, intents: 1, properties: {}, shard: [0, 1] } });

  beforeEach(async () => {
    discord = await startDiscordServer();
  });
  afterEach(async () => {
    for (const raw of sockets.splice(0)) raw.close(1000);
    await discord.close();
  });

  it('says HELLO, then READY and GUILD_CREATE with increasing sequence numbers; ACKs heartbeats', async () => {
    const guild = discord.addGuild();
    const raw = open();
    const hello = await raw.next((f) => f.op === 10);
    expect(hello.d).toMatchObject({ heartbeat_interval: 41_250 });
    await identify(raw);
    const ready = await raw.next((f) => f.t === 'READY');
    expect(ready.d).toMatchObject({ v: 10, application: { id: discord.applicationId }, guilds: [{ id: guild.id, unavailable: true }], resume_gateway_url: discord.gatewayUrl });
    const created = await raw.next((f) => f.t === 'GUILD_CREATE');
    expect(created.s).toBe((ready.s ?? 0) + 1);
    await raw.send({ op: 1, d: created.s });
    await raw.next((f) => f.op === 11);
  });

  it('closes with Discord’s codes for protocol errors', async () => {
    const cases: [string, (raw: RawGateway) => Promise<void>, number][] = [
      ['unknown opcode', (raw) => raw.send({ op: 99, d: null }), 4001],
      ['undecodable payload', (raw) => raw.send('{not json'), 4002],
      ['payload before identify', (raw) => raw.send({ op: 3, d: { status: 'online' } }), 4003],
      ['wrong token', (raw) => identify(raw, 'nope'), 4004],
      [
        'second identify',
        async (raw) => {
          await identify(raw);
          await raw.next((f) => f.t === 'READY');
          await identify(raw);
        },
        4005,
      ],
    ];
    for (const [, act, code] of cases) {
      const raw = open();
      await raw.next((f) => f.op === 10);
      await act(raw);
      expect(await raw.closed).toBe(code);
    }
  });

  it('replays missed dispatches on RESUME, refuses an invalid seq (4007) and a session ended with 1000 (op 9)', async () => {
    const guild = discord.addGuild({ channels: [{ name: 'a' }, { name: 'b' }] });
    const first = open();
    await identify(first);
    const ready = await first.next((f) => f.t === 'READY');
    const sessionId = (ready.d as { session_id: string }).session_id;
    const lastSeen = (await first.next((f) => f.t === 'GUILD_CREATE')).s ?? 0;
    discord.dropGateway();
    await first.closed;
    discord.deleteChannel(guild.channelId('a'));
    discord.deleteChannel(guild.channelId('b'));

    const second = open();
    await second.send({ op: 6, d: { token: discord.token, session_id: sessionId, seq: lastSeen } });
    await second.next((f) => f.t === 'RESUMED');
    const replayed = second.frames.filter((f) => f.op === 0).map((f) => [f.t, f.s]);
    expect(replayed).toEqual([
      ['CHANNEL_DELETE', lastSeen + 1],
      ['CHANNEL_DELETE', lastSeen + 2],
      ['RESUMED', lastSeen + 3],
    ]);
    expect(await second.close(1000)).toBe(1000);

    const third = open();
    await third.send({ op: 6, d: { token: discord.token, session_id: sessionId, seq: lastSeen + 3 } });
    expect((await third.next((f) => f.op === 9)).d).toBe(false);

    const fourth = open();
    await identify(fourth);
    const again = (await fourth.next((f) => f.t === 'READY')).d as { session_id: string };
    discord.dropGateway();
    await fourth.closed;
    const fifth = open();
    await fifth.send({ op: 6, d: { token: discord.token, session_id: again.session_id, seq: 999 } });
    expect(await fifth.closed).toBe(4007);
  });

  it('delivers an interaction to every session, as Discord does when two instances run: the second answer gets 40060', async () => {
    const guild = discord.addGuild();
    await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: [{ name: 'wotd', description: 'Word of the day' }] });
    const one = await loginClient(discord);
    const two = await loginClient(discord);
    try {
      const outcomes: Promise<string>[] = [];
      for (const client of [one, two]) {
        outcomes.push(
          new Promise((resolve) => {
            client.once('interactionCreate', (interaction) => {
              if (!interaction.isChatInputCommand()) return;
              interaction.reply({ content: 'hi' }).then(
                () => resolve('ok'),
                (e: { code?: number }) => resolve(String(e.code)),
              );
            });
          }),
        );
      }
      const ix = discord.invokeCommand({ name: 'wotd', channelId: guild.channelId('general') });
      expect((await Promise.all(outcomes)).sort()).toEqual(['40060', 'ok']);
      expect(ix.callbacks.map((c) => c.status).sort()).toEqual([204, 400]);
    } finally {
      await one.destroy();
      await two.destroy();
    }
  });
});
