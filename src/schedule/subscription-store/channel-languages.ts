import type { Subscription } from '../subscription.ts';

/** How long a channel's language, once read, answers without reading the store again. */
export const CHANNEL_LANGUAGE_TTL_MS = 10_000;
/** Channels remembered at most (the oldest read is forgotten first). */
export const CHANNEL_LANGUAGES_KEPT = 10_000;

interface Found {
  language: string | undefined;
  /** The subscription asks for the daily quiz. */
  quiz: boolean;
}

interface Known extends Found {
  until: number;
}

/**
 * The language of each channel's subscription, which every public reply asks for (replies/i18n/reply-locale.ts):
 * kept for CHANNEL_LANGUAGE_TTL_MS after a read, so a busy channel is not one store read per command. This
 * process's own writes of a channel's record forget it at once (and a read that was under way when they did is
 * not kept), so its commands always see their own changes; a change made by another process (another member of
 * a cluster, a CLI command) shows within that time, as `dm-notices` does. Whether it asks for the daily quiz is
 * kept the same way, for the quiz's presses (quizOn): a subscription removed or its quiz switched off by this
 * process answers no more at once, by another process within CHANNEL_LANGUAGE_TTL_MS.
 */
export class ChannelLanguages {
  private readonly known = new Map<string, Known>();
  /** Counts forgets: a read that saw one while it was under way may hold what was just replaced. */
  private forgets = 0;
  /** Reads under way, shared by the asks that come meanwhile (a burst of presses on one post reads once). */
  private readonly reading = new Map<string, { forgets: number; found: Promise<Found> }>();

  constructor(
    private readonly read: (channelId: string) => Promise<Subscription | null>,
    private readonly clock: () => number = () => performance.now(),
    private readonly kept = CHANNEL_LANGUAGES_KEPT,
  ) {}

  /** The channel's language when it was read recently (`language` undefined: it has none); undefined when not. */
  cached(channelId: string): { language: string | undefined } | undefined {
    return this.fresh(channelId);
  }

  async languageOf(channelId: string): Promise<string | undefined> {
    return (this.cached(channelId) ?? (await this.readAndKeep(channelId))).language;
  }

  /** Whether the channel's subscription (read recently) asks for the daily quiz: false without one. */
  async quizOn(channelId: string): Promise<boolean> {
    return (this.fresh(channelId) ?? (await this.readAndKeep(channelId))).quiz;
  }

  /** What was read of the channel within CHANNEL_LANGUAGE_TTL_MS; an older reading is dropped. */
  private fresh(channelId: string): Known | undefined {
    const known = this.known.get(channelId);
    if (!known) return undefined;
    if (known.until > this.clock()) return known;
    this.known.delete(channelId);
    return undefined;
  }

  private readAndKeep(channelId: string): Promise<Found> {
    const under = this.reading.get(channelId);
    if (under && under.forgets === this.forgets) return under.found;
    const forgets = this.forgets;
    const found = this.read(channelId).then((subscription) => {
      const read = { language: subscription?.language, quiz: subscription?.quiz === true };
      if (forgets === this.forgets) this.remember(channelId, read);
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

  private remember(channelId: string, found: Found): void {
    this.known.delete(channelId);
    if (this.known.size >= this.kept) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
    this.known.set(channelId, { ...found, until: this.clock() + CHANNEL_LANGUAGE_TTL_MS });
  }
}
