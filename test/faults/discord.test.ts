import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { SOMETHING_WENT_WRONG } from '../../src/discord/router.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import type { IsoDate } from '../../src/wotd/dates.ts';
import { captureLogger, makeSubscription } from '../schedule/helpers.ts';
import type { FaultHandle, FaultSpec, InteractionHandle } from '../support/discord/index.ts';
import { startLoopbackProxy, type LoopbackProxy } from '../support/wotd-world.ts';
import { faultRow, type CellFigures } from './tally.ts';
import { acknowledgedInTime, entryOn, finalAnswer, invoke, shown, SITE_URL, startFaultWorld, type FaultWorld } from './world.ts';

/**
 * Discord faults × (command reply, deferred edit, daily post), against the REAL discord.js client (startDiscordBot)
 * and the local Discord-compatible server.
 *
 * command reply: /wotd for a cached day, answered at once (callback type 4); the fault hits that callback.
 * deferred edit: /wotd for a day not cached behind a slow service, so the bot defers (type 5) and edits
 *   @original; the fault hits the edit. The gateway rows drop the connection after the deferral instead.
 * daily post: the real scheduler posting through the bot's REST client; the fault hits the post.
 *
 * Every interaction must get its first callback within 3 s (from the server's record) and end in the answer or a
 * clear private message; every daily post must go out once the fault clears, exactly once, and no subscription
 * may be lost. A fault's three operations run side by side: REST faults are aimed at one interaction's callback
 * or edit, or one channel's posts; a gateway fault happens once, after the deferral and before the reply's
 * command is sent (drop: it is sent while the connection is down; invalid session: once the new session is up).
 */

const CACHED_DAY = '2025-01-14';
/** Slower than the bot waits before deferring. */
const SLOW_SERVICE_MS = 400;
/** discord.js retries a 5xx three times; a fault on four attempts outlasts them. */
const OUTLASTS_RETRIES = 4;

let world: FaultWorld;
let proxy: LoopbackProxy;
let adapter: WotdAdapter;
/** Days not yet asked for, one per deferred-edit cell. */
const freshDays: IsoDate[] = ['2025-01-02', '2025-01-03', '2025-01-04', '2025-01-05', '2025-01-06', '2025-01-07', '2025-01-08', '2025-01-09'];

beforeAll(async () => {
  world = await startFaultWorld();
  proxy = await startLoopbackProxy(world.service.url);
  adapter = await createWotdAdapter({
    baseUrl: proxy.url,
    store: await openStore(`sqlite://${join(world.dir, 'cache.sqlite')}`, 'wotd-cache'),
    ownsStore: true,
    variant: 'A',
    // Each day fetched alone, so every deferred-edit cell meets a day nobody asked for yet.
    readAhead: 0,
    now: world.now,
  });
  world.services.lookup = adapter;
  await adapter.getEntry(CACHED_DAY);
  proxy.delayMs = SLOW_SERVICE_MS;
});

afterAll(async () => {
  await adapter?.close();
  await proxy?.close();
  await world?.close();
});

interface DiscordRow {
  label: string;
  /** The fault on a route (the callback, the edit, the channel's posts), for the REST rows. */
  rest?: Omit<FaultSpec, 'route' | 'channelId'>;
  gateway?: 'drop' | 'invalidate';
  /** What the member ends up seeing: the answer, or the router's private apology. */
  member: 'answer' | 'apology';
  /** What the daily post does: go out in the same pass, later the same day, or the next day. */
  post: 'same pass' | 'same day' | 'next day';
}

const ROWS: DiscordRow[] = [
  { label: '403', rest: { status: 403, code: 50001, times: 1 }, member: 'apology', post: 'next day' },
  { label: '404', rest: { status: 404, code: 10003, times: 1 }, member: 'apology', post: 'same day' },
  { label: 'global 429', rest: { status: 429, rateLimit: { global: true, retryAfterMs: 1_000 }, times: 1 }, member: 'answer', post: 'same pass' },
  { label: 'route 429', rest: { status: 429, rateLimit: { global: false, retryAfterMs: 1_000 }, times: 1 }, member: 'answer', post: 'same pass' },
  { label: '500 (outlasting retries)', rest: { status: 500, times: OUTLASTS_RETRIES }, member: 'apology', post: 'same day' },
  { label: 'gateway drop + resume', gateway: 'drop', member: 'answer', post: 'same pass' },
  { label: 'invalid session', gateway: 'invalidate', member: 'answer', post: 'same pass' },
];

function ackNote(handle: InteractionHandle): string {
  return `ack ${acknowledgedInTime(handle)} ms`;
}

/** The member sees the entry, or the router's private apology: never nothing, never "This interaction failed". */
async function expectOutcome(handle: InteractionHandle, row: DiscordRow, day: IsoDate): Promise<string> {
  const answer = await finalAnswer(world, handle);
  const ack = ackNote(handle);
  if (row.member === 'answer') {
    expect(shown(answer)).toBe(entryOn(day).word);
    return `answered (${ack})`;
  }
  expect(answer.ephemeral).toBe(true);
  expect(answer.content).toBe(SOMETHING_WENT_WRONG);
  return `private apology (${ack})`;
}

/**
 * Starts a gateway fault; the promise it gives settles once the bot's session is back. 'invalidate' ends the
 * session for good (op 9, not resumable): a new IDENTIFY and READY follow, after discord.js's 5 s spacing of
 * IDENTIFYs.
 */
