import { ExpiringMap } from '../../config/expiring-map.ts';
import type { Subscription } from '../subscription.ts';

/** How long a channel's settings, once read, answer without reading the store again. */
export const CHANNEL_SETTINGS_TTL_MS = 10_000;
/** Channels remembered at most (the oldest read is forgotten first, see ExpiringMap). */
export const CHANNEL_SETTINGS_KEPT = 10_000;

/** What is kept of a channel's subscription (none: no language, no quiz). */
interface ChannelSettings {
  language: string | undefined;
  /** The subscription asks for the daily quiz. */
  quiz: boolean;
}

/**
 * The settings of each channel's subscription that are asked for most: its language, which every public reply asks
 * for (replies/i18n/reply-locale.ts), and whether it asks for the daily quiz, which the quiz's presses ask for
 * (quizOn). Kept for CHANNEL_SETTINGS_TTL_MS after a read, so a busy channel is not one store read per command or
 * press. This process's own writes of a channel's record forget it at once (and a read that was under way when they
 * did is not kept), so its commands always see their own changes (a subscription removed or its quiz switched off
 * answers no more at once); a change made by another process (another member of a cluster, a CLI command) shows
 * within that time, as `dm-notices` does.
 */
export class KeptChannelSettings {
  private readonly known: ExpiringMap<string, ChannelSettings>;
  /** Counts forgets: a read that saw one while it was under way may hold what was just replaced. */
  private forgets = 0;
  /** Reads under way, shared by the asks that come meanwhile (a burst of presses on one post reads once). */
  private readonly reading = new Map<string, { forgets: number; found: Promise<ChannelSettings> }>();

  constructor(
    private readonly read: (channelId: string) => Promise<Subscription | null>,
    clock?: () => number,
    kept = CHANNEL_SETTINGS_KEPT,
  ) {
    this.known = new ExpiringMap(CHANNEL_SETTINGS_TTL_MS, kept, clock);
  }

  /** The channel's language when it was read recently (`language` undefined: it has none); undefined when not. */
  cached(channelId: string): { language: string | undefined } | undefined {
    return this.known.get(channelId);
  }

  async languageOf(channelId: string): Promise<string | undefined> {
    return (this.cached(channelId) ?? (await this.readAndKeep(channelId))).language;
  }

  /** Whether the channel's subscription (read recently) asks for the daily quiz: false without one. */
  async quizOn(channelId: string): Promise<boolean> {
    return (this.known.get(channelId) ?? (await this.readAndKeep(channelId))).quiz;
  }

  private readAndKeep(channelId: string): Promise<ChannelSettings> {
    const under = this.reading.get(channelId);
    if (under && under.forgets === this.forgets) return under.found;
    const forgets = this.forgets;
    const found = this.read(channelId).then((subscription) => {
      const read = { language: subscription?.language, quiz: subscription?.quiz === true };
      if (forgets === this.forgets) this.known.set(channelId, read);
      return read;
    });
    const reading = { forgets, found };
    this.reading.set(channelId, reading);
    const done = () => {
      if (this.reading.get(channelId) === reading) this.reading.delete(channelId);
    };
    found.then(done, done);
    return found;
  }

  /** The channels' records were just written or removed by this process. */
  forget(channelIds: Iterable<string>): void {
    this.forgets += 1;
    for (const channelId of channelIds) this.known.delete(channelId);
  }
}
