import type { Subscription } from '../subscription.ts';

/** How long a channel's language, once read, answers without reading the store again. */
export const CHANNEL_LANGUAGE_TTL_MS = 10_000;
/** Channels remembered at most (the oldest read is forgotten first). */
export const CHANNEL_LANGUAGES_KEPT = 10_000;

interface Known {
  language: string | undefined;
  until: number;
}

/**
 * The language of each channel's subscription, which every public reply asks for (replies/i18n/reply-locale.ts):
 * kept for CHANNEL_LANGUAGE_TTL_MS after a read, so a busy channel is not one store read per command. This
 * process's own writes of a channel's record forget it at once (and a read that was under way when they did is
 * not kept), so its commands always see their own changes; a change made by another process (another member of
 * a cluster, a CLI command) shows within that time, as `dm-notices` does.
 */
export class ChannelLanguages {
  private readonly known = new Map<string, Known>();
  /** Counts forgets: a read that saw one while it was under way may hold what was just replaced. */
  private forgets = 0;

  constructor(
    private readonly read: (channelId: string) => Promise<Subscription | null>,
    private readonly clock: () => number = () => performance.now(),
    private readonly kept = CHANNEL_LANGUAGES_KEPT,
  ) {}

  /** The channel's language when it was read recently (`language` undefined: it has none); undefined when not. */
  cached(channelId: string): { language: string | undefined } | undefined {
    const known = this.known.get(channelId);
    if (!known) return undefined;
    if (known.until > this.clock()) return known;
    this.known.delete(channelId);
    return undefined;
  }

  async languageOf(channelId: string): Promise<string | undefined> {
    const known = this.cached(channelId);
    if (known) return known.language;
    const forgets = this.forgets;
    const language = (await this.read(channelId))?.language;
    if (forgets === this.forgets) this.remember(channelId, language);
    return language;
  }

  /** The channels' records were just written or removed by this process. */
  forget(channelIds: Iterable<string>): void {
    this.forgets += 1;
    for (const channelId of channelIds) this.known.delete(channelId);
  }

  private remember(channelId: string, language: string | undefined): void {
    this.known.delete(channelId);
    if (this.known.size >= this.kept) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
    this.known.set(channelId, { language, until: this.clock() + CHANNEL_LANGUAGE_TTL_MS });
  }
}
