import type { APIEmbed } from 'discord.js';
import type { Logger } from '../config/logger.ts';
import { addDays, utcDateOf, type IsoDate } from '../wotd/dates.ts';
import type { Entry } from '../wotd/entry.ts';
import { isWotdError } from '../wotd/errors.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import { deliverableSlots, owesPost, postsSlotNow, type Slot } from './due.ts';
import { fanOut, retryDelayMs, type DeliveryHooks, type DeliveryOutcome, type FanOutReport, type DateText, type ThreadSuffix } from './delivery.ts';
import { lookKey, lookOf, type PostLook } from './post-look.ts';
import { DueJobs } from './due-jobs.ts';
import { describeJump, MinuteTicker, type ClockJump } from './minute-ticker.ts';
import type { DueMove } from '../store/due-index.ts';
import { ensureDueIndex } from './due-index-build.ts';
import { nextDueAt, scheduleKey, settledDueAt } from './next-due.ts';
import type { DeliveryClaims } from './delivery-claims.ts';
import type { StatusNotifier } from './admin-notices.ts';
import { DEFAULT_DELIVERY_RETENTION_DAYS, pruneDeliveries } from './delivery-retention.ts';
import type { ChannelPoster } from './poster.ts';
import { owedPinOf, type OwedPin } from './pin-follow-ups.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import { postStyleOf, type DeliveryReading, type PostStyle, type Subscription } from './subscription.ts';

export interface SchedulerOptions {
  store: SubscriptionStore;
  lookup: Pick<WotdLookup, 'getEntry'>;
  poster: ChannelPoster;
  /**
   * The daily post's embed in a subscription's style and language (a Discord locale; undefined: the default); the
   * full style is the same one /wotd shows.
   */
  render: (entry: Entry, style: PostStyle, language?: string, look?: PostLook) => APIEmbed;
  /** A post's thread name after the word, in the subscription's language; without it, the bare day. */
  threadSuffix?: ThreadSuffix;
  /** The intro's {date} in the subscription's language and date style; without it, YYYY-MM-DD. */
  dateText?: DateText;
  /**
   * The language a subscription's posts are written in: by default the one it was given; a transport may fill in
   * one it did not get (the server's preferred locale at posting time).
   */
  languageOf?: (subscription: Subscription) => string | undefined;
  logger: Logger;
  concurrency: number;
  now?: () => Date;
  hooks?: DeliveryHooks;
  progressEvery?: number;
  /** Cluster mode: several processes run the scheduler over one store; see DeliveryClaims. */
  claims?: DeliveryClaims;
  /** Tells admins when a subscription fails, is disabled or recovers (admin-notices.ts). */
  notices?: StatusNotifier;
  /** Delivery records of service days more than this many days ago are deleted, once a day (default 35). */
  retentionDays?: number;
  /** Told about ticks and posts (metrics, health); its methods must not throw. */
  observer?: SchedulerObserver;
  /** The due-time index was built when the store was opened (openDailyPosts); otherwise the first tick builds it. */
  dueIndexBuilt?: boolean;
}

export interface SchedulerObserver {
  /** A tick ended: with its report, or with the error that stopped it. `ms`: real time it took. */
  tickDone?(result: { ok: true; report: TickReport; ms: number } | { ok: false; error: unknown; ms: number }): void;
  /** A fan-out of `total` posts (at least one) is starting. */
  fanOutStarted?(total: number): void;
  /** One post of the running fan-out is finished. */
  postDone?(outcome: DeliveryOutcome): void;
  /** A delivery record was found damaged (its day is then confirmed against the channel). */
  damagedRecord?(): void;
  /** A post was made, but pinning it (or unpinning the one before) failed. */
  pinFailed?(): void;
}

export interface TickReport extends FanOutReport {
  /** Subscriptions whose post was due but whose entry could not be fetched yet. */
  waitingForEntry: number;
}

/** A service day's entry, and its embed in each style rendered so far this tick. */
interface DayEmbeds {
  entry: Entry;
  /** By style, and language when it has one. */
  byStyle: Map<string, APIEmbed>;
}

interface EntryWait {
  attempts: number;
  retryAt: number;
  reason: string;
}

/**
 * Each minute: find the subscriptions whose post is due, fetch each service day's entry once, and deliver.
 * Nothing here reads the wall clock except through `now`, so tests drive it by calling `tick(instant)`.
 */
