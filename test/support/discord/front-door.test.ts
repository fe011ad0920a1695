import { request } from 'node:http';
import { connect } from 'node:net';
import { Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loginClient, restFor, startDiscordServer, type DiscordServer } from './index.ts';

/** One request on a connection of its own (no keep-alive pool), so each one is a new connection to the front door. */
function getOnNewConnection(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Authorization: `Bot ${token}`, Connection: 'close' }, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end();
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

describe('the front door (frontDoorSpares)', () => {
  let discord: DiscordServer | undefined;
  afterEach(async () => {
    await discord?.close();
    discord = undefined;
  });

  it('relays REST, more connections at once than it keeps spare, while the gateway stays on the harness port', async () => {
    discord = await startDiscordServer({ frontDoorSpares: 2 });
    const server = discord;
    expect(new URL(server.apiUrl).port).not.toBe(new URL(server.gatewayUrl).port);
    const guild = server.addGuild({ channels: [{ name: 'general' }] });
    const statuses = await Promise.all(Array.from({ length: 12 }, () => getOnNewConnection(`${server.apiUrl}/v10/users/@me`, server.token)));
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
    const posted = await restFor(server).post(Routes.channelMessages(guild.channelId('general')), { body: { content: 'through the door' } });
    expect(posted).toMatchObject({ content: 'through the door' });
    const client = await loginClient(server);
    try {
      expect(client.guilds.cache.has(guild.id)).toBe(true);
    } finally {
      await client.destroy();
    }
    expect(server.internalErrors).toEqual([]);
  });

  it('passes the harness closing an idle connection on to the client', async () => {
    discord = await startDiscordServer({ frontDoorSpares: 1, keepAliveTimeoutMs: 50 });
    const { hostname, port } = new URL(discord.apiUrl);
    const socket = connect({ host: hostname, port: Number(port) });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve, reject) => {
      socket.once('close', () => resolve());
      socket.once('error', reject);
    });
    socket.write(`GET /api/v10/gateway/bot HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bot ${discord.token}\r\n\r\n`);
    await closed;
    expect(Buffer.concat(received).toString('utf8')).toMatch(/^HTTP\/1\.1 200 /);
    expect(discord.internalErrors).toEqual([]);
  });

  it('ends its process on close, and its port with it', async () => {
    const server = await startDiscordServer({ frontDoorSpares: 3 });
    const pid = server.frontDoorPid;
    expect(pid).toBeTypeOf('number');
    expect(isRunning(pid ?? 0)).toBe(true);
    await server.close();
    expect(isRunning(pid ?? 0)).toBe(false);
    await expect(getOnNewConnection(`${server.apiUrl}/v10/users/@me`, server.token)).rejects.toThrow(/ECONNREFUSED/);
    expect(server.internalErrors).toEqual([]);
  });

  it('takes only a whole number of spares from 1 to 10,000', async () => {
    await expect(startDiscordServer({ frontDoorSpares: 0 })).rejects.toThrow(/frontDoorSpares/);
    await expect(startDiscordServer({ frontDoorSpares: 1.5 })).rejects.toThrow(/frontDoorSpares/);
    await expect(startDiscordServer({ frontDoorSpares: 20_000 })).rejects.toThrow(/frontDoorSpares/);
  });
});
