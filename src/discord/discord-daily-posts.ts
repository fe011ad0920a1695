import type { Client } from 'discord.js';
import type { Cluster } from '../cluster/cluster.ts';
import type { Logger } from '../config/logger.ts';
import type { DailyPosts } from '../schedule/daily-posts.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import { botPermissionsInChannel } from './bot-permissions.ts';
import { createAdminNotifier } from './admin-notifier.ts';
import { createDailyPoster } from './daily-poster.ts';
import { dailyPostEditor } from './daily-post-edit.ts';
import { dailyPostRendering } from '../replies/daily-embeds.ts';
import { watchSubscriptionTargets } from './subscription-events.ts';

const SWEEP_EVERY_MS = 60 * 60_000;

/** Daily posts on a connected client: posts through its REST manager, and follows channel and server removals. */
export function startDiscordDailyPosts(
  client: Client<true>,
  daily: DailyPosts,
  options: {
    lookup: Pick<WotdLookup, 'getEntry'>;
    siteUrl: string;
    logger: Logger;
    /**
     * Cluster mode: claims on each post. The pace under Discord's global limit is the client's own then (every request
     * takes a turn shared by the cluster; see startDiscordBot's takeGlobalTurn), so the poster adds none.
     */
    cluster?: Pick<Cluster, 'claims'>;
    /** The clock of removals and erasures (tests); the scheduler has its own from openDailyPosts. */
    now?: () => Date;
    /** Daily posts started per second in this process (default 47); cluster mode paces in Redis instead. */
    postsPerSecond?: number;
  },
): () => void {
  const log = options.logger.child({ component: 'daily-posts' });
  const notices = createAdminNotifier(client.rest, { logger: log, serverLocaleOf: (guildId) => client.guilds.cache.get(guildId)?.preferredLocale });
  const unwatch = watchSubscriptionTargets(client, daily.store, log, options.now, notices);
  // Servers the bot left long enough ago lose their data; checked now and every hour.
  const sweep = (): void => {
    daily.privacy.sweepRemovedServers(log).catch((error: unknown) => log.error({ err: error }, 'could not erase the data of servers the bot left'));
  };
  sweep();
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();
  const poster = createDailyPoster(client.rest, {
    logger: log,
    // Known already: asking Discord at the fan-out's start would be a request outside the posts' pace.
    selfId: client.user.id,
    botPermissionsIn: (channelId) => botPermissionsInChannel(client, channelId),
    ...(options.cluster
      ? { postsPerSecond: 0 }
      : options.postsPerSecond
        ? { postsPerSecond: options.postsPerSecond }
        : {}),
  });
  daily.start({
    poster: { ...poster, edit: dailyPostEditor(client.rest) },
    lookup: options.lookup,
    ...dailyPostRendering(options.siteUrl),
    // A subscription without a language of its own follows its server's preferred locale as it is at posting time.
    languageOf: (subscription) => subscription.language ?? client.guilds.cache.get(subscription.guildId)?.preferredLocale,
    ...(options.cluster ? { claims: options.cluster.claims } : {}),
    notices,
  });
  return () => {
    clearInterval(sweeper);
    unwatch();
  };
}
