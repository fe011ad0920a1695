import {
  DiscordAPIError,
  RESTJSONErrorCodes,
  Routes,
  SnowflakeUtil,
  type APIMessage,
  type APIThreadChannel,
  type REST,
  type RESTGetAPIGuildThreadsResult,
  type RESTPostAPIGuildForumThreadsJSONBody,
} from 'discord.js';
import { DeliveryError, type ChannelPoster, type DailyMessage } from '../schedule/poster.ts';
import {
  attributeEmptyMessage,
  EARLIER_POST_PAGES,
  isDailyPostOf,
  isSnowflake,
  LOOK_BACK_MS,
  postFailure,
  type ChannelPosterOptions,
} from './channel-poster.ts';
import { dailyButtonRows } from './daily-post-edit.ts';
import { classifyPostError } from './post-errors.ts';
import type { PostTurns } from './post-turns.ts';

/**
 * The daily post in a forum or media channel: each day a new forum post (POST /channels/:id/threads) titled with the
 * word and the date, its starter message the day's embed. Discord takes no nonce there, so a retry after an attempt
 * whose outcome is unknown first looks through the server's active threads for the bot's post of the day in that
 * forum (findEarlierPost): a forum post's starter message has the thread's id, which is what is recorded.
 */
export function createForumPoster(rest: REST, options: ChannelPosterOptions, turns: PostTurns): Pick<ChannelPoster, 'post' | 'findEarlierPost'> {
  const { takeTurn, selfId } = turns;
  return {
    async post(message: DailyMessage) {
      const forum = forumPostOf(message);
      await takeTurn();
      const body: RESTPostAPIGuildForumThreadsJSONBody = {
        name: forum.title,
        ...(forum.tagId ? { applied_tags: [forum.tagId] } : {}),
        message: {
          embeds: message.embeds,
          allowed_mentions: { parse: [], roles: message.mentionRoleId ? [message.mentionRoleId] : [] },
          ...(message.content !== undefined ? { content: message.content } : {}),
          ...(message.buttons?.length ? { components: dailyButtonRows(message.buttons) } : {}),
        },
      };
      let thread: Partial<APIThreadChannel> | null;
      try {
        thread = (await rest.post(Routes.threads(message.channelId), { body })) as Partial<APIThreadChannel> | null;
      } catch (error) {
        const failure = tagRequired(await postFailure(rest, message.channelId, error));
        throw await attributeEmptyMessage(message, failure, options);
      }
      if (!isSnowflake(thread?.id)) {
        throw new DeliveryError('transient', { kind: 'noMessageId' });
      }
      return { messageId: thread.id };
    },

    async findEarlierPost(message: DailyMessage, since: Date) {
      const author = await selfId();
      let guildId: string | undefined;
      let threads: Array<Partial<APIThreadChannel>>;
      try {
        const channel = (await rest.get(Routes.channel(message.channelId))) as { guild_id?: unknown };
        if (typeof channel.guild_id !== 'string' || !isSnowflake(channel.guild_id)) return null;
        guildId = channel.guild_id;
        await takeTurn();
        const active = (await rest.get(Routes.guildActiveThreads(guildId))) as Partial<RESTGetAPIGuildThreadsResult> | null;
        if (!Array.isArray(active?.threads)) throw new DeliveryError('transient', { kind: 'noThreadList' });
        threads = active.threads as Array<Partial<APIThreadChannel>>;
      } catch (error) {
        throw await postFailure(rest, message.channelId, error);
      }
      const after = SnowflakeUtil.generate({ timestamp: since.getTime() - LOOK_BACK_MS });
      const candidates = threads
        .filter((thread) => thread.parent_id === message.channelId && thread.owner_id === author)
        .map((thread) => thread.id)
        .filter((id): id is string => isSnowflake(id) && BigInt(id) > after)
        .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .slice(0, EARLIER_POST_PAGES);
      for (const threadId of candidates) {
        let starter: APIMessage;
        try {
          await takeTurn();
          starter = (await rest.get(Routes.channelMessage(threadId, threadId))) as APIMessage;
        } catch (error) {
          // The starter message was deleted (the post is then someone's to remove, not the day's): looked past.
          if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage) continue;
          throw classifyPostError(error);
        }
        if (isDailyPostOf(starter, message, author)) return { messageId: threadId };
      }
      return null;
    },
  };
}

function forumPostOf(message: DailyMessage): NonNullable<DailyMessage['forumPost']> {
  if (!message.forumPost) throw new DeliveryError('refused', { kind: 'unexpected', detail: 'forumPost' });
  return message.forumPost;
}

/** The forum requires a tag (40067) and the post had none, or one deleted since: said so, for the admin to choose one. */
function tagRequired(failure: DeliveryError): DeliveryError {
  if (failure.refusal?.code !== RESTJSONErrorCodes.TagRequiredToCreateAForumPostInThisChannel) return failure;
  return new DeliveryError('refused', { kind: 'forumTagRequired' }, { cause: failure.cause, refusal: failure.refusal });
}
