import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/config/logger.ts';
import { DeliveryError, type ChannelPoster, type DailyMessage, type DeliveryFailureKind } from '../../src/schedule/poster.ts';
import type { Subscription } from '../../src/schedule/subscription.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { WotdError } from '../../src/wotd/errors.ts';
import type { Lookup, LookupOptions } from '../../src/wotd/lookup.ts';

/** A temp dir holding a real SQLite store file; `cleanup` removes it. */
export function tempStore(): { url: string; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'wotd-schedule-'));
  return { url: `sqlite://${join(dir, 'store.sqlite')}`, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function makeSubscription(overrides: Partial<Subscription> = {}): Subscription {
  return {
    guildId: 'g1',
    channelId: 'c1',
    channelName: 'words',
    time: '09:00',
    timeZone: 'UTC',
    roleId: null,
    createdBy: 'u1',
    createdAt: '2026-06-01T00:00:00.000Z',
    enabledAt: '2026-06-01T00:00:00.000Z',
    status: { state: 'active' },
    ...overrides,
  };
}

export function entryFor(date: string): Entry {
  return { date, word: `word-${date}`, pos: 'noun', ipa: '/wɜːd/', definition: `The word for ${date}.` };
}

/** A lookup over a fixed set of published days; counts calls and can be told a day is not out yet. */
export class FixedLookup {
  readonly calls: Array<{ date: string | undefined; options: LookupOptions | undefined }> = [];
  readonly unpublished = new Set<string>();
  /** The service's today, for commands that show today's word (the preview). */
  todayIs = '2026-06-15';

  today(): string {
    return this.todayIs;
  }

  async getEntry(date?: string, options?: LookupOptions): Promise<Lookup<Entry>> {
    this.calls.push({ date, options });
    if (!date || this.unpublished.has(date)) throw new WotdError('not_found', `No word for ${date ?? 'today'} yet`);
    return { value: entryFor(date), stale: false, fromCache: false };
  }
}

/**
 * Like Discord with enforce_nonce: a repeated nonce in a channel returns the first message, until
 * `nonceWindowPassed` is set (Discord keeps nonces a few minutes). Faults per channel.
 */
export class RecordingPoster implements ChannelPoster {
  readonly messages: Array<DailyMessage & { id: string }> = [];
  readonly attempts: DailyMessage[] = [];
  readonly lookups: string[] = [];
  readonly faults = new Map<string, DeliveryFailureKind>();
  /** Faults of findEarlierPost, per channel; `faults` are the posts'. */
  readonly lookupFaults = new Map<string, DeliveryFailureKind>();
  nonceWindowPassed = false;
  inFlight = 0;
  maxInFlight = 0;
  private nextId = 1;

  async findEarlierPost(message: DailyMessage): Promise<{ messageId: string } | null> {
    this.lookups.push(message.channelId);
    const fault = this.lookupFaults.get(message.channelId);
    if (fault) throw new DeliveryError(fault, fault === 'forbidden' ? { kind: 'missingAccess' } : fault === 'gone' ? { kind: 'channelGone' } : { kind: 'httpStatus', status: 503 });
    const earlier = this.messages.find((m) => m.channelId === message.channelId && m.embeds[0]?.footer?.text === message.embeds[0]?.footer?.text && m.embeds[0]?.title === message.embeds[0]?.title);
    return earlier ? { messageId: earlier.id } : null;
  }

  async post(message: DailyMessage): Promise<{ messageId: string }> {
    this.attempts.push(message);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      const fault = this.faults.get(message.channelId);
      if (fault) throw new DeliveryError(fault, fault === 'forbidden' ? { kind: 'missingPermissions' } : fault === 'gone' ? { kind: 'channelGone' } : { kind: 'httpStatus', status: 503 });
      const earlier = this.nonceWindowPassed ? undefined : this.messages.find((m) => m.channelId === message.channelId && m.nonce === message.nonce);
      if (earlier) return { messageId: earlier.id };
      const id = String(this.nextId++);
      this.messages.push({ ...message, id });
      return { messageId: id };
    } finally {
      this.inFlight -= 1;
    }
  }
}

/** A real pino logger whose lines are kept for assertions. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}
