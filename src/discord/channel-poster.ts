import {
  DiscordAPIError,
  makeURLSearchParams,
  MessageType,
  RESTJSONErrorCodes,
  Routes,
  SnowflakeUtil,
  type APIEmbed,
  type APIMessage,
  type REST,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord.js';
import type { ChannelPermission } from '../replies/interactions.ts';
import { clip } from '../schedule/discord-limits.ts';
import type { FailureReason } from '../schedule/failure-reason.ts';
import { DeliveryError, type ChannelPoster, type DailyMessage } from '../schedule/poster.ts';
import { dmUserOf } from '../schedule/subscription.ts';
import { dmChannels } from './dm-channels.ts';
import type { Logger } from '../config/logger.ts';
import { dailyButtonRows } from './daily-post-edit.ts';
import { classifyPostError } from './post-errors.ts';
import { postTurns, type PostTurns } from './post-turns.ts';
import { createWebhookPoster } from './webhook-poster.ts';
import { pacer, type TakeTurn } from './post-pace.ts';

export { dmChannels, DM_CHANNELS_REMEMBERED } from './dm-channels.ts';

export interface ChannelPosterOptions {
  /**
   * Most daily posts started in any one second (default 47, see postsPerSecondFor; 0 turns pacing off). discord.js
   * keeps to the global limit in its own one-second windows, which do not line up with Discord's, so a fan-out at
   * full speed draws a 429 now and then at a window edge. Posts capped below the ceiling over every sliding second
   * never touch it, and leave room for command replies.
   */
  postsPerSecond?: number;
  /**
   * Waits for the post's turn instead of the in-process pacing; cluster mode passes one shared by every process
   * (src/cluster/redis-discord-pacer.ts), since Discord's global limit is per bot, not per process.
   */
  waitForTurn?: TakeTurn;
  /** The bot's user id, to tell its own posts in a channel from others'; asked of Discord once when not given. */
  selfId?: string;
  /** Where failures of a post's extras (its thread, publishing it) are reported. */
  logger?: Logger;
  /**
   * The bot's permissions in a server channel, or null when they cannot be told (src/discord/bot-permissions.ts).
   * Asked when Discord calls a post with an embed empty, to tell a missing Embed Links from another refusal;
   * without it, that answer stays a refusal.
   */
  botPermissionsIn?: (channelId: string) => Promise<ReadonlySet<ChannelPermission> | null>;
}

/** The share of Discord's global limit the daily posts take; the rest is left for everything else the bot sends. */
const SHARE_OF_GLOBAL_LIMIT = 0.94;

/** Daily posts per second under a global limit of `globalLimit` requests per second: 47 at Discord's 50, 470 at 500. */
export function postsPerSecondFor(globalLimit: number): number {
  return Math.max(1, Math.floor(globalLimit * SHARE_OF_GLOBAL_LIMIT));
}

export const DEFAULT_POSTS_PER_SECOND = postsPerSecondFor(50);
/** Looking for an earlier attempt's post reads at most this many pages of 100 messages from just before it began. */
export const EARLIER_POST_PAGES = 10;
const HISTORY_PAGE_SIZE = 100;
/** Clocks differ by a little, and a post may wait in discord.js's queue: start looking a while before the attempt. */
export const LOOK_BACK_MS = 5 * 60_000;

/** The turns and the bot's id of posts made with these options: their own pace unless `waitForTurn` is given. */
export function postTurnsFor(rest: REST, options: ChannelPosterOptions): PostTurns {
  return postTurns(rest, options.waitForTurn ?? pacer(options.postsPerSecond ?? DEFAULT_POSTS_PER_SECOND), options.selfId);
}

/**
 * The daily post over discord.js's REST manager, which queues for Discord's global and per-route rate limits and
 * retries 429s and (a few times) 5xx itself. What is left when it gives up is sorted here into the scheduler's
 * three kinds of failure. `turns` are the daily poster's, shared with its other kinds of post; alone it makes its own.
 */
export function createChannelPoster(rest: REST, options: ChannelPosterOptions = {}, turns: PostTurns = postTurnsFor(rest, options)): ChannelPoster {
  const { takeTurn, selfId } = turns;
  const channelOf = dmChannels(rest);
  const history = { pages: EARLIER_POST_PAGES, pageSize: HISTORY_PAGE_SIZE, lookBackMs: LOOK_BACK_MS };
  const webhooks = createWebhookPoster(rest, { takeTurn, selfId, logger: options.logger, extras: postExtras, failure: postFailure, sameEmbed, history });
  return {
    async findEarlierPost(message: DailyMessage, since: Date) {
      if (message.webhook) return webhooks.findEarlierPost(message, since);
      const author = await selfId();
      let channelId: string;
      try {
        channelId = await channelOf(message.channelId);
      } catch (error) {
        throw classifyPostError(error);
      }
      let after = SnowflakeUtil.generate({ timestamp: since.getTime() - LOOK_BACK_MS }).toString();
      for (let page = 0; page < EARLIER_POST_PAGES; page += 1) {
        await takeTurn();
        let batch: APIMessage[];
        try {
          const query = makeURLSearchParams({ after, limit: HISTORY_PAGE_SIZE });
          batch = (await rest.get(Routes.channelMessages(channelId), { query })) as APIMessage[];
        } catch (error) {
          throw await postFailure(rest, message.channelId, error);
        }
        const found = batch.find((candidate) => isDailyPostOf(candidate, message, author));
        if (found) {
          // The attempt that made it may have died before opening its thread or publishing it; done ones are noted only.
          await postExtras(rest, message, found, options.logger);
          return { messageId: found.id };
        }
        // The attempt's post, taken without its embed (no Embed Links), left there by an attempt that died before
        // removing it: removed now, and the day fails as that attempt's would have, rather than pinging again.
        const bare = batch.find((candidate) => isBarePostOf(candidate, message, author));
        if (bare) throw await embedsDropped(rest, message, bare, options.logger);
        if (batch.length < HISTORY_PAGE_SIZE) return null;
        after = batch.reduce((newest, m) => (BigInt(m.id) > BigInt(newest) ? m.id : newest), after);
      }
      // More than EARLIER_POST_PAGES × 100 messages since the attempt: taken as not posted (see README).
      return null;
    },
    async post(message: DailyMessage) {
      if (message.webhook) return webhooks.post(message);
      await takeTurn();
      const body: RESTPostAPIChannelMessageJSONBody = {
        embeds: message.embeds,
        allowed_mentions: { parse: [], roles: message.mentionRoleId ? [message.mentionRoleId] : [] },
        nonce: message.nonce,
        enforce_nonce: true,
      };
      if (message.content !== undefined) body.content = message.content;
      if (message.buttons?.length) body.components = dailyButtonRows(message.buttons);
      let created: APIMessage;
      try {
        const channelId = await channelOf(message.channelId);
        created = (await rest.post(Routes.channelMessages(channelId), { body })) as APIMessage;
      } catch (error) {
        const failure = await postFailure(rest, message.channelId, error);
        throw await attributeEmptyMessage(message, failure, options);
      }
      // An answer without a message id we can store is no proof of a post: the retry looks for it by its nonce first.
      if (!isSnowflake((created as Partial<APIMessage> | null)?.id)) {
        throw new DeliveryError('transient', { kind: 'noMessageId' });
      }
      if (lostItsEmbeds(created, message)) throw await embedsDropped(rest, message, created, options.logger);
      await postExtras(rest, message, created, options.logger);
      return { messageId: created.id };
    },
  };
}

/**
 * A plain message of the bot's own (not an interaction reply, which may show the same embed after /wotd) carrying
 * the day's embed. Discord echoes a nonce only when a message is created, so the embed is what identifies it.
 */
export function isDailyPostOf(candidate: APIMessage, message: DailyMessage, author: string): boolean {
  if (candidate.author.id !== author || candidate.type !== MessageType.Default || candidate.webhook_id !== undefined) return false;
  if (candidate.nonce !== undefined && String(candidate.nonce) !== message.nonce) return false;
  return sameEmbed(candidate.embeds[0], message.embeds[0]);
}

/**
 * The bot's own plain message with the daily post's content (its role mention) but no embed, as Discord takes the
 * post where the bot lacks Embed Links. Nothing else the bot posts is a bare mention.
 */
function isBarePostOf(candidate: APIMessage, message: DailyMessage, author: string): boolean {
  if (candidate.author.id !== author || candidate.type !== MessageType.Default || candidate.webhook_id !== undefined) return false;
  if (candidate.nonce !== undefined && String(candidate.nonce) !== message.nonce) return false;
  return message.content !== undefined && candidate.content === message.content && lostItsEmbeds(candidate, message);
}

/** Whether Discord's copy of a message shows none of the embeds that were sent: what it does without Embed Links. */
function lostItsEmbeds(created: APIMessage, message: DailyMessage): boolean {
  // An answer without an embeds list says nothing either way; only an empty list is Discord saying it dropped them.
  return message.embeds.length > 0 && Array.isArray(created.embeds) && created.embeds.length === 0;
}

/** Discord's channel names are at most 100 characters; a stored one is cut there too before it goes into a reason. */
const CHANNEL_NAME_LIMIT = 100;

/** "Missing Embed Links in #words": the reason a post fails, and a subscription is failing, without the permission. */
function missingEmbedLinks(message: DailyMessage, mentionLeft = false): FailureReason {
  return {
    kind: 'missingPermission',
    permission: 'EmbedLinks',
    ...(message.channelName ? { channelName: clip(message.channelName, CHANNEL_NAME_LIMIT) } : {}),
    ...(mentionLeft ? { mentionLeft: true as const } : {}),
  };
}

/**
 * Discord took the daily post without its embed, the only part that carries the word: a bare role mention. It is
 * deleted (its own message needs no further permission): the ping has gone out, but the channel is not left with a
 * mention of nothing, and shows the day as the subscription's status does: not delivered, for want of Embed Links.
 * Editing the word in as text instead would deliver it only where a role is mentioned (an embed-only post is
 * refused outright), and as a post the next attempt could not recognise. The day then fails like a 403; a deletion
 * that fails is logged and noted in the reason, so an admin knows to remove the mention.
 */
async function embedsDropped(rest: REST, message: DailyMessage, bare: APIMessage, logger: Logger | undefined): Promise<DeliveryError> {
  const fields = { channelId: message.channelId, messageId: bare.id };
  let mentionLeft = false;
  try {
    await rest.delete(Routes.channelMessage(bare.channel_id, bare.id));
    logger?.warn(fields, 'Discord took the daily post without its embed (no Embed Links); removed the bare mention');
  } catch (error) {
    if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage)) {
      const why = classifyPostError(error).reason;
      logger?.warn({ ...fields, reason: why }, 'Discord took the daily post without its embed (no Embed Links), and the bare mention could not be removed');
      mentionLeft = true;
    }
  }
  return new DeliveryError('forbidden', missingEmbedLinks(message, mentionLeft), { embedsDropped: true });
}

