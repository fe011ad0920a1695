import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { startDiscordServer, type DiscordServer, type GuildInfo } from '../support/discord/index.ts';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');
const NAMES = commands.map((command) => command.data.name);

let discord: DiscordServer;
let guild: GuildInfo;
let cwd: string;

beforeAll(async () => {
  discord = await startDiscordServer();
  guild = discord.addGuild({ name: 'Testing ground', channels: [{ name: 'general' }] });
  // A directory without a .env, so a developer's own settings cannot leak into the spawned CLI.
  cwd = await mkdtemp(join(tmpdir(), 'wotd-deploy-'));
});

afterAll(async () => {
  await discord?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

function captured(): { stream: Writable; text: () => string } {
  let text = '';
  return {
    stream: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString('utf8');
        callback();
      },
    }),
    text: () => text,
  };
}

async function deploy(args: string[], env: NodeJS.ProcessEnv) {
  const stdout = captured();
  const stderr = captured();
  const code = await runDeployCommands(args, { env, stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const harnessEnv = (): NodeJS.ProcessEnv => ({ DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl });

describe('wotd-bot deploy-commands', () => {
  it('registers every command globally when run as the CLI, reading the application id from Discord', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'deploy-commands'], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...harnessEnv() },
    });
    const registered = discord.commands();
    expect(registered.map((command) => command.name).sort()).toEqual([...NAMES].sort());
    expect(stdout).toContain(`Registered ${NAMES.length} slash commands globally for application ${discord.applicationId}:`);
    for (const command of registered) expect(stdout).toContain(`/${command.name} (${command.id}): ${command.description}`);
    const calls = discord.requests.map((request) => `${request.method} ${request.path}`);
    expect(calls).toEqual(['GET /applications/@me', `PUT /applications/${discord.applicationId}/commands`]);
    const put = discord.requests[1];
    expect(put?.body).toEqual(commands.map((command) => command.data.toJSON()));
  });

  it('registers in one server with --guild, using DISCORD_APPLICATION_ID when set', async () => {
    const before = discord.requests.length;
    const result = await deploy(['--guild', guild.id], { ...harnessEnv(), DISCORD_APPLICATION_ID: discord.applicationId });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`Registered ${NAMES.length} slash commands in server ${guild.id}`);
    expect(discord.commands(guild.id).map((command) => command.name).sort()).toEqual([...NAMES].sort());
    // Only the PUT: the application id came from the setting.
    expect(discord.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      `PUT /applications/${discord.applicationId}/guilds/${guild.id}/commands`,
    ]);
  });

  it('falls back to /oauth2/applications/@me when /applications/@me is not available', async () => {
    const fault = discord.injectFault({ route: 'GET /applications/@me', status: 404, times: 1 });
    const before = discord.requests.length;
    const result = await deploy(['--guild', guild.id], harnessEnv());
    expect(result.code).toBe(0);
    expect(fault.hits).toBe(1);
    expect(discord.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /applications/@me',
      'GET /oauth2/applications/@me',
      `PUT /applications/${discord.applicationId}/guilds/${guild.id}/commands`,
    ]);
  });

  it('without DISCORD_TOKEN, says how to get one and exits 2 before calling Discord', async () => {
    const before = discord.requests.length;
    const result = await deploy([], { DISCORD_API_URL: discord.apiUrl });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/DISCORD_TOKEN is not set\. .*developer portal/);
    expect(discord.requests.length).toBe(before);
  });

  it('explains a rejected token, an unknown server, an unreachable API and bad arguments', async () => {
    const rejected = await deploy([], { ...harnessEnv(), DISCORD_TOKEN: 'not-the-token-at-all' });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('Discord rejected DISCORD_TOKEN (401 Unauthorized)');
    expect(rejected.stderr).not.toContain('not-the-token-at-all');

    const unknownServer = await deploy(['--guild', '123456789012345678'], harnessEnv());
    expect(unknownServer.code).toBe(1);
    expect(unknownServer.stderr).toContain('Discord refused (403 Forbidden): Missing Access');

    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const unreachable = await deploy([], { ...harnessEnv(), DISCORD_API_URL: `http://127.0.0.1:${port}/api` });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`could not reach Discord at http://127.0.0.1:${port}/api: connect ECONNREFUSED`);

    const badArgument = await deploy(['--guild', 'my-server'], harnessEnv());
    expect(badArgument.code).toBe(2);
    expect(badArgument.stderr).toContain('"my-server" is not a server id');
  });
});
