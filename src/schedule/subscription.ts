import { z } from 'zod';
import { pinFailuresSchema, pinOwedSchema } from './pin-failure.ts';
import type { IsoDate } from '../wotd/dates.ts';
import { isoDateSchema } from '../wotd/entry.ts';
import { dateStyleSchema, postPartsSchema } from './post-look.ts';
import { pauseSchema, weekdaysSchema } from './post-rules.ts';
import { failureReasonSchema, legacyReason } from './failure-reason.ts';
import { statusNoticeSchema } from './status-notice.ts';

/**
 * A channel's subscription to the daily post, and the record of each day's delivery to it.
 * Both are stored as JSON and validated on the way back in, so a damaged row is reported, never guessed at.
 */

/** Consecutive days a post may be refused (403) before the subscription is switched off. */
export const FAILED_DAYS_BEFORE_DISABLE = 3;

const failingStatus = {
  state: z.literal('failing'),
  /** Service days in a row on which the post was refused. */
  failedDays: z.number().int().positive(),
  lastFailedDay: isoDateSchema,
};
const disabledStatus = {
  state: z.literal('disabled'),
  at: z.string(),
  /** The channel no longer exists: kept for the record, but it no longer counts toward the server's limit. */
  channelGone: z.boolean().optional(),
  /** Switched off after the post was refused on this many days in a row. */
  failedDays: z.number().int().positive().max(10_000).optional(),
};

const currentStatusSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('active') }),
  z.object({ ...failingStatus, reason: failureReasonSchema }),
  z.object({ ...disabledStatus, reason: failureReasonSchema }),
]);

export type SubscriptionStatus = z.output<typeof currentStatusSchema>;

/** A status an earlier version stored, its reason an English sentence: read as the reason it stands for. */
const sentenceStatusSchema = z
  .discriminatedUnion('state', [z.object({ ...failingStatus, reason: z.string() }), z.object({ ...disabledStatus, reason: z.string() })])
  .transform((status): SubscriptionStatus => {
    const { reason, failedDays } = legacyReason(status.reason);
    if (status.state === 'failing') return { ...status, reason };
    return { ...status, reason, ...(failedDays !== undefined && status.failedDays === undefined ? { failedDays } : {}) };
  });

const statusSchema = z.union([currentStatusSchema, sentenceStatusSchema]);

/** full: the same embed as /wotd; compact: the word, its IPA and a one-line definition. */
export const POST_STYLES = ['full', 'compact'] as const;
export type PostStyle = (typeof POST_STYLES)[number];

/** A forum's tag as a subscription keeps it: its id for Discord, its name for people. */
export const forumTagSchema = z.object({ id: z.string().regex(/^\d{1,20}$/), name: z.string().min(1).max(20) });
export type ForumTag = z.output<typeof forumTagSchema>;

export const subscriptionSchema = z.object({
  guildId: z.string().min(1),
  channelId: z.string().min(1),
  channelName: z.string(),
  /** Local post time, HH:MM. */
  time: z.string().regex(/^\d{2}:\d{2}$/),
  timeZone: z.string().min(1),
  roleId: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  /** When it was last created, changed or re-enabled: failures recorded before this no longer hold it back. */
  enabledAt: z.string(),
  status: statusSchema,
  /**
   * Fields added later are optional, so records written before them still load; read them through the helpers
   * below, which supply the default.
   */
  style: z.enum(POST_STYLES).optional(),
  /** Open a thread on each post for discussion (text and announcement channels). */
  openThread: z.boolean().optional(),
  /** Publish (crosspost) each post to the servers following the channel (announcement channels). */
  publish: z.boolean().optional(),
  /** A DM subscription: when its owner was told why it was switched off (they are told once, at their next command). */
  disabledNoticeAt: z.string().optional(),
  /**
   * The language of the channel's posts and public replies, a Discord locale (`de`, `es-419`); absent: the server's
   * preferred locale at the time of posting, else English. A DM subscription keeps its member's.
   */
  language: z.string().min(2).max(16).optional(),
  /** The days of the week it posts on (ISO, 1 Monday … 7 Sunday); absent: every day. See post-rules.ts. */
  days: weekdaysSchema.optional(),
  /** Paused from `at` until resumed (`endedAt`) or until the local day `until`; kept after it ends. */
  pause: pauseSchema.optional(),
  /** The local day whose post is skipped, once. */
  skipDay: isoDateSchema.optional(),
  /** The member who last created or changed it (absent in records written before: createdBy). Told when it stops. */
  configuredBy: z.string().optional(),
  /**
   * A quiz with each post (issue 36, src/learning/): four candidate meanings as buttons, revealed when the quiz
   * closes, at `quizCloses` (HH:MM local; absent: the end of the channel's local day).
   */
  quiz: z.boolean().optional(),
  quizCloses: z.string().regex(/^\d{2}:\d{2}$/).optional(),
  /** A DM subscription: each DM also says how many of the member's saved words are due for review (absent: no). */
  review: z.boolean().optional(),
  /** Where a notice goes when the DM to configuredBy cannot be delivered (a channel of the same server). */
  noticeChannelId: z.string().min(1).max(32).optional(),
  /** The embed's colour (0xRRGGBB); absent: the bot's accent. */
  colour: z.number().int().min(0).max(0xffffff).optional(),
  /** A line above the embed, with {word}, {date} and {role} (post-shape.ts); absent: the role mention alone. */
  intro: z.string().max(200).optional(),
  /** The client language of configuredBy when they last configured it: their notices are written in it. */
  configuredLocale: z.string().min(2).max(16).optional(),
  /** The parts the embed shows besides the word (post-look.ts); absent: all of them. */
  parts: postPartsSchema.optional(),
  /** How the post writes its date (post-look.ts); absent: today's look (the footer's short date, {date} as ISO). */
  dateStyle: dateStyleSchema.optional(),
  /** Posts go out through the bot's own webhook in the channel under this name (webhook-identity.ts); absent: as the bot. */
  webhookName: z.string().min(1).max(80).optional(),
  /** The https avatar URL handed to Discord with each webhook post (the bot never fetches it). */
  webhookAvatar: z.string().min(1).max(512).optional(),
  /** A change of state the admin is still to be told about (admin-notices.ts). */
  noticeOwed: statusNoticeSchema.optional(),
  /** A forum or media channel: each day's post is a new post (thread) of its own, titled with the word and date. */
  forum: z.boolean().optional(),
  /** The forum tag each post gets (one of the forum's available tags when subscribed: its id, and its name to show). */
  forumTag: forumTagSchema.optional(),
  /** Pin each post, and unpin the bot's previous daily post (not in forums). */
  pin: z.boolean().optional(),
});