/**
 * Discord calls a message empty when nothing is left of it: a post of only an embed, where the bot lacks Embed
 * Links, is answered 50006 "Cannot send an empty message". That refusal says nothing of the cause, so the bot's
 * permissions in the channel are read: without Embed Links it is that permission failure; with it, or when they
 * cannot be read, Discord's refusal stands.
 */
export async function attributeEmptyMessage(message: DailyMessage, failure: DeliveryError, options: ChannelPosterOptions): Promise<DeliveryError> {
  if (failure.refusal?.code !== RESTJSONErrorCodes.CannotSendAnEmptyMessage || message.embeds.length === 0 || !options.botPermissionsIn) return failure;
  if (dmUserOf(message.channelId) !== null) return failure;
  let held: ReadonlySet<ChannelPermission> | null;
  try {
    held = await options.botPermissionsIn(message.channelId);
  } catch (error) {
    options.logger?.warn({ channelId: message.channelId, err: error }, "could not read the bot's permissions to explain an empty-message refusal");
    held = null;
  }
  if (held === null || held.has('EmbedLinks')) return failure;
  options.logger?.warn({ channelId: message.channelId }, 'Discord dropped the daily post\'s embed (no Embed Links) and refused what was left as empty');
  return new DeliveryError('forbidden', missingEmbedLinks(message), { cause: failure, embedsDropped: true });
}

