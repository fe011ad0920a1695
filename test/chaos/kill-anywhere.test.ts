import { expect, it } from 'vitest';
import { describePostgres, postgresTestUrl } from '../support/postgres.ts';
import { runChaos, type ChaosOptions } from './kill-anywhere.ts';

// The reduced run; `npm run test:chaos` is the full one (2,000 channels, 20 kills).
async function expectExactlyOnce(store: Pick<ChaosOptions, 'postgresUrl'>): Promise<void> {
  const report = await runChaos({ channels: 100, kills: 4, nonceWindowMs: 1_500, ...store });
  expect(report).toMatchObject({ missing: 0, duplicates: 0, wrongRecords: 0, subscriptionsLost: 0, integrity: 'ok' });
  expect(report.killsByKind).toEqual({ 'at-post': 2, 'in-store-write': 1, random: 1 });
  // The in-store-write kill did cut a write off: its post exists and its record still said `sending`.
  expect(report.storeWritesCut).toBe(1);
  // At least the at-post kills left what only looking in the channel can resolve after the window.
  expect(report.leftPostedButUnrecorded).toBeGreaterThanOrEqual(1);
}

it('a bot SIGKILLed at post, inside a store write and anywhere, and restarted, posts each channel exactly once', async () => {
  await expectExactlyOnce({});
}, 120_000);

describePostgres('on PostgreSQL', () => {
  it('a bot SIGKILLed at post, inside a store write and anywhere, and restarted, posts each channel exactly once', async () => {
    await expectExactlyOnce({ postgresUrl: postgresTestUrl ?? '' });
  }, 120_000);
});
