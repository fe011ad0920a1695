import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { collectOutput, type ChildOutput } from '../support/child-output.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * docs/deploying.md, command by command, in the page's order: each line of its `sh` blocks is taken from the page
 * and run here, its paths moved into a temporary folder (/opt/wotd-bot, /etc/wotd-bot, /var/lib/wotd-bot, the unit
 * folder, the tarballs) and `sudo` dropped (the suite runs as root). The few that need what this machine lacks
 * (systemd as PID 1, a journal, a boot service for pm2) are listed in NOT_RUN with what runs in their place; the
 * last test checks that every command of the page was run or is listed there, so a new command needs a test.
 * The bot runs on Discord (the local Discord-compatible server) against our service, both on loopback.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(join(ROOT, 'docs/deploying.md'), 'utf8');

/** The page's commands: every line of its sh blocks (without its comment), and the pm2 upgrade's, written inline. */
function pageCommands(): string[] {
  const blocks = [...PAGE.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) => (block[1] ?? '').split('\n'));
  // Upgrading's pm2 sentence names its commands inline.
  const pm2Upgrade = /^Under pm2: .*$/m.exec(PAGE)?.[0] ?? '';
  const inline = [...pm2Upgrade.matchAll(/`(pm2 [^`]+)`/g)].map((match) => match[1] ?? '');
  return [...new Set([...blocks, ...inline].map((line) => line.replace(/\s+#\s.*$/, '').trim()).filter(Boolean))];
}

/** Commands this machine cannot run, and what runs in their place (or why nothing can). */
const NOT_RUN: Record<string, string> = {
  'sudo systemctl daemon-reload && sudo systemctl enable --now wotd-bot':
    'systemd is not PID 1 here: the unit\'s ExecStart is run as systemd runs it (its user, folder, EnvironmentFile, UMask and the hardening a mount namespace and setpriv can apply)',
  'systemctl status wotd-bot': 'systemd is not PID 1 here: /healthz and the process stand in for it',
  'sudo systemctl stop wotd-bot': 'systemd is not PID 1 here: SIGTERM, which is the unit\'s KillSignal, is sent instead',
  'sudo systemctl start wotd-bot': 'systemd is not PID 1 here: the ExecStart is run again as above',
  'journalctl -u wotd-bot -o cat -f | /opt/wotd-bot/node_modules/.bin/pino-pretty':
    'no journal here: the bot\'s standard error, which the journal keeps as it is, goes through the same pino-pretty',
};
/** `pm2 startup` installs a boot service on the machine it runs on: the half of its line that is not run. */
const PM2_STARTUP = 'pm2 save && pm2 startup';

const ran = new Set<string>();

let discord: DiscordServer;
let service: RunningService;
let dir: string;
let port: number;
const paths = { opt: '', etc: '', state: '', units: '', tarballs: '', sysroot: '', source: '' };
let user = { uid: 0, gid: 0 };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port: free } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return free;
}

/** A line of the page, as it runs here: its paths moved into the test's folder, `sudo` dropped, the bot's user by number. */
function here(line: string): string {
  const moved: Record<string, string> = {
    '/opt/wotd-bot': paths.opt,
    '/etc/wotd-bot': paths.etc,
    '/var/lib/wotd-bot': paths.state,
    '/etc/systemd/system/': `${paths.units}/`,
    '/path/to/': `${paths.tarballs}/`,
    '127.0.0.1:9464': `127.0.0.1:${port}`,
  };
  return line
    .replace(/(^|&& )sudo /g, '$1')
    .replace(/ -([og]) wotd-bot\b/g, (_, flag: string) => ` -${flag} ${flag === 'o' ? user.uid : user.gid}`)
    .replace(/\/opt\/wotd-bot|\/etc\/wotd-bot|\/var\/lib\/wotd-bot|\/etc\/systemd\/system\/|\/path\/to\/|127\.0\.0\.1:9464/g, (path) => moved[path] ?? path);
}

/** The environment of a root shell on the server: no bot settings, pm2 on the PATH, npm's registry answered from its cache. */
function shellEnv(): NodeJS.ProcessEnv {
  const env = childEnv({}, ['PM2_', 'npm_']);
  return {
    ...env,
    PATH: `${join(ROOT, 'node_modules/.bin')}:${env.PATH ?? ''}`,
    PM2_HOME: join(dir, 'pm2-home'),
    // Tests reach nothing beyond loopback: npm installs from its cache, and sqlite3's script would download.
    npm_config_offline: 'true',
    npm_config_ignore_scripts: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
}

function sh(script: string, options: { cwd?: string; timeout?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('sh', ['-ec', script], { cwd: options.cwd ?? dir, env: options.env ?? shellEnv(), timeout: options.timeout ?? 120_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Runs these lines of the page in one shell, in order, and expects them to succeed. */
async function runPage(lines: string[], options: { cwd?: string; timeout?: number } = {}): Promise<string> {
  const commands = pageCommands();
  for (const line of lines) expect(commands, 'a command of docs/deploying.md').toContain(line);
  const result = await sh(lines.map(here).join('\n'), options);
  expect(result.code, `${lines.join('\n')}\n${result.stderr}`).toBe(0);
  for (const line of lines) ran.add(line);
  return result.stdout;
}

async function healthz(): Promise<{ status?: string; gateway?: { status?: string } }> {
  const body = await vi.waitFor(() => runPage(['curl -fsS http://127.0.0.1:9464/healthz']), { timeout: 30_000, interval: 200 });
  return JSON.parse(body) as { status?: string; gateway?: { status?: string } };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-deploy-page-'));
  // The bot's user must reach the folders below it.
  await chmod(dir, 0o755);
  Object.assign(paths, {
    opt: join(dir, 'opt/wotd-bot'),
    etc: join(dir, 'etc/wotd-bot'),
    state: join(dir, 'var/lib/wotd-bot'),
    units: join(dir, 'etc/systemd/system'),
    tarballs: join(dir, 'tarballs'),
    sysroot: join(dir, 'sysroot'),
    source: join(dir, 'source'),
  });
  await mkdir(paths.units, { recursive: true });
  await mkdir(paths.tarballs);
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
  discord = await startDiscordServer();
  port = await freePort();
});
afterAll(async () => {
  await sh('pm2 kill || true');
  await discord?.close();
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('docs/deploying.md, run command by command', () => {
  it('Install: npm pack builds the bot afresh into a tarball; a system user; npm install of the tarball; the settings file', async () => {
    // `npm install && npm pack` on a clone: the clone's sources (as git has them) with its installed node_modules,
    // so the `npm install` half has been done; `npm pack` then removes dist/ and builds it again (prepack, prepare).
    const line = 'npm install && npm pack';
    expect(pageCommands()).toContain(line);
    await mkdir(paths.source);
    const files = await sh(`git -C '${ROOT}' ls-files -z | xargs -0 -I{} cp --parents {} '${paths.source}'`, { cwd: ROOT });
    expect(files.code, files.stderr).toBe(0);
    await sh(`ln -s '${join(ROOT, 'node_modules')}' node_modules && mkdir -p dist && echo stale > dist/stale.js`, { cwd: paths.source });
    const { npm_config_ignore_scripts: _scripts, ...withScripts } = shellEnv();
    const packed = await sh(line.replace('npm install && ', ''), { cwd: paths.source, timeout: 180_000, env: withScripts });
    expect(packed.code, packed.stderr).toBe(0);
    ran.add(line);
    await copyFile(join(paths.source, 'wotd-bot-0.1.0.tgz'), join(paths.tarballs, 'wotd-bot-0.1.0.tgz'));
    expect(existsSync(join(paths.source, 'dist/stale.js'))).toBe(false);
    expect(existsSync(join(paths.source, 'dist/src/cli.js'))).toBe(true);

    // useradd on copies of this machine's user files (--prefix): the machine gets no user.
    await mkdir(join(paths.sysroot, 'etc'), { recursive: true });
    for (const file of ['passwd', 'group', 'shadow', 'gshadow', 'login.defs']) {
      if (existsSync(`/etc/${file}`)) await copyFile(`/etc/${file}`, join(paths.sysroot, 'etc', file));
    }
    const useradd = 'sudo useradd --system --home-dir /var/lib/wotd-bot --shell /usr/sbin/nologin wotd-bot';
    expect(pageCommands()).toContain(useradd);
    const added = await sh(useradd.replace('sudo useradd ', `useradd --prefix '${paths.sysroot}' `));
    expect(added.code, added.stderr).toBe(0);
    ran.add(useradd);
    const entry = (await readFile(join(paths.sysroot, 'etc/passwd'), 'utf8')).split('\n').find((row) => row.startsWith('wotd-bot:'))?.split(':') ?? [];
    expect(entry.slice(5)).toEqual(['/var/lib/wotd-bot', '/usr/sbin/nologin']);
    user = { uid: Number(entry[2]), gid: Number(entry[3]) };

    await runPage(['sudo mkdir -p /opt/wotd-bot /etc/wotd-bot']);
    // npm's registry, answered from its cache: a lock file pinning every dependency to ours (the tarball as it is).
    await writeInstallLock(paths.opt, join(paths.tarballs, 'wotd-bot-0.1.0.tgz'));
    await runPage(['cd /opt/wotd-bot && sudo npm install --omit=dev /path/to/wotd-bot-0.1.0.tgz'], { timeout: 180_000 });
    await putSqliteBinary(paths.opt);
    await runPage(['sudo install -m 600 /opt/wotd-bot/node_modules/wotd-bot/.env.example /etc/wotd-bot/env']);
    expect((await stat(join(paths.etc, 'env'))).mode & 0o777).toBe(0o600);
    // "then set DISCORD_TOKEN in it": the token, and this test's loopback Discord, service and metrics port.
    await setEnv(join(paths.etc, 'env'), {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      WOTD_MIRROR: 'off',
      METRICS_PORT: String(port),
    });
  }, 400_000);

  it('registers the commands with the settings file, read by sh as the page says', async () => {
    expect(discord.commands()).toEqual([]);
    await runPage(["sudo sh -c 'set -a; . /etc/wotd-bot/env; exec /opt/wotd-bot/node_modules/.bin/wotd-bot deploy-commands'"]);
    expect(discord.commands().map((command) => command.name)).toContain('wotd');
  });

  let bot: { output: ChildOutput; exited: Promise<number | null>; stop: () => void } | undefined;

  it('Under systemd: the unit verifies where the page puts it; its ExecStart, run as systemd runs it, is healthy', async () => {
    await runPage(['sudo cp /opt/wotd-bot/node_modules/wotd-bot/deploy/wotd-bot.service /etc/systemd/system/']);
    const unitFile = join(paths.units, 'wotd-bot.service');
    // Only node's path differs between machines.
    const unit = (await readFile(unitFile, 'utf8')).replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `);
    await writeFile(unitFile, unit);
    expect(await runPage(['sudo systemd-analyze verify /etc/systemd/system/wotd-bot.service'])).toBe('');

    bot = startAsSystemd(unit);
    const health = await healthz();
    expect(health).toMatchObject({ status: 'ok', gateway: { status: 'ok' } });
    expect(bot.output.stdout).toMatch(/^Add the bot to a server: https:\/\/discord\.com\/oauth2\/authorize\?/m);
    // The store in the StateDirectory, owned by the bot's user, with the unit's UMask.
    const store = await stat(join(paths.state, 'data/store.sqlite'));
    expect({ uid: store.uid, mode: store.mode & 0o777 }).toEqual({ uid: user.uid, mode: 0o640 });
  }, 90_000);

  it('the backup, as the bot\'s user beside the running bot; Logs: its log through pino-pretty', async () => {
    const line = 'cd /var/lib/wotd-bot && /opt/wotd-bot/node_modules/.bin/wotd-bot migrate-store --from sqlite://data/store.sqlite --to sqlite://backup/store-$(date +%F).sqlite';
    expect(pageCommands()).toContain(line);
    const asUser = await sh(`setpriv --reuid=${user.uid} --regid=${user.gid} --clear-groups sh -ec '${here(line).replaceAll("'", "'\\''")}'`);
    expect(asUser.code, asUser.stderr).toBe(0);
    ran.add(line);
    const today = (await sh('date +%F')).stdout.trim();
    expect((await stat(join(paths.state, `backup/store-${today}.sqlite`))).uid).toBe(user.uid);

    const pretty = await prettyPrint(join(paths.opt, 'node_modules/.bin/pino-pretty'), bot?.output.stderr ?? '');
    expect(pretty).toMatch(/INFO.*connected to Discord as/);
  }, 60_000);

  it('Upgrading: stopped, the next version installed over it, commands registered, started again on the same store', async () => {
    bot?.stop();
    expect(await bot?.exited, bot?.output.stderr).toBe(0);
    await packNextVersion(join(paths.tarballs, 'wotd-bot-0.1.0.tgz'), '0.2.0');
    await runPage(['cd /opt/wotd-bot && sudo npm install --omit=dev /path/to/wotd-bot-0.2.0.tgz'], { timeout: 180_000 });
    await putSqliteBinary(paths.opt);
    expect((await sh(`'${join(paths.opt, 'node_modules/.bin/wotd-bot')}' --version`)).stdout).toBe('wotd-bot 0.2.0\n');
    await runPage(["sudo sh -c 'set -a; . /etc/wotd-bot/env; exec /opt/wotd-bot/node_modules/.bin/wotd-bot deploy-commands'"]);

    bot = startAsSystemd(await readFile(join(paths.units, 'wotd-bot.service'), 'utf8'));
    expect(await healthz()).toMatchObject({ status: 'ok', gateway: { status: 'ok' } });
    bot.stop();
    expect(await bot.exited, bot.output.stderr).toBe(0);
  }, 400_000);

  it('Under pm2: its folder and .env made, started, saved, its log read, stopped and started by name', async () => {
    await rm(paths.state, { recursive: true, force: true });
    await runPage([
      'sudo install -d -o wotd-bot -g wotd-bot -m 750 /var/lib/wotd-bot',
      'sudo install -m 600 -o wotd-bot /etc/wotd-bot/env /var/lib/wotd-bot/.env',
      'cd /var/lib/wotd-bot',
      'pm2 start /opt/wotd-bot/node_modules/wotd-bot/deploy/ecosystem.config.cjs',
    ]);
    expect(await healthz()).toMatchObject({ status: 'ok', gateway: { status: 'ok' } });
    expect(existsSync(join(paths.state, 'data/store.sqlite'))).toBe(true);

    // pm2 save, without `pm2 startup` (a boot service for this machine): the list it restores at boot.
    expect(pageCommands()).toContain(PM2_STARTUP);
    const saved = await sh('pm2 save');
    expect(saved.code, saved.stderr).toBe(0);
    const dump = JSON.parse(await readFile(join(dir, 'pm2-home/dump.pm2'), 'utf8')) as Array<{ name: string; pm_cwd: string }>;
    expect(dump).toMatchObject([{ name: 'wotd-bot', pm_cwd: paths.state }]);

    // pm2 prints the bot's standard error on its own standard error: without 2>&1 nothing reached pino-pretty.
    expect(await followLog('pm2 logs wotd-bot --raw 2>&1 | /opt/wotd-bot/node_modules/.bin/pino-pretty', /INFO.*connected to Discord as/)).toBe(true);

    await runPage(['pm2 stop wotd-bot']);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await runPage(['pm2 start wotd-bot']);
    expect(await healthz()).toMatchObject({ status: 'ok', gateway: { status: 'ok' } });
    await runPage(['pm2 stop wotd-bot']);
  }, 120_000);

  it('every command of the page was run above, or is one this machine cannot run (listed with what stands in)', () => {
    const left = pageCommands().filter((line) => !ran.has(line) && !(line in NOT_RUN) && line !== PM2_STARTUP);
    expect(left).toEqual([]);
    expect(Object.keys(NOT_RUN).filter((line) => !pageCommands().includes(line))).toEqual([]);
  });
});