export type Subscription = z.output<typeof subscriptionSchema>;

export const deliverySchema = z.object({
  channelId: z.string().min(1),
  /** The service day whose entry this post carries. */
  day: isoDateSchema,
  /**
   * sending: about to post or posting (a crash leaves it here, and the retry reuses the nonce);
   * retrying: a transient failure, tried again at nextAttemptAt; sent: done; failed: refused or gone for this day.
   */
  state: z.enum(['sending', 'retrying', 'sent', 'failed']),
  nonce: z.string().min(1).max(25),
  attempts: z.number().int().nonnegative(),
  messageId: z.string().optional(),
  error: z.string().optional(),
  nextAttemptAt: z.string().optional(),
  /** When the latest attempt began: a retry looks in the channel from here for a post that attempt made. */
  attemptStartedAt: z.string().optional(),
  /** Why the latest attempt failed (`error`: the English sentence earlier versions stored instead). */
  failure: failureReasonSchema.optional(),
  /** A `failed` day whose post Discord refused as a request (400): its error code and message, as Discord gave them. */
  refused: z.object({ status: z.number().int(), code: z.number().int(), message: z.string() }).optional(),
  /**
   * A `sent` day whose post could not be pinned (or yesterday's unpinned): why, for the status. The post stands.
   * (`pinError`, an English sentence of an unreleased version, is no longer read.)
   */
  pinFailures: pinFailuresSchema,
  /**
   * A `sent` day whose pin is still to be made (with the previous post's id to unpin): the pin follows the post once
   * it is recorded, and the channel stays due until it is done, so a restart makes it (see pin-follow-ups.ts).
   */
  pinOwed: pinOwedSchema,
  updatedAt: z.string(),
});

export type DeliveryRecord = z.output<typeof deliverySchema>;

/**
 * A delivery record that is stored but cannot be read (not JSON, the wrong shape, an unknown state). Whether that
 * day was posted is unknown, as after a crash between the post and its record: the bot looks in the channel
 * before posting (see delivery.ts).
 */
export interface DamagedDelivery {
  channelId: string;
  day: IsoDate;
  state: 'damaged';
  /** What was wrong with it, for the log. */
  issue: string;
}

/** What reading a channel's delivery record for a day finds, besides nothing. */
export type DeliveryReading = DeliveryRecord | DamagedDelivery;

/**
 * A member's subscription of their own DMs is stored like a channel's, under ids that no server or channel can have
 * (snowflakes are digits): channel `dm:<user id>` in the "server" `user:<user id>`. So the scheduler, the delivery
 * records and the nonces treat it as one more channel, and the per-server lock and limit become per-user ones.
 */
export function dmTarget(userId: string): { guildId: string; channelId: string } {
  return { guildId: `user:${userId}`, channelId: `dm:${userId}` };
}

/** The user whose DMs a subscription posts to, or null for a channel's. */
export function dmUserOf(channelId: string): string | null {
  return channelId.startsWith('dm:') ? channelId.slice(3) : null;
}

/**
 * Whether a member's DM subscription was switched off and they have not been told yet (they are told, once, after
 * their next command).
 */
export function owesDmNotice(subscription: Subscription | null): boolean {
  return (
    subscription !== null &&
    dmUserOf(subscription.channelId) !== null &&
    subscription.status.state === 'disabled' &&
    (subscription.disabledNoticeAt ?? '') < subscription.status.at
  );
}

export function postStyleOf(subscription: Pick<Subscription, 'style'>): PostStyle {
  return subscription.style ?? 'full';
}

/** Whether a subscription takes one of its server's places: all do, except those whose channel is gone. */
export function countsTowardLimit(subscription: Subscription): boolean {
  return !(subscription.status.state === 'disabled' && subscription.status.channelGone === true);
}
