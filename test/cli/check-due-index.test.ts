import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { makeSubscription } from '../schedule/helpers.ts';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wotd-check-index-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function checkCli(storeUrl: string, ...args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(WOTD_|REDIS_|STORE_URL|DISCORD_)/.test(key)) env[key] = value;
  const child = spawn(process.execPath, [BIN, 'check-due-index', ...args], { cwd: dir, env: { ...env, STORE_URL: storeUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ ...run, code })));
}

describe('wotd-bot check-due-index', () => {
  it('reports each kind of disagreement with exit 3, repairs them with --repair, then reports none', async () => {
    const url = `sqlite://${join(dir, 'store.sqlite')}`;
    const store = await SubscriptionStore.open(url);
    for (const channelId of ['c1', 'c2', 'c3']) await store.upsert('g1', channelId, 10, () => makeSubscription({ channelId }));
    const index = store.dueIndex();
    await index.remove(['c1']);
    await index.put([
      { channelId: 'c2', dueAt: Date.parse('2099-01-01T00:00:00Z'), state: 'active' },
      { channelId: 'c3', dueAt: 0, state: 'failing' },
      { channelId: 'gone', dueAt: 0, state: 'active' },
    ]);
    await store.close();

    const found = await checkCli(url);
    expect(found).toEqual({
      code: 3,
      stdout: 'due-index: subscriptions=3 entries=3 missing=1 late=1 wrong_state=1 orphaned=1 repaired=0\n',
      stderr: 'missing: c1\nlate: c2\nwrongState: c3\norphaned: gone\n',
    });
    // The entries are walked after the subscriptions, so the one repaired in as missing is counted.
    const repaired = await checkCli(url, '--repair');
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toBe('due-index: subscriptions=3 entries=4 missing=1 late=1 wrong_state=1 orphaned=1 repaired=4\n');
    expect(await checkCli(url)).toEqual({ code: 0, stdout: 'due-index: subscriptions=3 entries=3 missing=0 late=0 wrong_state=0 orphaned=0 repaired=0\n', stderr: '' });
  });

  it('exits 2 for an unknown option, with the usage', async () => {
    const run = await checkCli(`sqlite://${join(dir, 'store.sqlite')}`, '--fix');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option "--fix"');
    expect(run.stderr).toContain('Usage: wotd-bot check-due-index [--repair]');
  });
});