/** Sets these variables in an EnvironmentFile (KEY=value lines), replacing the empty ones .env.example has. */
async function setEnv(file: string, values: Record<string, string>): Promise<void> {
  let text = await readFile(file, 'utf8');
  for (const [key, value] of Object.entries(values)) {
    const line = new RegExp(`^${key}=.*$`, 'm');
    text = line.test(text) ? text.replace(line, `${key}=${value}`) : `${text}${key}=${value}\n`;
  }
  await writeFile(file, text);
}

/** systemd's reading of an EnvironmentFile: KEY=value lines, comments and blank lines skipped, quotes removed. */
function readEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match) env[match[1] as string] = (match[2] as string).trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return env;
}

/**
 * What `systemctl start wotd-bot` runs, as systemd runs it, in a mount namespace of its own: the unit's ExecStart
 * as its User, in its WorkingDirectory (the bot's folder, at /var/lib/wotd-bot), with its EnvironmentFile and a
 * service's environment, UMask, NoNewPrivileges, no capabilities, and ProtectSystem=strict (everything read-only
 * but the working folder), PrivateTmp and ProtectHome as mounts. The installed bot is mounted at /opt/wotd-bot, so
 * the ExecStart line runs as the unit has it.
 */
function startAsSystemd(unit: string): { output: ChildOutput; exited: Promise<number | null>; stop: () => void } {
  const option = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1] ?? '';
  expect([option('User'), option('WorkingDirectory'), option('ProtectSystem'), option('PrivateTmp'), option('ProtectHome')]).toEqual([
    'wotd-bot',
    '/var/lib/wotd-bot',
    'strict',
    'yes',
    'yes',
  ]);
  const environment = readEnvironmentFile(readFileSync(here(option('EnvironmentFile')), 'utf8'));
  const script = [
    'set -e',
    `mount -t tmpfs tmpfs /opt && mkdir /opt/wotd-bot && mount --bind '${paths.opt}' /opt/wotd-bot`,
    `mount -t tmpfs tmpfs /var/lib && mkdir /var/lib/wotd-bot && mount --bind '${paths.state}' /var/lib/wotd-bot`,
    // ProtectSystem=strict: every mount read-only but the working folder and the kernel's (/proc, /sys, /dev).
    `for mp in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do case "$mp" in /var/lib/wotd-bot|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) ;; *) mount -o remount,bind,ro "$mp" ;; esac; done`,
    'mount -t tmpfs -o mode=1777 tmpfs /tmp',
    'for home in /root /home /run/user; do if [ -d "$home" ]; then mount -t tmpfs -o mode=000,ro tmpfs "$home"; fi; done',
    // The namespace did make the system read-only: otherwise this is no test of the hardening.
    'if touch /usr/.wotd-bot-probe 2>/dev/null; then echo "the system is writable" >&2; exit 90; fi',
    `cd '${option('WorkingDirectory')}'`,
    `umask ${option('UMask') || '0022'}`,
    `exec setpriv --reuid=${user.uid} --regid=${user.gid} --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- ${option('ExecStart')}`,
  ].join('\n');
  // StateDirectory: made and owned by the unit's user.
  return (() => {
    const child = spawn('sh', ['-c', `mkdir -p '${paths.state}' && chown ${user.uid}:${user.gid} '${paths.state}' && chmod ${option('StateDirectoryMode') || '0755'} '${paths.state}' && exec unshare --mount --propagation private sh -c "$0"`, script], {
      env: {
        PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        HOME: '/var/lib/wotd-bot',
        USER: 'wotd-bot',
        LOGNAME: 'wotd-bot',
        SHELL: '/usr/sbin/nologin',
        ...environment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { output, exited } = collectOutput(child);
    // KillSignal=SIGTERM, to the main process (unshare and the shells exec into node).
    return { output, exited, stop: () => child.kill(option('KillSignal') as NodeJS.Signals) };
  })();
}

/** Runs a `… -f | pino-pretty` line of the page until its output shows `wanted`, then stops it. */
async function followLog(line: string, wanted: RegExp): Promise<boolean> {
  expect(pageCommands()).toContain(line);
  const child = spawn('sh', ['-c', here(line)], { cwd: dir, env: { ...shellEnv(), NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const { output, exited } = collectOutput(child);
  try {
    await vi.waitFor(() => expect(output.stdout).toMatch(wanted), { timeout: 20_000, interval: 100 });
    ran.add(line);
    return true;
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  }
}

function prettyPrint(file: string, input: string): Promise<string> {
  return new Promise((done, failed) => {
    const child = execFile(file, [], { env: { ...process.env, NO_COLOR: '1' } }, (error, stdout) => (error ? failed(error) : done(stdout)));
    child.stdin?.end(input);
  });
}

/** The release after this one: the tarball with another version number (the page installs it over the first). */
async function packNextVersion(tarball: string, version: string): Promise<void> {
  const unpacked = join(dir, `next-${version}`);
  await mkdir(unpacked);
  expect((await sh(`tar -xzf '${tarball}' -C '${unpacked}'`)).code).toBe(0);
  const manifest = join(unpacked, 'package/package.json');
  await writeFile(manifest, JSON.stringify({ ...(JSON.parse(await readFile(manifest, 'utf8')) as object), version }, null, 2));
  const packed = await sh(`npm pack --pack-destination '${paths.tarballs}'`, { cwd: join(unpacked, 'package') });
  expect(packed.code, packed.stderr).toBe(0);
}

/**
 * npm's registry is not reached from tests: a lock file in the install folder pins every dependency to the version
 * and integrity of ours, which npm then finds in its cache, as it would have fetched them.
 */
async function writeInstallLock(folder: string, tarball: string): Promise<void> {
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; bin: Record<string, string> };
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; resolved?: string; version?: string; link?: boolean }> };
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { dependencies: { 'wotd-bot': spec } },
    'node_modules/wotd-bot': { version: ours.version, resolved: spec, dependencies: ours.dependencies, bin: ours.bin },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev || entry.link || !path.startsWith('node_modules/')) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[path] = { ...entry, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').at(-1)}-${entry.version}.tgz` };
  }
  await writeFile(join(folder, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, requires: true, packages }));
}

/** sqlite3's install script (not run: it downloads) would fetch its prebuilt binary: the one this machine built. */
async function putSqliteBinary(folder: string): Promise<void> {
  const binary = 'node_modules/sqlite3/build/Release/node_sqlite3.node';
  await mkdir(join(folder, 'node_modules/sqlite3/build/Release'), { recursive: true });
  await copyFile(join(ROOT, binary), join(folder, binary));
}
