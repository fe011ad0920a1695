import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServeFlags, UsageError } from '../../src/service/serve-command.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { entrySchema } from '../../src/wotd/entry.ts';
import { send, tempDir } from './http.ts';

interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const ROOT = resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];

function serve(args: string[], cwd = ROOT): Spawned {
  const env = { ...process.env };
  delete env.WOTD_SERVICE_DB;
  const child = spawn(process.execPath, [join(ROOT, 'bin/wotd-bot.js'), 'serve', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves with the URL the service says it listens on, or rejects when it exits first. */
function listeningUrl(spawned: Spawned): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(spawned.stdout());
      if (match?.[1]) resolve(match[1]);
    };
    spawned.child.stdout?.on('data', check);
    void spawned.exit.then((code) => reject(new Error(`serve exited with ${code}: ${spawned.stderr()}`)));
  });
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('wotd-bot serve', () => {
  it("serves the bot's own data/words.sqlite from any folder, on the port it reports, rate-limits at ten a minute and stops on SIGTERM", async () => {
    const elsewhere = await tempDir('serve-cwd');
    const spawned = serve(['--port', '0'], elsewhere.dir);
    const url = await listeningUrl(spawned).finally(() => elsewhere.cleanup());
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    expect(spawned.stdout()).toContain(`(variant A, ${join(ROOT, 'data/words.sqlite')}, 10 requests/min per client)`);

    const first = await send(`${url}/query?date=2025-01-01`);
    expect(first.status).toBe(200);
    expect(entrySchema.parse(first.json).date).toBe('2025-01-01');
    const statuses = [first.status];
    for (let i = 0; i < 10; i += 1) statuses.push((await send(`${url}/query?date=2025-01-01`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429]);

    // The /databases pages have their own allowance, and their files a temporary folder removed at the stop.
    const folder = /monthly database snapshots on http:\S+\/databases \(files in (.+)\)\n/.exec(spawned.stdout())?.[1];
    expect(folder).toBeDefined();
    const listing = await send(`${url}/databases`);
    expect(listing.status).toBe(200);
    const newest = [...listing.text.matchAll(/wotd_(\d{4}-\d{2})\.db"/g)].map((match) => match[1] as string).sort().at(-1) as string;
    expect(newest < new Date().toISOString().slice(0, 7)).toBe(true);
    expect(existsSync(join(folder as string, `wotd_${newest}.db`))).toBe(true);

    spawned.child.kill('SIGTERM');
    expect(await spawned.exit).toBe(0);
    expect(existsSync(folder as string)).toBe(false);
    expect(spawned.stdout()).toContain('wotd service stopping (SIGTERM)');
  });

  it('takes --variant, --db, --host and --rate-limit, in both flag forms, and stops on SIGINT', async () => {
    const { dir, cleanup } = await tempDir('serve');
    try {
      const db = join(dir, 'mine.sqlite');
      await writeWordDb(db, [{ date: '2025-01-01', word: 'serif', pos: 'noun', ipa: '/ˈsɛrɪf/', definition: 'a short line' }]);
      const spawned = serve(['--port=0', '--variant', 'b', '--db', db, '--host=127.0.0.1', '--rate-limit', '0']);
      const url = await listeningUrl(spawned);
      expect(spawned.stdout()).toContain(`(variant B, ${db}, no rate limit)`);
      for (let i = 0; i < 12; i += 1) {
        const reply = await send(`${url}/query?date=01-01-2025`);
        expect(reply.status).toBe(200);
        expect(reply.json).toMatchObject({ date: '01-01-2025', word: 'serif' });
      }
      spawned.child.kill('SIGINT');
      expect(await spawned.exit).toBe(0);
    } finally {
      await cleanup();
    }
  });

  it('fails with one clear line and exit code 1 when the database is missing', async () => {
    const spawned = serve(['--port', '0', '--db', 'no/such/words.sqlite']);
    expect(await spawned.exit).toBe(1);
    expect(spawned.stderr()).toBe(
      'wotd-bot serve: cannot open word database no/such/words.sqlite: the file does not exist or cannot be opened\n',
    );
  });

  it('fails with one line naming --port and exit code 2 when the port is in use', async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    try {
      const { port } = holder.address() as AddressInfo;
      const spawned = serve(['--port', String(port)]);
      expect(await spawned.exit).toBe(2);
      expect(spawned.stderr()).toBe(`wotd-bot serve: --port ${port} is already in use on 127.0.0.1; choose another (--port 0 picks a free one)\n`);
      expect(spawned.stdout()).toBe('');
    } finally {
      await new Promise<void>((closed) => holder.close(() => closed()));
    }
  });

  it('fails with one line and exit code 2 for a bad flag value', async () => {
    const spawned = serve(['--variant', 'C']);
    expect(await spawned.exit).toBe(2);
    expect(spawned.stderr()).toBe('wotd-bot serve: --variant "C": expected A (YYYY-MM-DD) or B (DD-MM-YYYY)\n');
  });
});

describe('serve flags', () => {
  it('has documented defaults', () => {
    expect(parseServeFlags([])).toEqual({ port: 8080, host: '127.0.0.1', variant: 'A', db: undefined, rateLimit: 10, snapshotDir: undefined });
    expect(parseServeFlags(['--help'])).toBe('help');
  });

  it.each([
    [['--port', '65536'], '--port "65536": expected a port number from 0 to 65535'],
    [['--port', '-1'], '--port "-1": expected a port number from 0 to 65535'],
    [['--port', '80.5'], '--port "80.5": expected a port number from 0 to 65535'],
    [['--port'], '--port needs a value'],
    [['--port', '--host', 'x'], '--port needs a value'],
    [['--rate-limit', 'ten'], '--rate-limit "ten": expected a whole number of requests per minute, 0 for no limit'],
    [['--rate-limit=-5'], '--rate-limit "-5": expected a whole number of requests per minute, 0 for no limit'],
    [['--variant', 'AB'], '--variant "AB": expected A (YYYY-MM-DD) or B (DD-MM-YYYY)'],
    [['--host', ' '], '--host must not be empty'],
    [['--db='], '--db must not be empty'],
    [['--snapshot-dir', ''], '--snapshot-dir must not be empty'],
    [['--verbose'], 'unknown option "--verbose" (see wotd-bot serve --help)'],
    [['8080'], 'unknown option "8080" (see wotd-bot serve --help)'],
  ])('refuses %j', (args, message) => {
    expect(() => parseServeFlags(args)).toThrow(new UsageError(message));
  });

  it('reads every flag', () => {
    expect(
      parseServeFlags(['--port', '0', '--host', '::1', '--variant=B', '--db', 'x.sqlite', '--rate-limit', '0', '--snapshot-dir=snaps']),
    ).toEqual({
      port: 0,
      host: '::1',
      variant: 'B',
      db: 'x.sqlite',
      rateLimit: 0,
      snapshotDir: 'snaps',
    });
  });
});
