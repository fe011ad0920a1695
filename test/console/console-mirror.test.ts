import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { sampleEntries, startDeploymentTwin } from '../support/upstream/deployment-twin.ts';
import { addDays, utcDateOf } from '../../src/wotd/dates.ts';
import { startBot, type Run } from './console-process.ts';

/**
 * The database mirror in console mode, end to end: `wotd-bot start` mirrors the embedded service's own snapshots
 * (our `serve` publishes them as deployment A does), says so on the first screen, and shows it on /healthz.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-console-mirror-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Resolves with the first log line (JSON on stderr) whose message passes `match`. */
function logLine(child: ReturnType<typeof startBot>['child'], run: Run, match: (msg: string) => boolean): Promise<Record<string, unknown>> {
  return new Promise((found, fail) => {
    const look = (): void => {
      for (const text of run.stderr.split('\n')) {
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        if (typeof line.msg === 'string' && match(line.msg)) {
          child.stderr.off('data', look);
          found(line);
          return;
        }
      }
    };
    child.stderr.on('data', look);
    child.on('close', () => fail(new Error(`the console ended first:\n${run.stderr}`)));
    look();
  });
}

it('mirrors the embedded service, says so on the first screen, and reports it on /healthz', async () => {
  const { child, run, exited } = startBot(dir, { LOG_LEVEL: 'info', METRICS_PORT: '0' });
  const health = logLine(child, run, (msg) => msg.startsWith('health at '));
  const installed = await logLine(child, run, (msg) => msg.startsWith('mirror: installed wotd_'));
  expect(installed.msg).toMatch(/^mirror: installed wotd_\d{4}-\d{2}\.db: 81 entries through 2025-01-20; filled 0 entries through \d{4}-\d{2}-\d{2}$/);
  const url = (await health).url as string;
  const body = (await (await fetch(`${url}/healthz`)).json()) as { mirror?: Record<string, unknown> };
  expect(body.mirror).toMatchObject({ status: 'in_use', rows: 81, newest: '2025-01-20', lastRefresh: { outcome: 'updated' } });
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toMatch(/^wotd_bot_mirror_rows 81$/m);
  expect(metrics).toMatch(/^wotd_bot_mirror_in_use 1$/m);
  child.stdin.end('/wotd-find word:echo\nexit\n');
  const result = await exited;
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(/Past days, history and searches are answered from a local copy of the service's database \(http:\/\/127\.0\.0\.1:\d+\/databases\) once it is loaded, refreshed daily; until then, and if it cannot be, from the service\./);
  expect(result.stdout).toContain('│ echo: word of the day 12 times');
  expect(run.stderr.split('\n').filter((line) => /"level":(40|50)/.test(line))).toEqual([]);
});

it('WOTD_MIRROR=off: the first screen says so and nothing is downloaded', async () => {
  const { child, exited } = startBot(dir, { WOTD_MIRROR: 'off' });
  child.stdin.end('exit\n');
  const result = await exited;
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('The database mirror is off (WOTD_MIRROR=off): every lookup asks the service.');
});

it('an explicit WOTD_SITE_URL is where the snapshots are looked for: the API origin of deployment A has none', async () => {
  // As the real deployment: the API on one origin, /databases on the website's.
  const twin = await startDeploymentTwin({ variant: 'A', entries: sampleEntries(addDays(utcDateOf(new Date()), -120), 140) });
  try {
    const { child, run, exited } = startBot(dir, { LOG_LEVEL: 'info', METRICS_PORT: '0', WOTD_API_URL: twin.url, WOTD_SITE_URL: twin.siteUrl });
    const health = logLine(child, run, (msg) => msg.startsWith('health at '));
    const installed = await logLine(child, run, (msg) => msg.startsWith('mirror: installed wotd_'));
    expect(installed.msg).toMatch(/^mirror: installed wotd_\d{4}-\d{2}\.db: \d+ entries through/);
    const body = (await (await fetch(`${(await health).url as string}/healthz`)).json()) as { mirror?: Record<string, unknown> };
    expect(body.mirror).toMatchObject({ status: 'in_use', source: `${twin.siteUrl}/databases` });
    child.stdin.end('exit\n');
    const result = await exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`a local copy of the service's database (${twin.siteUrl}/databases) once it is loaded`);
    expect(twin.requests.filter((request) => request.path === '/databases').length).toBeGreaterThan(0);
  } finally {
    await twin.close();
  }
});
