import { Events, GatewayDispatchEvents, type Client, type Guild } from 'discord.js';
import type { Logger } from '../config/logger.ts';
import { SERVER_DATA_RETENTION_DAYS } from '../schedule/privacy.ts';
import type { FailureReason } from '../schedule/failure-reason.ts';
import type { Subscription } from '../schedule/subscription.ts';
import type { SubscriptionStore } from '../schedule/subscription-store.ts';
import { sendOwedNotice, withNotice, type StatusNotifier } from '../schedule/admin-notices.ts';

/**
 * Keeps subscriptions honest about the channels and servers they point at: a deleted channel or the bot's removal
 * from a server disables the subscriptions at once. They are disabled, not deleted, so /wotd-subscriptions can say why.
 * Returns a function that stops watching.
 */
export function watchSubscriptionTargets(
  client: Client,
  store: SubscriptionStore,
  logger: Logger,
  now: () => Date = () => new Date(),
  notices?: StatusNotifier,
): () => void {
  const disable =
    (reason: FailureReason, channelGone: boolean) =>
    (current: Subscription): Subscription | null => {
      if (current.status.state === 'disabled' && current.status.channelGone === channelGone) return null;
      const at = now().toISOString();
      const next = withNotice(current, { ...current, status: { state: 'disabled', reason, at, ...(channelGone ? { channelGone } : {}) } }, at, notices !== undefined);
      // The bot is out of the server: the fix is to add it back, and only a DM can say so.
      return next.noticeOwed && !channelGone ? { ...next, noticeOwed: { ...next.noticeOwed, botRemoved: true } } : next;
    };
  const tell = async (changed: Subscription[]): Promise<void> => {
    if (!notices) return;
    for (const subscription of changed) await sendOwedNotice(store, notices, subscription.channelId, logger);
  };

  // Read from the raw dispatch: the client caches no channels (see client.ts), so discord.js emits no ChannelDelete.
  const onChannelDelete = (data: unknown): void => {
    const channel = deletedGuildChannel(data);
    if (!channel) return;
    store
      .update(channel.id, disable({ kind: 'channelDeleted' }, true))
      .then(async (changed) => {
        if (changed?.status.state === 'disabled') logger.info({ channelId: channel.id, guildId: channel.guildId }, 'subscribed channel deleted; subscription disabled');
        if (changed) await tell([changed]);
      })
      .catch((error: unknown) => logger.error({ err: error, channelId: channel.id }, 'could not disable the subscription of a deleted channel'));
  };

  // GUILD_DELETE for an outage arrives as GuildUnavailable in discord.js; GuildDelete means the bot is out of the server.
  // Its data is then kept SERVER_DATA_RETENTION_DAYS (see privacy.ts) in case the bot is added back, and erased after.
  const onGuildDelete = (guild: Guild): void => {
    store
      .updateGuild(guild.id, (current) => (current.status.state === 'disabled' ? null : disable({ kind: 'botRemoved' }, false)(current)))
      .then(async (changed) => {
        if (changed.length > 0) logger.info({ guildId: guild.id, disabled: changed.length }, 'removed from a server; its subscriptions disabled');
        await tell(changed);
        if (await store.markGuildRemoved(guild.id, now().toISOString())) {
          logger.info({ guildId: guild.id, eraseAfterDays: SERVER_DATA_RETENTION_DAYS }, "removed from a server; its data will be erased unless the bot is added back");
        }
      })
      .catch((error: unknown) => logger.error({ err: error, guildId: guild.id }, 'could not disable the subscriptions of a server the bot left'));
  };

  // Every server arrives this way at start-up too: one read each, and only a server that was left has anything to undo.
  const onGuildCreate = (guild: Guild): void => {
    store
      .cancelGuildRemoval(guild.id)
      .then((cancelled) => {
        if (cancelled) logger.info({ guildId: guild.id }, 'added back to a server; its data is kept (its subscriptions stay off until subscribed again)');
      })
      .catch((error: unknown) => logger.error({ err: error, guildId: guild.id }, "could not cancel the erasure of a server's data"));
  };

  client.ws.on(GatewayDispatchEvents.ChannelDelete, onChannelDelete);
  client.on(Events.GuildDelete, onGuildDelete);
  client.on(Events.GuildCreate, onGuildCreate);
  return () => {
    client.ws.off(GatewayDispatchEvents.ChannelDelete, onChannelDelete);
    client.off(Events.GuildDelete, onGuildDelete);
    client.off(Events.GuildCreate, onGuildCreate);
  };
}

/** The id and server of a CHANNEL_DELETE's channel; null for a DM or anything that is not a channel. */
function deletedGuildChannel(data: unknown): { id: string; guildId: string } | null {
  if (typeof data !== 'object' || data === null || !('id' in data) || !('guild_id' in data)) return null;
  const { id, guild_id: guildId } = data;
  return typeof id === 'string' && typeof guildId === 'string' ? { id, guildId } : null;
}
