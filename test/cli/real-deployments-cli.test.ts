import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWordDb } from '../../src/service/word-db.ts';
import { addDays, utcDateOf, type Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { startDeploymentTwin, withDeploymentCases, type DeploymentTwin } from '../support/upstream/deployment-twin.ts';
import { tempDir } from '../wotd/harness.ts';

/**
 * `wotd-bot query|history|find` as a new user runs them, with the default settings (variant auto) and one store
 * from fresh, against twins of both real deployments at their real rate limit.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: { path: string; cleanup: () => Promise<void> };
const today = utcDateOf(new Date());
let cases: ReturnType<typeof withDeploymentCases>;
let byDate: Map<string, Entry>;

beforeAll(async () => {
  dir = await tempDir();
  cases = withDeploymentCases(await readWordDb('data/words.sqlite'), today);
  byDate = new Map(cases.entries.map((entry) => [entry.date, entry]));
});

afterAll(async () => {
  await dir.cleanup();
});

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/wotd-bot.js', ...args], { env: { ...process.env, WOTD_API_VARIANT: '', REDIS_URL: '', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe.concurrent.each(['A', 'B'] as Variant[])('the CLI against deployment %s', (variant) => {
  it('answers query, query yesterday, history, and finds rightly, within the budget', async () => {
    const twin: DeploymentTwin = await startDeploymentTwin({ variant, entries: cases.entries });
    const env = { WOTD_API_URL: twin.url, STORE_URL: `sqlite://${join(dir.path, `store-${variant}.sqlite`)}` };
    try {
      const yesterday = addDays(today, -1);
      const todayRun = await cli(['query', '--json'], env);
      expect(todayRun).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(todayRun.stdout)).toEqual(byDate.get(today));

      const yesterdayRun = await cli(['query', yesterday, '--json'], env);
      expect(yesterdayRun.code).toBe(0);
      expect(JSON.parse(yesterdayRun.stdout)).toEqual(byDate.get(yesterday));

      const history = await cli(['history', '--limit', '8', '--json'], env);
      expect(history.code).toBe(0);
      expect(JSON.parse(history.stdout)).toEqual({
        date: today,
        has_more: true,
        results: Array.from({ length: 8 }, (_, i) => byDate.get(addDays(today, -1 - i))),
      });

      // Recurring: A reports its first date only; the later one is in the store from the history page.
      const recurring = await cli(['find', cases.recurring], env);
      expect(recurring.code).toBe(0);
      const recurringDates = [addDays(today, -3), addDays(today, -40)];
      if (variant === 'A') {
        expect(recurring.stdout).toContain(`"${cases.recurring}" was first the word of the day on ${recurringDates[1]}. The service reports only the first date.`);
      } else {
        expect(recurring.stdout).toContain(`"${cases.recurring}" was the word of the day 2 times:`);
      }
      expect(recurring.stdout.indexOf(`${recurringDates[0]}  ${cases.recurring} (adjective)  /ˈmɛlənkɒli/`)).toBeLessThan(
        recurring.stdout.indexOf(`${recurringDates[1]}  ${cases.recurring} (noun)`),
      );

      const capitalised = await cli(['find', cases.capitalised.toLowerCase(), '--json'], env);
      expect(capitalised.code).toBe(0);
      expect(JSON.parse(capitalised.stdout)).toEqual({
        word: cases.capitalised.toLowerCase(),
        complete: variant === 'B',
        results: [byDate.get(addDays(today, -5))],
      });

      const missing = await cli(['find', 'qwertyuiop'], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('"qwertyuiop" has never been the word of the day');

      const gap = await cli(['query', addDays(today, -10)], env);
      expect(gap.code).toBe(1);
      expect(gap.stderr).toContain(`no word of the day for ${addDays(today, -10)}`);

      expect(twin.requests.filter((request) => request.status === 429)).toEqual([]);
      expect(twin.maxPerEndpointPerMinute()).toBeLessThanOrEqual(10);
    } finally {
      await twin.close();
    }
  });
});