function gatewayFault(kind: 'drop' | 'invalidate'): Promise<unknown> {
  const count = (what: string) => world.discord.gatewayEvents.filter((event) => event.kind === what).length;
  if (kind === 'invalidate') {
    const readies = count('ready');
    world.discord.invalidateSession(false);
    return world.discord.waitForReady(readies + 1, 15_000);
  }
  const resumes = count('resumed');
  world.discord.dropGateway();
  return world.discord.waitForResume(resumes + 1, 15_000);
}

/** An injected fault that never fired would let its cell pass for nothing. */
function expectFired(row: DiscordRow, fault: FaultHandle | null): void {
  if (fault) expect(fault.hits, 'requests the fault answered').toBe(row.rest?.times ?? 1);
}

/** A one-shot signal between a row's operations. */
function signal<T>(): { promise: Promise<T>; fire(value: T): void } {
  let fire: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function dailyPostCell(row: DiscordRow, figures: CellFigures, gatewayDown: Promise<{ back: Promise<unknown> }>): Promise<string> {
  const dir = await mkdtemp(join(world.dir, 'posts-'));
  const store = await SubscriptionStore.open(`sqlite://${join(dir, 'subscriptions.sqlite')}`);
  try {
    const channelId = world.discord.addChannel(world.guild.id, { name: `daily-${row.label.replace(/\W+/g, '-')}` }).id;
    await store.upsert(world.guild.id, channelId, 50, () =>
      makeSubscription({ guildId: world.guild.id, channelId, enabledAt: '2025-01-01T00:00:00.000Z' }),
    );
    const scheduler = new DailyScheduler({
      store,
      lookup: adapter,
      poster: createChannelPoster(world.bot.client.rest),
      render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
      logger: captureLogger().logger,
      concurrency: 2,
    });
    const first = new Date('2025-01-18T09:00:00Z');
    const fault = row.rest ? world.discord.injectFault({ ...row.rest, route: 'POST /channels/:id/messages', channelId }) : null;
    // A gateway fault: the pass runs while the session is away.
    const { back } = await gatewayDown;
    const during = await scheduler.tick(first);
    await back;
    const days: IsoDate[] = [];
    if (row.post === 'same pass') {
      expect(during).toMatchObject({ sent: 1 });
      days.push('2025-01-18');
    } else {
      expect(during).toMatchObject({ sent: 0 });
      expect((await store.get(channelId))?.status.state, 'the subscription after the fault').not.toBe('disabled');
      const later = await scheduler.tick(new Date(first.getTime() + 5 * 60_000));
      if (row.post === 'same day') {
        expect(later).toMatchObject({ sent: 1 });
        days.push('2025-01-18');
      } else {
        expect(later).toMatchObject({ total: 0 });
        expect(await scheduler.tick(new Date('2025-01-19T09:00:00Z'))).toMatchObject({ sent: 1 });
        days.push('2025-01-19');
      }
    }
    expectFired(row, fault);
    const posts = world.discord.messagesIn(channelId);
    figures.duplicated = Math.max(0, posts.length - days.length);
    const kept = await store.get(channelId);
    figures.lost = kept ? 0 : 1;
    expect(posts.map((post) => post.embeds[0]?.title)).toEqual(days.map((day) => entryOn(day).word));
    expect(kept?.status).toEqual({ state: 'active' });
    return `posted ${row.post === 'same pass' ? 'in the same pass' : row.post === 'same day' ? 'on the retry, same day' : 'the next day'}, once`;
  } finally {
    await store.close();
  }
}

describe('Discord faults', () => {
  for (const row of ROWS) {
    // For a gateway row: fired by the deferred edit once deferred, with the promise of the session's return.
    const down = signal<{ back: Promise<unknown> }>();
    if (!row.gateway) down.fire({ back: Promise.resolve() });

    faultRow('discord', row.label, [
      [
        'command reply',
        async () => {
          let back: Promise<unknown> = Promise.resolve();
          if (row.gateway === 'drop') ({ back } = await down.promise);
          // One sent while no session is identified never reaches the bot (on Discord too): ask once the new one is up.
          if (row.gateway === 'invalidate') await (await down.promise).back;
          const handle = invoke(world, 'wotd', { date: CACHED_DAY });
          // The bot cannot answer before this returns: the fault is in place for its callback.
          const fault = row.rest ? world.discord.injectFault({ ...row.rest, route: new RegExp(`^POST /interactions/${handle.id}/`) }) : null;
          const outcome = await expectOutcome(handle, row, CACHED_DAY);
          expectFired(row, fault);
          await back;
          expect(handle.callback?.type, 'answered at once, not deferred').toBe(4);
          return outcome;
        },
      ],
      [
        'deferred edit',
        async () => {
          const day = freshDays.shift();
          if (!day) throw new Error('out of fresh days');
          const handle = invoke(world, 'wotd', { date: day });
          const edit = new RegExp(`^PATCH /webhooks/\\d+/${escapeRegExp(encodeURIComponent(handle.token))}/messages/`);
          const fault = row.rest ? world.discord.injectFault({ ...row.rest, route: edit }) : null;
          try {
            await handle.waitForCallback(5_000);
            expect(handle.callback?.type, 'deferred').toBe(5);
          } finally {
            if (row.gateway) down.fire({ back: gatewayFault(row.gateway) });
          }
          const outcome = await expectOutcome(handle, row, day);
          expectFired(row, fault);
          await (await down.promise).back;
          return outcome;
        },
      ],
      ['daily post', (figures: CellFigures) => dailyPostCell(row, figures, down.promise)],
    ], 30_000);
  }
});
