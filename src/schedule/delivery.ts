import type { APIEmbed } from 'discord.js';
import type { DateStyle } from './post-look.ts';
import type { Logger } from '../config/logger.ts';
import type { IsoDate } from '../wotd/dates.ts';
import type { DeliveryClaim, DeliveryClaims } from './delivery-claims.ts';
import type { DueMove } from '../store/due-index.ts';
import { sendOwedNotice, withNotice, type StatusNotifier } from './admin-notices.ts';
import { owesPost, postsSlotNow, type Slot } from './due.ts';
import { dueAfterDelivery } from './next-due.ts';
import { unexpectedReason } from './failure-reason.ts';
import { isDeliveryError, type ChannelPoster, type DailyMessage, type PostResult } from './poster.ts';
import { pinPlan } from './daily-pin-plan.ts';
import { buildMessage } from './daily-message.ts';
import { PinFollowUps, type OwedPin } from './pin-follow-ups.ts';
import { dmUserOf, FAILED_DAYS_BEFORE_DISABLE, type DeliveryReading, type DeliveryRecord, type Subscription } from './subscription.ts';
import type { SubscriptionStore } from './subscription-store.ts';

export { buildMessage, threadName } from './daily-message.ts';

/**
 * Posting one day's entry to many channels, exactly once each.
 *
 * Per channel: write the record as `sending` (with the day's nonce), post with that nonce and enforce_nonce, then
 * write `sent`. A crash between the post and the second write leaves `sending`, and a timeout leaves `retrying`
 * without knowing whether Discord made the post. Before trying again after either, the bot looks in the channel for
 * its own post of the day made since that attempt began, and records it if there is one: Discord drops a repeated
 * nonce only for a few minutes, so a restart or a retry later than that would otherwise post twice. The nonce still
 * covers a retry that overlaps a post Discord is still creating. A record that cannot be read (damaged) is just as
 * unsure, and is confirmed the same way, looking from the earliest an attempt at its day could have begun.
 */

export type DeliveryOutcome = 'sent' | 'forbidden' | 'gone' | 'refused' | 'transient' | 'skipped';

export interface DeliveryJob {
  /** The subscribed channel; its subscription is read again before posting. */
  channelId: string;
  slot: Slot;
  embed: APIEmbed;
  /** What the last run left for this channel and day, if anything (`damaged`: stored but unreadable). */
  record: DeliveryReading | null;
  /**
   * The channel's due-time instant as the scheduler read it: the record that ends this attempt moves it on in the
   * same write (unless someone changed it meanwhile). Without it the index is left to the next tick.
   */
  dueAt?: number;
}

/**
 * The jobs of one fan-out, by position: an array of them, or a list that keeps them more compactly and makes each
 * as it is asked for (the scheduler's DueJobs).
 */
export interface DeliveryJobs {
  readonly length: number;
  at(index: number): DeliveryJob | undefined;
}

export interface DeliveryHooks {
  /** Called after Discord accepted the post and before it is recorded; tests throw here to simulate a crash. */
  afterSend?(channelId: string, messageId: string): void | Promise<void>;
  /** Called as each job finishes, with how it ended (metrics, progress); must not throw. */
  afterJob?(outcome: DeliveryOutcome): void;
  /** Called when a job's delivery record was found damaged, before the channel is checked (metrics); must not throw. */
  damagedRecord?(): void;
  /** Called when a post was made but its pin (or the previous post's unpin) failed (metrics); must not throw. */
  pinFailed?(): void;
}

export interface FanOutOptions {
  store: SubscriptionStore;
  poster: ChannelPoster;
  concurrency: number;
  logger: Logger;
  now: () => Date;
  hooks?: DeliveryHooks;
  /** Fan-outs at least this large log progress every `progressEvery` finished posts. */
  progressEvery?: number;
  /** Checked before each post: true stops taking new ones (shutdown); those not started are caught up later. */
  stopping?: () => boolean;
  /** Cluster mode: post a channel's day only under a claim, after checking it is still owed. */
  claims?: DeliveryClaims;
  /** What follows the word in a post's thread name, in the subscription's language ("word of the day, 2025-01-14"). */
  threadSuffix?: ThreadSuffix;
  /** A local day as a subscription's intro writes {date}, in its language and date style (default: YYYY-MM-DD). */
  dateText?: DateText;
  /** The language a subscription's posts are written in (see SchedulerOptions.languageOf). */
  languageOf?: (subscription: Subscription) => string | undefined;
  /** Tells a subscription's admin when it starts failing, is disabled or recovers (admin-notices.ts). */
  notices?: StatusNotifier;
  /** Pins of posts recorded earlier that are still owed (a restart, a full queue): made with this fan-out's. */
  owedPins?: OwedPin[];
}

