import Keyv from 'keyv';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin } from '../support/upstream/deployment-twin.ts';

/** A Keyv store whose every operation fails, like a locked or vanished SQLite file. */
class BrokenStore extends Map<string, unknown> {
  override get(): never {
    throw new Error('disk I/O error');
  }
  override set(): never {
    throw new Error('disk I/O error');
  }
  override has(): never {
    throw new Error('disk I/O error');
  }
  override delete(): never {
    throw new Error('disk I/O error');
  }
}

let upstream: DeploymentTwin;
let adapter: WotdAdapter;
let storeErrors: unknown[];

beforeEach(async () => {
  const clock = new ManualClock('2024-06-15T12:00:00Z');
  upstream = await startDeploymentTwin({ entries: sampleEntries('2024-06-01', 15), variant: 'A', now: clock.now });
  storeErrors = [];
  const store = new Keyv({ store: new BrokenStore() });
  adapter = await createWotdAdapter({
    baseUrl: upstream.url,
    store,
    variant: 'A',
    now: clock.now,
    timers: clock,
    onStoreError: (error) => storeErrors.push(error),
  });
});

afterEach(async () => {
  await adapter.close();
  await upstream.close();
});

it('keeps answering, from memory, when the cache store fails', async () => {
  const first = await adapter.getEntry('2024-06-10');
  expect(first.value.date).toBe('2024-06-10');
  expect((await adapter.getEntry('2024-06-10')).fromCache).toBe(true);
  expect((await adapter.getEntry('2024-06-08')).fromCache).toBe(true);
  expect(upstream.requests).toHaveLength(1);
  expect(storeErrors.length).toBeGreaterThan(0);
});
