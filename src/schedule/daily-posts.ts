import type { APIEmbed } from 'discord.js';
import type { Logger } from '../config/logger.ts';
import type { StoreLocation } from '../store/open-store.ts';
import type { Entry } from '../wotd/entry.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import type { DeliveryClaims } from './delivery-claims.ts';
import type { StatusNotifier } from './admin-notices.ts';
import { DEFAULT_DELIVERY_RETENTION_DAYS } from './delivery-retention.ts';
import type { ChannelPoster } from './poster.ts';
import { PrivacyService } from './privacy.ts';
import { ensureDueIndex } from './due-index-build.ts';
import { DailyScheduler, type SchedulerObserver, type SchedulerOptions } from './scheduler.ts';
import { createSubscriptionService, type SubscriptionService } from './subscription-service.ts';
import { SubscriptionStore } from './subscription-store.ts';
import type { PostStyle } from './subscription.ts';

/**
 * The daily-post feature as a runtime sees it: open the store (the admin commands need the service before the
 * transport is up), then start the scheduler once there is somewhere to post, and close both on shutdown.
 */
export interface DailyPosts {
  store: SubscriptionStore;
  subscriptions: SubscriptionService;
  /** /wotd-data's export and erasure, and the erasure of servers the bot left, over the same store. */
  privacy: PrivacyService;
  start(options: {
    poster: ChannelPoster;
    lookup: Pick<WotdLookup, 'getEntry'>;
    render: SchedulerOptions['render'];
    threadSuffix?: SchedulerOptions['threadSuffix'];
    dateText?: SchedulerOptions['dateText'];
    languageOf?: SchedulerOptions['languageOf'];
    /** Cluster mode: every process runs the scheduler, and posts only what it claims. */
    claims?: DeliveryClaims;
    /** Tells admins when a subscription fails, is disabled or recovers. */
    notices?: StatusNotifier;
  }): DailyScheduler;
  /**
   * Wraps the poster the scheduler will be started with (the daily quiz decorates its channels' posts); set before
   * start. `claims` are the cluster's, when the scheduler runs under them, for jobs that must run once cluster-wide.
   */
  wrapPoster(wrap: (poster: ChannelPoster, context: { claims?: DeliveryClaims }) => ChannelPoster): void;
  /** Stops starting posts and waits for the current pass; the store stays open for commands still running. */
  stopPosting(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDailyPostsOptions {
  store: string | StoreLocation;
  limit: number;
  concurrency: number;
  /** Days delivery records are kept (DELIVERY_RETENTION_DAYS); see delivery-retention.ts. */
  retentionDays?: number;
  logger: Logger;
  now?: () => Date;
  /** Told about the scheduler's ticks and posts (metrics, health). */
  observer?: SchedulerObserver;
}

export async function openDailyPosts(options: OpenDailyPostsOptions): Promise<DailyPosts> {
  const logger = options.logger.child({ component: 'daily-posts' });
  const store = await SubscriptionStore.open(options.store, logger, options.now ? { now: options.now } : {});
  try {
    // Before anything reads it: a store written before the index, or under other time-zone rules, is indexed now.
    await ensureDueIndex(store, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
  const subscriptions = createSubscriptionService({ store, limit: options.limit, now: options.now });
  const privacy = new PrivacyService(store, options.now);
  let scheduler: DailyScheduler | null = null;
  const wrappers: Array<(poster: ChannelPoster, context: { claims?: DeliveryClaims }) => ChannelPoster> = [];
  const stopPosting = async (): Promise<void> => {
    await scheduler?.stop();
  };
  return {
    store,
    subscriptions,
    privacy,
    wrapPoster(wrap) {
      wrappers.push(wrap);
    },
    start({ poster, lookup, render, threadSuffix, dateText, languageOf, claims, notices }) {
      if (scheduler) return scheduler;
      scheduler = new DailyScheduler({
        store,
        lookup,
        poster: wrappers.reduce((wrapped, wrap) => wrap(wrapped, claims ? { claims } : {}), poster),
        render,
        ...(threadSuffix ? { threadSuffix } : {}),
        ...(dateText ? { dateText } : {}),
        ...(languageOf ? { languageOf } : {}),
        logger,
        concurrency: options.concurrency,
        now: options.now,
        dueIndexBuilt: true,
        ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
        ...(claims ? { claims } : {}),
        ...(notices ? { notices } : {}),
        ...(options.observer ? { observer: options.observer } : {}),
      });
      scheduler.start();
      logger.info(
        { concurrency: options.concurrency, retentionDays: options.retentionDays ?? DEFAULT_DELIVERY_RETENTION_DAYS },
        'daily posts scheduled (checked every minute)',
      );
      return scheduler;
    },
    stopPosting,
    async close() {
      await stopPosting();
      await store.close();
    },
  };
}