export type ThreadSuffix = (day: IsoDate, language: string | undefined) => string;
export type DateText = (day: IsoDate, language: string | undefined, style: DateStyle | null) => string;

export interface FanOutReport {
  total: number;
  sent: number;
  failed: number;
  retrying: number;
  skipped: number;
}

/**
 * A post for a service day never starts before that day's 00:00 UTC less the most any zone's summer offset exceeds
 * its standard one (2 h, Antarctica/Troll), whatever the subscription's time and zone were then (see due.ts).
 */
const EARLIEST_ATTEMPT_BEFORE_DAY_MS = 3 * 60 * 60_000;

/** Where a damaged record's channel is searched from for the day's post: the earliest any attempt could have begun. */
export function earliestAttemptAt(day: IsoDate): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) - EARLIEST_ATTEMPT_BEFORE_DAY_MS);
}

const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 30 * 60_000;

/** Wait before the next attempt after `attempts` transient failures: 1, 2, 4 … up to 30 minutes. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

async function deliverOne(job: DeliveryJob, options: FanOutOptions, pins: PinFollowUps): Promise<DeliveryOutcome> {
  if (!options.claims) return deliverUnclaimed(job, options, pins);
  const claim = await options.claims.claim(job.channelId, job.slot.serviceDay);
  if (!claim) return 'skipped';
  try {
    // Another process may have posted (or given up on) this channel's day since this one read the list.
    const record = await options.store.getDelivery(job.channelId, job.slot.serviceDay);
    return await deliverUnclaimed({ ...job, record }, options, pins, { recheck: true, claim });
  } finally {
    await claim.release();
  }
}

async function deliverUnclaimed(job: DeliveryJob, options: FanOutOptions, pins: PinFollowUps, { recheck = false, claim }: { recheck?: boolean; claim?: DeliveryClaim } = {}): Promise<DeliveryOutcome> {
  const { store, poster, logger } = options;
  const { slot, channelId } = job;
  // Admin changes made since the list was read win: an unsubscribed or disabled channel is left alone.
  const subscription = await store.get(channelId);
  if (!subscription || subscription.status.state === 'disabled') return 'skipped';
  // Paused, skipped or its days changed since: that slot is no longer one it posts.
  if (!postsSlotNow(subscription, slot, options.now())) return 'skipped';
  // A record read again under a claim is judged against the subscription as it is now.
  if (recheck && !owesPost(subscription, job.record, options.now())) return 'skipped';

  const language = options.languageOf ? options.languageOf(subscription) : subscription.language;
  const message = buildMessage(subscription, job.embed, slot.serviceDay, {
    threadSuffix: options.threadSuffix?.(slot.serviceDay, language),
    localDay: slot.localDay,
    dateText: options.dateText?.(slot.localDay, language, subscription.dateStyle ?? null),
  });
  if (message.pin) message.pin = await pinPlan(store, channelId, slot.serviceDay);
  const previous = job.record;
  const startedAt = options.now().toISOString();
  const base: DeliveryRecord = {
    channelId,
    day: slot.serviceDay,
    state: 'sending',
    nonce: message.nonce,
    attempts: (previous && previous.state !== 'damaged' ? previous.attempts : 0) + 1,
    attemptStartedAt: startedAt,
    updatedAt: startedAt,
  };

  if (previous?.state === 'damaged') {
    options.hooks?.damagedRecord?.();
    logger.warn({ channelId, day: slot.serviceDay, issue: previous.issue }, "the day's delivery record is damaged; looking in the channel for the day's post before posting");
  }
  if (previous && (previous.state === 'sending' || previous.state === 'retrying' || previous.state === 'damaged')) {
    // A stored time that is not one (a damaged field) is as unknown as a damaged record.
    const stored = previous.state === 'damaged' ? null : (previous.attemptStartedAt ?? previous.updatedAt);
    const lookFrom = stored !== null && Number.isFinite(Date.parse(stored)) ? stored : earliestAttemptAt(slot.serviceDay).toISOString();
    let earlier: PostResult | null = null;
    try {
      earlier = await poster.findEarlierPost(message, new Date(lookFrom));
    } catch (error) {
      // Nothing was posted this time, so the next try must still look from the attempt that may have posted.
      const unsure = { ...base, attemptStartedAt: lookFrom };
      // A look that outlasted the claim (a slow channel, a process stopped meanwhile) writes nothing: the day is its new holder's.
      if (claimLost(claim, options, job)) return 'skipped';
      // Without Read Message History the bot cannot look; the nonce still holds within Discord's window. A look that
      // found the earlier attempt's post stripped of its embed (and removed it) settles the day instead.
      if (!isDeliveryError(error) || error.kind !== 'forbidden' || error.embedsDropped) return recordFailure(subscription, unsure, error, options, job);
      logger.warn({ channelId, day: slot.serviceDay, reason: error.reason }, 'could not look for an earlier attempt\'s post; posting with the same nonce');
    }
    if (earlier) {
      // Recorded even under a claim that may have run out: the post is there whoever holds the day now.
      await recordPosted(subscription, base, message, earlier.messageId, options, job, pins);
      logger.info({ channelId, day: slot.serviceDay, messageId: earlier.messageId }, 'an earlier attempt had posted; recorded it instead of posting again');
      return 'sent';
    }
  }

  if (claimLost(claim, options, job)) return 'skipped';
  // The entry moves with the record that ends the attempt.
  await store.putDelivery(base, job.dueAt === undefined ? undefined : null);
  if (claimLost(claim, options, job)) return 'skipped';
  let posted: PostResult;
  try {
    posted = await poster.post(message);
  } catch (error) {
    // Not recorded once the claim may have run out: the record stays `sending`, so its new holder looks first.
    if (claimLost(claim, options, job)) return 'skipped';
    return recordFailure(subscription, base, error, options, job);
  }
  const { messageId } = posted;
  await options.hooks?.afterSend?.(channelId, messageId);
  await recordPosted(subscription, base, message, messageId, options, job, pins);
  logger.debug({ channelId, day: slot.serviceDay, messageId }, 'daily post sent');
  return 'sent';
}

/** A claim whose lease may have run out (the process was held up): the channel's day is left to its new holder. */
function claimLost(claim: DeliveryClaim | undefined, options: FanOutOptions, job: DeliveryJob): boolean {
  if (!claim || claim.held()) return false;
  options.logger.warn({ channelId: job.channelId, day: job.slot.serviceDay }, "the claim on this channel's day may have run out; leaving its post to the process that holds it now");
  return true;
}

