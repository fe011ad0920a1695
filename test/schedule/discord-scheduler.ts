import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { DailyScheduler, type SchedulerOptions } from '../../src/schedule/scheduler.ts';
import type { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { restFor, type DiscordServer } from '../support/discord/index.ts';
import { captureLogger, entryFor, FixedLookup } from './helpers.ts';

/** The full `/wotd` embed of an entry, as the daily posts of these tests carry it. */
export const render = (entry: ReturnType<typeof entryFor>) => entryEmbed(entry, { siteUrl: 'https://wotd.site' });

/** The scheduler with the discord.js REST poster against the local Discord-compatible server, logging to `lines`. */
export function schedulerFor(discord: DiscordServer, store: SubscriptionStore, overrides: Partial<SchedulerOptions> = {}) {
  const rest = restFor(discord, { retries: 1, timeout: 5_000 });
  const { logger, lines } = captureLogger();
  const scheduler = new DailyScheduler({
    store,
    lookup: new FixedLookup(),
    poster: createChannelPoster(rest),
    render,
    logger,
    concurrency: 8,
    ...overrides,
  });
  return { scheduler, lines, rest };
}
