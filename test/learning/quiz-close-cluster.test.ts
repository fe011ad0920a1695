import { afterEach, beforeEach, expect, it } from 'vitest';
import { RedisDeliveryClaims } from '../../src/cluster/redis-delivery-claims.ts';
import type { LearningStore } from '../../src/learning/learning-store.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { startQuizCloseJob } from '../../src/learning/quiz-close-job.ts';
import { quizRendering } from '../../src/replies/learning-replies.ts';
import { openDailyPosts } from '../../src/schedule/daily-posts.ts';
import type { DeliveryClaims } from '../../src/schedule/delivery-claims.ts';
import { PostgresDeliveryClaims } from '../../src/schedule/postgres-delivery-claims.ts';
import { isPostgresStore, type StoreLocation } from '../../src/store/open-store.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { redisTestUrl } from '../support/redis.ts';
import { clusterBackends } from '../support/store-backends.ts';
import { captureLogger, entryFor, tempStore } from '../schedule/helpers.ts';

/**
 * The daily quiz's close job in cluster mode: every member runs it on the shared store, each quiz is closed (its
 * post edited) by the one member that claims it, and a member that dies holding a claim leaves the quiz to another.
 * Each "member" has its own store connection and claims, as separate processes would.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DAY = '2026-06-15';
const CLOSES = Date.parse('2026-06-16T00:00:00Z');
const LATER = CLOSES + 30_000;

interface Edit {
  member: string;
  channelId: string;
  messageId: string;
}

type Lookup = (date: string) => Promise<{ value: Entry; stale: boolean; fromCache: boolean }>;
const found: Lookup = async (date) => ({ value: entryFor(date), stale: false, fromCache: false });

async function member(name: string, location: StoreLocation, edits: Edit[], leaseMs: number, lookup: Lookup = found) {
  const store = await openLearningStore(location);
  cleanups.push(() => store.close());
  let claims: DeliveryClaims;
  if (isPostgresStore(location)) {
    const onStore = await PostgresDeliveryClaims.open(location.url, leaseMs);
    cleanups.push(() => onStore.close());
    claims = onStore;
  } else {
    const redis = await openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' });
    cleanups.push(() => redis.disconnect());
    claims = new RedisDeliveryClaims(redis, location.keyPrefix ?? '', leaseMs);
  }
  const job = startQuizCloseJob({
    store,
    claims,
    poster: { edit: async (channelId, messageId) => void edits.push({ member: name, channelId, messageId }) },
    lookup: { getEntry: lookup },
    rendering: quizRendering('https://wotd.site'),
    logger: captureLogger().logger,
    now: () => LATER,
    everyMs: 3_600_000,
  });
  return { store, job };
}

async function registerQuizzes(store: LearningStore, channels: string[]): Promise<void> {
  for (const channelId of channels) {
    await store.registerQuiz({ channelId, day: DAY, guildId: 'g1', messageId: `m-${channelId}`, entryDate: DAY, correct: 1, closesAt: CLOSES, language: null });
  }
}

for (const backend of clusterBackends) {
  backend.describe(`the quiz close job in a cluster, on ${backend.name}`, () => {
    let location: StoreLocation;
    beforeEach(async () => {
      location = await backend.fresh();
    });

    it('closes each quiz once, with one edit of its post, however many members pass at once', async () => {
      const edits: Edit[] = [];
      const members = await Promise.all(['a', 'b', 'c'].map((name) => member(name, location, edits, 30_000)));
      const channels = Array.from({ length: 12 }, (_, i) => `c${i}`);
      const [first] = members;
      if (!first) throw new Error('no member');
      await registerQuizzes(first.store, channels);
      const closed = await Promise.all(members.map(({ job }) => job.pass()));
      // A member that found a quiz claimed skips it this pass; the quizzes left go at the next passes.
      for (let pass = 0; pass < 5 && closed.reduce((a, b) => a + b, 0) < channels.length; pass += 1) {
        closed.push(...(await Promise.all(members.map(({ job }) => job.pass()))));
      }
      expect(closed.reduce((a, b) => a + b, 0)).toBe(channels.length);
      expect(edits.map((edit) => edit.channelId).sort()).toEqual([...channels].sort());
      expect(edits.every((edit) => edit.messageId === `m-${edit.channelId}`)).toBe(true);
      for (const channelId of channels) expect(await first.store.getQuiz(channelId, DAY)).toMatchObject({ closed: true });
      expect(await Promise.all(members.map(({ job }) => job.pass()))).toEqual([0, 0, 0]);
      expect(edits).toHaveLength(channels.length);
    });

    it('leaves a quiz whose holder died to another member, once the claim runs out', async () => {
      const edits: Edit[] = [];
      let died!: (error: Error) => void;
      const dying = new Promise<never>((_, reject) => (died = reject));
      let claimed!: () => void;
      const holding = new Promise<void>((done) => (claimed = done));
      // Member a takes the claim and stops for good before its edit (its lookup, asked under the claim, never answers).
      const a = await member('a', location, edits, 400, () => {
        claimed();
        return dying;
      });
      const b = await member('b', location, edits, 400);
      await registerQuizzes(a.store, ['c1']);
      const stuck = a.job.pass();
      await holding;
      // b passes until a's claim has run out and b closes the quiz itself.
      await expect.poll(() => b.job.pass(), { timeout: 10_000, interval: 100 }).toBe(1);
      expect(edits).toEqual([{ member: 'b', channelId: 'c1', messageId: 'm-c1' }]);
      expect(await b.store.getQuiz('c1', DAY)).toMatchObject({ closed: true });
      died(new Error('the process is gone'));
      expect(await stuck).toBe(0);
      expect(edits).toHaveLength(1);
    });
  });
}

it('hands the cluster’s claims, those the daily posts run under, to what wraps the poster (the quiz close job)', async () => {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const daily = await openDailyPosts({ store: temp.url, limit: 5, concurrency: 1, logger: captureLogger().logger });
  cleanups.push(() => daily.close());
  const seen: Array<DeliveryClaims | undefined> = [];
  daily.wrapPoster((inner, { claims }) => {
    seen.push(claims);
    return inner;
  });
  const claims: DeliveryClaims = { claim: async () => null };
  const poster = { post: () => Promise.reject(new Error('unused')), findEarlierPost: () => Promise.reject(new Error('unused')) };
  daily.start({ poster, lookup: { getEntry: found }, render: () => ({}), claims });
  expect(seen).toEqual([claims]);
});