/** Where the record that ends an attempt moves the channel's due-time entry (see next-due.ts), if the job was read from it. */
function moveAfter(job: DeliveryJob, subscription: Subscription, retryAt?: string): DueMove | undefined {
  if (job.dueAt === undefined) return undefined;
  return { channelId: job.channelId, from: job.dueAt, to: dueAfterDelivery(subscription, job.slot, retryAt) };
}

/**
 * Records the post as sent; with a pin to make, as owing it, the channel's entry left due until the pin is done
 * (pin-follow-ups.ts), and hands the pin on: the post's delivery is over.
 */
async function recordPosted(subscription: Subscription, base: DeliveryRecord, message: DailyMessage, messageId: string, options: FanOutOptions, job: DeliveryJob, pins: PinFollowUps): Promise<void> {
  const pin = options.poster.pin && message.pin && !message.forumPost && dmUserOf(job.channelId) === null ? message.pin : undefined;
  const record = await recordSent(subscription, pin ? { ...base, pinOwed: pin } : base, messageId, options, job, pin !== undefined);
  if (pin) pins.offer({ subscription, record: { ...record, messageId }, slot: job.slot, dueAt: job.dueAt });
}

async function recordSent(subscription: Subscription, base: DeliveryRecord, messageId: string, options: FanOutOptions, job: DeliveryJob, keepDue = false): Promise<DeliveryRecord> {
  const { store } = options;
  const record: DeliveryRecord = { ...base, state: 'sent', messageId, updatedAt: options.now().toISOString() };
  await store.putDelivery(record, keepDue ? null : moveAfter(job, subscription));
  if (subscription.status.state === 'failing') {
    const at = options.now().toISOString();
    await store.update(subscription.channelId, (current) =>
      current.status.state === 'failing' ? withNotice(current, { ...current, status: { state: 'active' } }, at, options.notices !== undefined) : null,
    );
    await tellAdmin(subscription.channelId, options);
  }
  return record;
}

/** Sends the notice the last change of state owes, if the fan-out has a notifier (admin-notices.ts). */
async function tellAdmin(channelId: string, options: FanOutOptions): Promise<void> {
  if (options.notices) await sendOwedNotice(options.store, options.notices, channelId, options.logger);
}