function sameEmbed(seen: APIEmbed | undefined, sent: APIEmbed | undefined): boolean {
  if (!seen || !sent) return false;
  return seen.title === sent.title && seen.footer?.text === sent.footer?.text;
}

/** Errors that only say an extra was done already: a retry (same nonce, same message) finds its thread or its publication. */
const ALREADY_DONE = new Set<number>([RESTJSONErrorCodes.ThreadAlreadyCreatedForMessage, RESTJSONErrorCodes.ThisMessageWasAlreadyCrossposted]);

/**
 * The thread under the post and its publication, once the post exists. The post is sent whatever happens here, so a
 * failure is logged and never reported as the post's: that would retry the post, or switch the subscription off.
 */
async function postExtras(rest: REST, message: DailyMessage, created: APIMessage, logger: Logger | undefined): Promise<void> {
  const extras: Array<{ what: string; run: () => Promise<unknown> }> = [];
  if (message.thread) {
    const name = message.thread.name;
    extras.push({ what: 'thread', run: () => rest.post(Routes.threads(created.channel_id, created.id), { body: { name, auto_archive_duration: 1440 } }) });
  }
  if (message.publish) extras.push({ what: 'publish', run: () => rest.post(Routes.channelMessageCrosspost(created.channel_id, created.id)) });
  for (const extra of extras) {
    try {
      await extra.run();
    } catch (error) {
      const fields = { channelId: message.channelId, messageId: created.id, extra: extra.what, reason: error instanceof Error ? error.message : String(error) };
      if (error instanceof DiscordAPIError && typeof error.code === 'number' && ALREADY_DONE.has(error.code)) logger?.debug(fields, 'daily post extra was done already');
      else logger?.warn(fields, 'daily post sent, but its extra failed');
    }
  }
}

