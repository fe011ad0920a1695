import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWordDb } from '../../src/service/word-db.ts';
import { addDays, utcDateOf, type Variant } from '../../src/wotd/dates.ts';
import { startDeploymentTwin, withDeploymentCases } from '../support/upstream/deployment-twin.ts';
import { expectInOrder, FIRST_SCREEN, startBot } from './console-process.ts';

/** The console with default settings (variant auto), pointed at twins of both real deployments. */

const today = utcDateOf(new Date());
let dir: string;
let cases: ReturnType<typeof withDeploymentCases>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-console-real-'));
  cases = withDeploymentCases(await readWordDb('data/words.sqlite'), today);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent.each(['A', 'B'] as Variant[])('the console against deployment %s', (variant) => {
  it('answers /wotd, /wotd-history and /wotd-find rightly', async () => {
    const twin = await startDeploymentTwin({ variant, entries: cases.entries });
    try {
      const byDate = new Map(cases.entries.map((entry) => [entry.date, entry]));
      const word = (days: number) => byDate.get(addDays(today, days))?.word ?? '?';
      const { child, exited } = startBot(dir, { WOTD_API_URL: twin.url, STORE_URL: `sqlite://${join(dir, `store-${variant}.sqlite`)}` });
      child.stdin.end(
        ['/wotd', `/wotd date:${addDays(today, -1)}`, '/wotd-history limit:8', `/wotd-find word:${cases.recurring}`, `/wotd-find word:${cases.capitalised.toLowerCase()}`, '/wotd-find word:qwertyuiop', 'exit', ''].join('\n'),
      );
      const result = await exited;
      expect(result.stderr.replace(FIRST_SCREEN, '')).toBe('');
      expect(result.code).toBe(0);
      const first = variant === 'A' ? `${cases.recurring}: first word of the day on ${addDays(today, -40)}` : `${cases.recurring}: word of the day 2 times`;
      expectInOrder(result.stdout, [
        `│ ${word(0)}  <https://wotd.site>`,
        `│ ${today} · Word of the Day`,
        `│ ${word(-1)}  <https://wotd.site>`,
        `│ ${addDays(today, -1)} · Word of the Day`,
        `│ ${word(-1)} · ${addDays(today, -1)}`,
        `│ ${word(-8)} · ${addDays(today, -8)}`,
        `│ ${first}`,
        `│ ${addDays(today, -3)} · adjective · /ˈmɛlənkɒli/ — (literary) Sad and "pensive".`,
        `│ ${addDays(today, -40)} · noun · /ˈmɛlənkɒli/ — A deep, long-lasting sadness.`,
        `│ ${cases.capitalised}: ${variant === 'A' ? `first word of the day on ${addDays(today, -5)}` : 'word of the day once'}`,
        '“qwertyuiop” has not been a word of the day',
      ]);
      if (variant === 'A') expect(result.stdout).toContain('The service reports only the first date a word was chosen; later dates are those this bot has seen.');
      expect(twin.requests.filter((request) => request.status === 429)).toEqual([]);
    } finally {
      await twin.close();
    }
  });
});