async function recordFailure(
  subscription: Subscription,
  base: DeliveryRecord,
  error: unknown,
  options: FanOutOptions,
  job: DeliveryJob,
): Promise<DeliveryOutcome> {
  const { store, logger } = options;
  const now = options.now();
  const channelId = subscription.channelId;
  const day = base.day;
  if (!isDeliveryError(error) || error.kind === 'transient') {
    const reason = isDeliveryError(error) ? error.reason : unexpectedReason(error);
    const nextAttemptAt = new Date(now.getTime() + retryDelayMs(base.attempts)).toISOString();
    await store.putDelivery({ ...base, state: 'retrying', failure: reason, nextAttemptAt, updatedAt: now.toISOString() }, moveAfter(job, subscription, nextAttemptAt));
    logger.warn({ channelId, day, attempts: base.attempts, reason, nextAttemptAt }, 'daily post failed; will retry today');
    return 'transient';
  }

  if (error.kind === 'refused') {
    // Discord refuses the message as it is; the same message would be refused all day. The next day's is another.
    await store.putDelivery({
      ...base,
      state: 'failed',
      failure: error.reason,
      ...(error.refusal ? { refused: error.refusal } : {}),
      updatedAt: now.toISOString(),
    }, moveAfter(job, subscription));
    logger.warn({ channelId, day, reason: error.reason, refusal: error.refusal }, "Discord refused the daily post; not retried today, the subscription stays as it is");
    return 'refused';
  }

  await store.putDelivery({ ...base, state: 'failed', failure: error.reason, updatedAt: now.toISOString() }, moveAfter(job, subscription));
  if (error.kind === 'gone') {
    await store.update(channelId, (current) =>
      withNotice(
        current,
        { ...current, status: { state: 'disabled', reason: error.reason, at: now.toISOString(), channelGone: true } },
        now.toISOString(),
        options.notices !== undefined,
      ),
    );
    await tellAdmin(channelId, options);
    logger.warn({ channelId, day, reason: error.reason }, 'daily post target is gone; subscription disabled');
    return 'gone';
  }

  const updated = await store.update(channelId, (current) => {
    if (current.status.state === 'disabled') return null;
    const previous = current.status.state === 'failing' ? current.status : null;
    if (previous?.lastFailedDay === day) return null;
    const failedDays = (previous?.failedDays ?? 0) + 1;
    const notifying = options.notices !== undefined;
    if (failedDays >= FAILED_DAYS_BEFORE_DISABLE) {
      const status = { state: 'disabled' as const, reason: error.reason, failedDays, at: now.toISOString() };
      return withNotice(current, { ...current, status }, now.toISOString(), notifying);
    }
    return withNotice(current, { ...current, status: { state: 'failing', reason: error.reason, failedDays, lastFailedDay: day } }, now.toISOString(), notifying);
  });
  await tellAdmin(channelId, options);
  logger.warn(
    { channelId, day, reason: error.reason, status: updated?.status.state },
    updated?.status.state === 'disabled' ? 'daily post refused again; subscription disabled' : 'daily post refused; retrying tomorrow',
  );
  return 'forbidden';
}

/**
 * Delivers every job with at most `concurrency` posts in flight; Discord's rate limits are discord.js's business.
 * A post's pin is made after the post is recorded (pin-follow-ups.ts), so it holds none of the posts' places; the
 * fan-out ends once its pins are made too (at the full pace once the posts are done).
 */
export async function fanOut(jobs: DeliveryJobs, options: FanOutOptions): Promise<FanOutReport> {
  const total = jobs.length;
  // Processes that share the work start at different places in the list, so their claims seldom collide.
  const offset = options.claims && total > 0 ? Math.floor(Math.random() * total) : 0;
  const report: FanOutReport = { total, sent: 0, failed: 0, retrying: 0, skipped: 0 };
  const progressEvery = options.progressEvery ?? 500;
  const large = total >= progressEvery;
  let next = 0;
  let finished = 0;
  if (large) options.logger.info({ total, concurrency: options.concurrency }, 'daily fan-out started');
  const pins = new PinFollowUps(options);
  for (const owed of options.owedPins ?? []) pins.offer(owed);

  const worker = async (): Promise<void> => {
    for (;;) {
      if (options.stopping?.()) return;
      if (next >= total) return;
      const job = jobs.at((next + offset) % total);
      next += 1;
      if (!job) return;
      let outcome: DeliveryOutcome;
      try {
        outcome = await deliverOne(job, options, pins);
      } catch (error) {
        // The store itself failed; the record (if any) says `sending`, so the next tick retries with the same nonce.
        options.logger.error({ channelId: job.channelId, err: error }, 'daily post could not be recorded');
        outcome = 'transient';
      }
      if (outcome === 'sent') report.sent += 1;
      else if (outcome === 'transient') report.retrying += 1;
      else if (outcome === 'skipped') report.skipped += 1;
      else report.failed += 1;
      finished += 1;
      options.hooks?.afterJob?.(outcome);
      if (large && finished % progressEvery === 0 && finished < total) {
        options.logger.info(
          { sent: report.sent, failed: report.failed, retrying: report.retrying, remaining: total - finished },
          'daily fan-out progress',
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, total)) }, worker));
  // The pins come last (each waits for the pace's turns no post wants): the fan-out ends when they are made.
  await pins.settled();
  const remaining = total - finished;
  if (large || report.failed > 0 || report.retrying > 0 || remaining > 0) {
    options.logger.info({ ...report, remaining }, remaining > 0 ? 'daily fan-out stopped early; the rest go out on restart' : 'daily fan-out finished');
  }
  return report;
}