/**
 * What a failed request means for the post (a DeliveryError already says); a 404 is checked before it is taken to
 * mean the channel is gone.
 */
export async function postFailure(rest: REST, channelId: string, error: unknown): Promise<DeliveryError> {
  const failure = classifyPostError(error);
  // A DM subscription's channel is the bot's own DM with the member; its failures say what they mean.
  if (failure.kind !== 'gone' || dmUserOf(channelId) !== null) return failure;
  return confirmGone(rest, channelId, failure);
}

/**
 * "Gone" switches a subscription off for good, so a 404 is believed only when Discord also cannot find the
 * channel itself; a channel that is there (or a check that gets no clear answer) makes it a failure to retry later
 * the same day.
 */
async function confirmGone(rest: REST, channelId: string, failure: DeliveryError): Promise<DeliveryError> {
  try {
    await rest.get(Routes.channel(channelId));
  } catch (error) {
    const check = classifyPostError(error);
    if (check.kind === 'gone') return failure;
    return new DeliveryError('transient', { kind: 'goneUnconfirmed', lookupFailed: true }, { cause: error });
  }
  return new DeliveryError('transient', { kind: 'goneUnconfirmed', lookupFailed: false }, { cause: failure });
}

export function isSnowflake(id: unknown): id is string {
  return typeof id === 'string' && /^\d{1,20}$/.test(id);
}