export class DailyScheduler {
  private readonly now: () => Date;
  private readonly entries = new Map<IsoDate, Entry>();
  private readonly waits = new Map<IsoDate, EntryWait>();
  private running: Promise<TickReport> | null = null;
  private task: MinuteTicker | null = null;
  private stopping = false;
  private failing = false;
  /** The UTC day of the last pruning of old delivery records. */
  private prunedOn: IsoDate | null = null;
  /** The due-time index is known to be built (see due-index-build.ts). */
  private indexReady: boolean;
  /** Why the index must be placed anew before the next tick reads it (the wall clock went back), if it must. */
  private rebuildIndex: string | undefined;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => new Date());
    this.indexReady = options.dueIndexBuilt === true;
  }

  /** Ticks at the start of every minute, and once right away to catch up on posts missed while stopped. */
  start(): void {
    if (this.task) return;
    this.task = new MinuteTicker({ name: 'wotd-daily-posts', run: () => this.tickSafely(), onJump: (jump) => this.clockJumped(jump) });
    this.task.start();
    void this.tickSafely();
  }

  /** Stops ticking and lets the posts in flight finish; posts not yet started go out at the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    const task = this.task;
    this.task = null;
    if (task) await task.stop();
    await this.running?.catch(() => undefined);
  }

  /** One pass. Calls that arrive while one is running wait for it rather than starting a second. */
  tick(at?: Date): Promise<TickReport> {
    if (this.running) return this.running;
    if (this.stopping) return Promise.resolve({ total: 0, sent: 0, failed: 0, retrying: 0, skipped: 0, waitingForEntry: 0 });
    // A tick at a given instant (tests) stays at that instant; a live tick follows the clock while it delivers.
    const clock = at ? () => at : this.now;
    const run = this.observed(this.runTick(clock(), clock)).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  private observed(tick: Promise<TickReport>): Promise<TickReport> {
    const observer = this.options.observer;
    if (!observer?.tickDone) return tick;
    const started = performance.now();
    return tick.then(
      (report) => {
        observer.tickDone?.({ ok: true, report, ms: performance.now() - started });
        return report;
      },
      (error: unknown) => {
        observer.tickDone?.({ ok: false, error, ms: performance.now() - started });
        throw error;
      },
    );
  }

  /** One line per jump; the next tick posts what the due-time rules owe at the new time, once. */
  private clockJumped(jump: ClockJump): void {
    if (jump.jumpedMs < 0) this.rebuildIndex = `the clock went back (${describeJump(jump.jumpedMs)}): instants placed later may be late now`;
    this.options.logger.warn(
      { jumpedMs: jump.jumpedMs, from: jump.from.toISOString(), to: jump.to.toISOString() },
      `the wall clock jumped ${describeJump(jump.jumpedMs)}; posting what is owed at the new time, once`,
    );
  }

  /** A store outage fails every tick until it ends: it is logged when it starts and when it ends, not each minute. */
  private async tickSafely(): Promise<void> {
    try {
      await this.tick();
      if (this.failing) {
        this.failing = false;
        this.options.logger.info('daily scheduler ticks work again; posts resume');
      }
    } catch (error) {
      if (this.failing) return;
      this.failing = true;
      this.options.logger.error({ err: error }, 'daily scheduler tick failed; posts pause, and each minute tries again');
    }
  }

  private async runTick(now: Date, clock: () => Date): Promise<TickReport> {
    const { store } = this.options;
    if (!this.indexReady || this.rebuildIndex !== undefined) {
      const why = this.rebuildIndex;
      await ensureDueIndex(store, this.options.logger, why);
      // A rebuild that failed is tried again at the next tick; a jump during this one asks for another.
      if (this.rebuildIndex === why) this.rebuildIndex = undefined;
      this.indexReady = true;
    }
    const { jobs, waitingForEntry, pins } = await this.owedJobs(now);
    this.forgetOldDays(now);

    const { observer } = this.options;
    if (jobs.length > 0) observer?.fanOutStarted?.(jobs.length);
    const hooks: DeliveryHooks | undefined = observer?.postDone || observer?.damagedRecord || observer?.pinFailed
      ? {
          ...this.options.hooks,
          ...(observer.postDone ? { afterJob: (outcome: DeliveryOutcome) => observer.postDone?.(outcome) } : {}),
          ...(observer.damagedRecord ? { damagedRecord: () => observer.damagedRecord?.() } : {}),
          ...(observer.pinFailed ? { pinFailed: () => observer.pinFailed?.() } : {}),
        }
      : this.options.hooks;
    const report = await fanOut(jobs, {
      store,
      poster: this.options.poster,
      concurrency: this.options.concurrency,
      logger: this.options.logger,
      now: clock,
      hooks,
      progressEvery: this.options.progressEvery,
      stopping: () => this.stopping,
      ...(this.options.claims ? { claims: this.options.claims } : {}),
      ...(this.options.threadSuffix ? { threadSuffix: this.options.threadSuffix } : {}),
      ...(this.options.dateText ? { dateText: this.options.dateText } : {}),
      ...(this.options.languageOf ? { languageOf: this.options.languageOf } : {}),
      ...(this.options.notices ? { notices: this.options.notices } : {}),
      owedPins: pins,
    });
    await this.pruneOnceADay(now);
    return { ...report, waitingForEntry };
  }

  /**
   * The posts owed now. The due-time index is read in order up to `now` (what is due, caught up or to be retried), a
   * page at a time with its subscriptions, and each page is done with before the next: its due channels' delivery
   * records are read, and each channel that owes a post is added to a DueJobs list (its id, its index instant, and the
   * zone's slot and the style's embed it shares with others). An entry that turns out to owe nothing now is moved to
   * its next instant (compare-and-set, so a change made meanwhile wins); one whose subscription is gone is dropped.
   * Delivery reads the subscription again before posting, and moves the entry on with the record that ends it.
   */
  private async owedJobs(now: Date): Promise<{ jobs: DueJobs; waitingForEntry: number; pins: OwedPin[] }> {
    const { store } = this.options;
    // Many subscriptions share a zone and a time; work each pair's slots out once per tick.
    const slots = new Map<string, Slot[]>();
    const embeds = new Map<IsoDate, DayEmbeds | null>();
    const jobs = new DueJobs();
    const pins: OwedPin[] = [];
    let waitingForEntry = 0;
    const at = now.getTime();
    // And each schedule's next post instant (see scheduleKey), for the entries that owe nothing now.
    const nexts = new Map<string, number | null>();
    const nextOf = (subscription: Subscription) => {
      const key = scheduleKey(subscription);
      let next = nexts.get(key);
      if (next === undefined) {
        next = nextDueAt(subscription, at);
        nexts.set(key, next);
      }
      return next;
    };
    for await (const page of store.due(now)) {
      const due: Array<{ subscription: Subscription; slots: Slot[]; dueAt: number }> = [];
      const moves: DueMove[] = [];
      const reindex: string[] = [];
      for (const { channelId, dueAt, subscription } of page) {
        if (!subscription) {
          moves.push({ channelId, from: dueAt, to: null });
          continue;
        }
        if (subscription.status.state === 'disabled') {
          reindex.push(channelId);
          continue;
        }
        const key = `${subscription.timeZone}|${subscription.time}`;
        let deliverable = slots.get(key);
        if (!deliverable) {
          deliverable = deliverableSlots(subscription, now);
          slots.set(key, deliverable);
        }
        // The zone's slots, less those the subscription's own days, pause or skip take away (post-rules.ts).
        const posted = deliverable.filter((slot) => postsSlotNow(subscription, slot, now));
        if (posted.length > 0) due.push({ subscription, slots: posted, dueAt });
        else moves.push({ channelId, from: dueAt, to: nextOf(subscription) });
      }
      const records = await this.recordsOf(due);
      const recordOf = (channelId: string, slot: Slot) => records.get(slot.serviceDay)?.get(channelId) ?? null;
      for (const { subscription, slots: deliverable, dueAt } of due) {
        const { channelId } = subscription;
        // At most one post per channel per tick, the earliest owed: after a gap pushed yesterday's post past
        // midnight, today's (if also due) goes out at the next tick, never beside it in one fan-out.
        const slot = deliverable.find((candidate) => owesPost(subscription, recordOf(channelId, candidate), now));
        if (!slot) {
          // A post recorded whose pin is still owed: the entry stays due until the pin is made (pin-follow-ups.ts).
          const pin = owedPinOf(subscription, deliverable, (candidate) => recordOf(channelId, candidate), dueAt, now, this.options.claims !== undefined);
          if (pin !== null) {
            if (pin !== 'later') pins.push(pin);
            continue;
          }
          const settled = settledDueAt(subscription, (day) => records.get(day)?.get(channelId) ?? null, at, nextOf(subscription));
          if (settled !== dueAt) moves.push({ channelId, from: dueAt, to: settled });
          continue;
        }
        let day = embeds.get(slot.serviceDay);
        if (day === undefined) {
          const entry = await this.entryFor(slot.serviceDay, now);
          day = entry ? { entry, byStyle: new Map() } : null;
          embeds.set(slot.serviceDay, day);
        }
        if (!day) {
          waitingForEntry += 1;
          continue;
        }
        // Each style's embed is rendered once per day, language and look, however many channels use it.
        const style = postStyleOf(subscription);
        const language = this.options.languageOf ? this.options.languageOf(subscription) : subscription.language;
        const look = lookOf(subscription);
        const key = `${style} ${language ?? ''} ${lookKey(look)}`;
        let embed = day.byStyle.get(key);
        if (!embed) {
          embed = this.options.render(day.entry, style, language, look);
          day.byStyle.set(key, embed);
        }
        jobs.add(channelId, slot, embed, recordOf(channelId, slot), dueAt);
      }
      await store.moveDue(moves);
      for (const channelId of reindex) await store.reindex(channelId);
    }
    return { jobs, waitingForEntry, pins };
  }

  /** The delivery records of a page's due channels, by service day and channel: one read per day. */
  private async recordsOf(due: ReadonlyArray<{ subscription: Subscription; slots: Slot[]; dueAt: number }>): Promise<Map<IsoDate, Map<string, DeliveryReading | null>>> {
    const byDay = new Map<IsoDate, string[]>();
    for (const { subscription, slots } of due) {
      for (const slot of slots) {
        const ids = byDay.get(slot.serviceDay) ?? [];
        ids.push(subscription.channelId);
        byDay.set(slot.serviceDay, ids);
      }
    }
    const records = new Map<IsoDate, Map<string, DeliveryReading | null>>();
    for (const [day, ids] of byDay) {
      const read = await this.options.store.getDeliveries(ids, day);
      records.set(day, new Map(ids.map((id, i) => [id, read[i] ?? null])));
    }
    return records;
  }

  /** What the scheduler holds in memory: the entries and retry waits of the last few service days. */
  footprint(): { entries: number; waits: number } {
    return { entries: this.entries.size, waits: this.waits.size };
  }

  /**
   * After the first fan-out of each UTC day, deletes the delivery records past the retention (see
   * delivery-retention.ts). A failure is logged and tried again the next day, which catches up the missed one.
   */
  private async pruneOnceADay(now: Date): Promise<void> {
    const today = utcDateOf(now);
    if (this.prunedOn === today || this.stopping) return;
    this.prunedOn = today;
    try {
      const report = await pruneDeliveries(this.options.store, today, this.options.retentionDays ?? DEFAULT_DELIVERY_RETENTION_DAYS);
      if (report && (report.deleted > 0 || report.scanned)) this.options.logger.info(report, 'old delivery records pruned');
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not prune old delivery records; trying again tomorrow');
    }
  }

  /** The service day's entry, fetched once; while it is not available, retried with growing pauses. */
  private async entryFor(day: IsoDate, now: Date): Promise<Entry | null> {
    const known = this.entries.get(day);
    if (known) return known;
    const wait = this.waits.get(day);
    if (wait && now.getTime() < wait.retryAt) return null;
    try {
      const { value } = await this.options.lookup.getEntry(day, { priority: 'scheduled' });
      this.entries.set(day, value);
      this.waits.delete(day);
      return value;
    } catch (error) {
      const attempts = (wait?.attempts ?? 0) + 1;
      const backoff = retryDelayMs(attempts);
      const suggested = isWotdError(error) && error.retryAt ? error.retryAt.getTime() : 0;
      const retryAt = Math.max(now.getTime() + backoff, suggested);
      const reason = error instanceof Error ? error.message : String(error);
      this.waits.set(day, { attempts, retryAt, reason });
      this.options.logger.warn(
        { day, attempts, reason, retryAt: new Date(retryAt).toISOString() },
        isWotdError(error, 'not_found') ? "the day's entry is not published yet; retrying" : "could not fetch the day's entry; retrying",
      );
      return null;
    }
  }

  private forgetOldDays(now: Date): void {
    const oldest = addDays(utcDateOf(now), -2);
    for (const day of [...this.entries.keys(), ...this.waits.keys()]) {
      if (day < oldest) {
        this.entries.delete(day);
        this.waits.delete(day);
      }
    }
  }
}
