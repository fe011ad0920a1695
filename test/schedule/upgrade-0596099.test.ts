import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { captureLogger, FixedLookup, RecordingPoster, tempStore } from './helpers.ts';

/**
 * fixtures/store-0596099.sqlite was written by the code of commit 0596099 (before days, pause, skip and
 * configuredBy): two channel subscriptions (one compact with a role and a thread) and a DM one, and one delivery
 * record. Read by today's code, each must behave as it did then: every day, unpaused, the same settings.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openCopy() {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  copyFileSync(join(import.meta.dirname, 'fixtures', 'store-0596099.sqlite'), join(temp.dir, 'store.sqlite'));
  const store = await SubscriptionStore.open(temp.url);
  cleanups.push(() => store.close());
  return store;
}

describe('a store written by 0596099', () => {
  it('reads every subscription as before, and posts each every day', async () => {
    const store = await openCopy();
    const all = await store.listAll();
    expect(all.map((sub) => [sub.channelId, sub.days, sub.pause, sub.skipDay]).sort()).toEqual([
      ['200000000000000001', undefined, undefined, undefined],
      ['200000000000000002', undefined, undefined, undefined],
      ['dm:400000000000000003', undefined, undefined, undefined],
    ]);
    const poster = new RecordingPoster();
    const scheduler = new DailyScheduler({
      store,
      lookup: new FixedLookup(),
      poster,
      render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }),
      logger: captureLogger().logger,
      concurrency: 2,
    });
    // The 10th's post to #news is recorded as sent: a tick that evening posts nothing there.
    await scheduler.tick(new Date('2026-06-10T23:00:00Z'));
    expect(poster.messages.filter((message) => message.channelId === '200000000000000002')).toEqual([]);
    poster.messages.length = 0;
    // Saturday 13th and Sunday 14th: every day, as before.
    for (const day of ['2026-06-13', '2026-06-14']) {
      await scheduler.tick(new Date(`${day}T12:00:00Z`));
      await scheduler.tick(new Date(`${day}T21:00:00Z`));
    }
    const posted = poster.messages.map((message) => `${message.channelId} ${message.embeds[0]?.title ?? ''}`).sort();
    expect(posted).toEqual([
      '200000000000000001 word-2026-06-13',
      '200000000000000001 word-2026-06-14',
      '200000000000000002 word-2026-06-13',
      '200000000000000002 word-2026-06-14',
      // Asia/Tokyo's 07:00 is the day before's 22:00 UTC, so its 13th and 14th carry the 12th's and 13th's words.
      'dm:400000000000000003 word-2026-06-12',
      'dm:400000000000000003 word-2026-06-13',
    ].sort());
    expect(poster.messages.find((message) => message.channelId === '200000000000000001')).toMatchObject({ mentionRoleId: '300000000000000001', thread: {} });
  });

  it('keeps an old subscription\'s settings when only its time is changed', async () => {
    const store = await openCopy();
    const service = createSubscriptionService({ store, limit: 5, now: () => new Date('2026-06-15T07:00:00Z') });
    const result = await service.subscribe({ guildId: '100000000000000001', channelId: '200000000000000001', channelName: 'daily', userId: '400000000000000009', time: '07:30' });
    expect(result.kind).toBe('updated');
    expect(await store.get('200000000000000001')).toMatchObject({
      time: '07:30',
      timeZone: 'Europe/Paris',
      roleId: '300000000000000001',
      style: 'compact',
      openThread: true,
      createdBy: '400000000000000001',
      configuredBy: '400000000000000009',
    });
  });
});
