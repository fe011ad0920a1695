import type { Client } from 'discord.js';
import type { Cluster } from '../cluster/cluster.ts';
import type { Logger } from '../logger.ts';
import type { DailyPosts } from '../schedule/daily-posts.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import { createChannelPoster } from './channel-poster.ts';
import { entryEmbed } from './embeds.ts';
import { watchSubscriptionTargets } from './subscription-events.ts';

/** Daily posts on a connected client: posts through its REST manager, and follows channel and server removals. */
export function startDiscordDailyPosts(
  client: Client<true>,
  daily: DailyPosts,
  options: {
    lookup: Pick<WotdLookup, 'getEntry'>;
    siteUrl: string;
    logger: Logger;
    /** Cluster mode: claims on each post, and one pace for the whole cluster under Discord's global limit. */
    cluster?: Pick<Cluster, 'claims' | 'waitForPostTurn'>;
    /** Daily posts started per second in this process (default 47); cluster mode paces in Redis instead. */
    postsPerSecond?: number;
  },
): () => void {
  const unwatch = watchSubscriptionTargets(client, daily.store, options.logger.child({ component: 'daily-posts' }));
  daily.start({
    poster: createChannelPoster(
      client.rest,
      options.cluster
        ? { waitForTurn: options.cluster.waitForPostTurn }
        : options.postsPerSecond
          ? { postsPerSecond: options.postsPerSecond }
          : {},
    ),
    lookup: options.lookup,
    render: (entry) => entryEmbed(entry, { siteUrl: options.siteUrl }),
    ...(options.cluster ? { claims: options.cluster.claims } : {}),
  });
  return unwatch;
}
