import { createHash } from 'node:crypto';
import type { APIEmbed } from 'discord.js';
import type { IsoDate } from '../wotd/dates.ts';
import type { FailureReason } from './failure-reason.ts';
import type { PinFailure } from './pin-failure.ts';

/**
 * All the scheduler needs of Discord: post one message into one channel.
 * The discord.js implementation lives in src/discord/channel-poster.ts; tests hand the scheduler a fake.
 */

/** A button under a daily post (the quiz's answers, Save); its id says what pressing it asks. */
export interface DailyButton {
  customId: string;
  label: string;
  disabled?: boolean;
  /** Starts a row of its own below the buttons before it (Save under the quiz's four answers). */
  newRow?: boolean;
}

export interface DailyMessage {
  channelId: string;
  /** The service day the post is for. */
  day?: IsoDate;
  /** Buttons under the post (Save; the daily quiz's answers): five to a row, a new row where one asks for it. */
  buttons?: DailyButton[];
  /** The channel's name as subscribed, for the failure reasons people read ("Missing Embed Links in #words"). */
  channelName?: string;
  content?: string;
  embeds: APIEmbed[];
  /** The one role the message may ping; nothing else is allowed to. */
  mentionRoleId: string | null;
  /** The same for every attempt at one channel's post for one day, so Discord can drop duplicates. */
  nonce: string;
  /**
   * Extras done after the post is sent, if the subscription asks for them: a thread under it, and publishing it to
   * following servers. Their failures are logged by the poster, never a failed or repeated post.
   */
  thread?: { name: string };
  publish?: boolean;
  /** Post through the bot's own webhook in the channel, showing this name and avatar (no nonce there: see findEarlierPost). */
  webhook?: { name: string; avatarUrl?: string };
  /**
   * A forum or media channel: the post is a new forum post of its own, with this title (and tag). There is no nonce
   * for it, so findEarlierPost is what keeps it once; a thread, publication or pin does not apply to it.
   */
  forumPost?: { title: string; tagId?: string };
  /**
   * Pin the post, then unpin `unpin` (the bot's previous daily post in the channel): done by the scheduler after the
   * post is recorded (ChannelPoster.pin, see pin-follow-ups.ts), never by `post`. A failure is never a failed or
   * repeated post.
   */
  pin?: { unpin?: string };
}

/** A post made (or found): its message id. */
export interface PostResult {
  messageId: string;
}

/**
 * A request's place in the pace under Discord's global limit: `first` (the default) for the day's posts and what they
 * need, `after` for work no member waits for (a pin, an unpin), given a turn only when no `first` waits. The one
 * process's pace (src/discord/post-pace.ts) and the cluster's (src/cluster/redis-discord-pacer.ts) both honour it.
 */
export type TurnPriority = 'first' | 'after';

/** A daily post to pin (not a forum post's, not in a DM), and the bot's previous one to unpin after it. */
export interface PinTarget {
  channelId: string;
  /** As subscribed, for the failure reasons people read ("Missing Pin Messages in #words"). */
  channelName?: string;
  messageId: string;
  unpin?: string;
}

export interface ChannelPoster {
  post(message: DailyMessage): Promise<PostResult>;
  /** Replaces a post's embeds and buttons (the daily quiz's reveal); a poster that cannot leaves it out. */
  edit?(channelId: string, messageId: string, update: { embeds: APIEmbed[]; buttons: DailyButton[] }): Promise<void>;
  /**
   * The bot's own post of this message (same day's embed) in its channel, made at or after `since`, or null.
   * Asked before posting again after an attempt whose outcome is unknown: Discord drops a repeated nonce only for a
   * few minutes, so a retry later than that must see for itself whether the first attempt got through. A post found
   * gets the thread and publication its message asks for, if the attempt that made it did not live to add them.
   * One Discord took without its embed (no Embed Links) is removed, and reported as that failure (`embedsDropped`).
   */
  findEarlierPost(message: DailyMessage, since: Date): Promise<PostResult | null>;
  /**
   * The `pin` setting's requests, each at the pace's `after` priority: pins the post, then unpins the previous one.
   * Resolves with what failed (empty: nothing did), never rejects; a poster that cannot pin leaves it out.
   */
  pin?(target: PinTarget): Promise<PinFailure[]>;
}

/**
 * forbidden: the bot may not post there (403, missing access or permissions; or no Embed Links, so Discord drops the
 *   embed that carries the word) — retried next day;
 * gone: the channel or server no longer exists (404 Unknown Channel) — the subscription is disabled;
 * refused: Discord rejected the request itself (400: an invalid form body, an empty message) — asking again the
 *   same day would be refused again, so the day is recorded as refused and the subscription stays as it is;
 * transient: a 5xx, a timeout or a network error — retried later the same day.
 */
export type DeliveryFailureKind = 'forbidden' | 'gone' | 'refused' | 'transient';

/** Discord's answer to a refused request: HTTP status, its JSON error code and message. */
export interface DiscordRefusal {
  status: number;
  code: number;
  message: string;
}

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  /** For `refused`: what Discord said. */
  readonly refusal: DiscordRefusal | undefined;
  /**
   * For `forbidden`: Discord dropped the post's embeds (the bot lacks Embed Links), and nothing of the day's post is
   * left in the channel. Settles the day even when a look for an earlier attempt's post finds that out.
   */
  readonly embedsDropped: boolean;

  constructor(
    readonly kind: DeliveryFailureKind,
    /** Why, as a code and its parameters: stored, and said in the reader's language by /wotd-subscriptions. */
    readonly reason: FailureReason,
    options?: { cause?: unknown; refusal?: DiscordRefusal; embedsDropped?: boolean },
  ) {
    super(`daily post ${kind}: ${JSON.stringify(reason)}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.refusal = options?.refusal;
    this.embedsDropped = options?.embedsDropped === true;
  }
}

export function isDeliveryError(error: unknown): error is DeliveryError {
  return error instanceof DeliveryError;
}

/** Discord nonces are at most 25 characters; a hash of (channel, service day) fits and never changes. */
export function deliveryNonce(channelId: string, day: IsoDate): string {
  return createHash('sha256').update(`wotd:${channelId}:${day}`).digest('hex').slice(0, 25);
}
