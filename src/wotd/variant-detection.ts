/**
 * Which date format the service speaks. A date sent in the wrong format gets no error from variant B (a 404 or an
 * empty page), so a negative answer is trusted only once the variant is verified: by the dates in the service's
 * answers, by the store's record of an earlier check, or by a probe that sends no date.
 */
import type { WotdCache } from './cache.ts';
import { wireFormat, type IsoDate, type Variant } from './dates.ts';
import type { Endpoint } from './endpoint-limiters.ts';
import { WotdError } from './errors.ts';
import type { Flight } from './flight.ts';
import type { UpstreamAnswer } from './upstream-request.ts';
import { parseEntry, sniffVariant } from './wire.ts';

/** An undated request to the service on behalf of `flight`. */
export type AskUpstream = <T>(flight: Flight<T>, path: Endpoint, params: Record<string, string>) => Promise<UpstreamAnswer>;

export interface VariantDetectionOptions {
  configured: Variant | 'auto';
  baseUrl: string;
  cache: WotdCache;
  today: () => IsoDate;
  ask: AskUpstream;
  onWarning?: (message: string) => void;
}

export class VariantDetector {
  readonly configured: Variant | 'auto';
  /** The date format requests go out in: configured, guessed or verified. */
  private currentVariant: Variant;
  /** The service's own answers (or the store's record of them) showed `current` to be its format. */
  private isVerified = false;
  private probing: Promise<Variant | null> | null = null;
  private warned = false;

  constructor(private readonly options: VariantDetectionOptions) {
    this.configured = options.configured;
    this.currentVariant = this.configured === 'auto' ? 'A' : this.configured;
  }

  get isAuto(): boolean {
    return this.configured === 'auto';
  }

  get current(): Variant {
    return this.currentVariant;
  }

  get verified(): boolean {
    return this.isVerified;
  }

  /** As configured (until the service contradicts it), or detected; null until an 'auto' detector has verified it. */
  get variant(): Variant | null {
    return this.isAuto && !this.isVerified ? null : this.currentVariant;
  }

  /** The variant a body is written in; a configured variant the body contradicts is corrected (and said once). */
  variantOf(body: unknown): Variant {
    const sniffed = sniffVariant(body);
    if (sniffed === null) return this.currentVariant;
    if (!this.isVerified || sniffed !== this.currentVariant) this.adopt(sniffed);
    return sniffed;
  }

  /**
   * Whether a negative answer to a dated request sent in format `sent` can be believed: 'retry' when the variant,
   * now verified, turned out to be another; 'unknown' when the service would not tell.
   */
  async trustNegative<T>(flight: Flight<T>, sent: Variant): Promise<'trusted' | 'retry' | 'unknown'> {
    const variant = await this.ensure(flight);
    if (variant === null) return 'unknown';
    return variant === sent ? 'trusted' : 'retry';
  }

  /** The verified variant, asking the service once (shared by every lookup) when it is not known yet. */
  async ensure<T>(flight: Flight<T>): Promise<Variant | null> {
    for (;;) {
      if (this.isVerified) return this.currentVariant;
      if (this.probing) {
        // Another lookup is asking; if its callers give up, ask again on this one's behalf.
        const probe = this.probing;
        try {
          return await probe;
        } catch {
          if (this.probing === probe) this.probing = null;
          continue;
        }
      }
      const remembered = await this.options.cache.getVariant(this.options.baseUrl);
      if (remembered) {
        this.adopt(remembered);
        return remembered;
      }
      const probe = this.probe(flight);
      this.probing = probe;
      try {
        return await probe;
      } finally {
        if (this.probing === probe) this.probing = null;
      }
    }
  }

  /** The service was seen to speak `variant`: use it, remember it, and warn once if the setting said otherwise. */
  private adopt(variant: Variant): void {
    if (this.configured !== 'auto' && this.configured !== variant && !this.warned) {
      this.warned = true;
      this.options.onWarning?.(
        `WOTD_API_VARIANT is ${this.configured}, but ${this.options.baseUrl} writes dates as ${wireFormat(variant)} ` +
          `(variant ${variant}); using ${variant}. Set WOTD_API_VARIANT=${variant} or auto to silence this.`,
      );
    }
    this.currentVariant = variant;
    this.isVerified = true;
    void this.options.cache.putVariant(this.options.baseUrl, variant);
  }

  /**
   * Asks questions whose answers show the date format without sending a date: today's entry, then the page
   * before today, then /metadata (only variant A has it). Null when none of them tells.
   */
  private async probe<T>(flight: Flight<T>): Promise<Variant | null> {
    const today = this.options.today();
    const entry = await this.options.ask(flight, '/query', {});
    if (entry.kind === 'ok') {
      if (sniffVariant(entry.body) === null) {
        throw new WotdError('bad_response', "The service's entry for today has no date in either known format");
      }
      const variant = this.variantOf(entry.body);
      await this.options.cache.putEntries([parseEntry(entry.body, variant)], today);
      return variant;
    }
    const page = await this.options.ask(flight, '/query_previous', { limit: '1' });
    if (page.kind === 'ok' && sniffVariant(page.body) !== null) return this.variantOf(page.body);
    const metadata = await this.options.ask(flight, '/metadata', {});
    if (metadata.kind === 'ok' && typeof metadata.body === 'object' && metadata.body !== null && 'version' in metadata.body) {
      this.adopt('A');
      return 'A';
    }
    return null;
  }
}
