/**
 * The mirror in the bot's store (Keyv: SQLite, Redis, …; namespace `wotd-mirror`), shared by every process on it.
 *
 * Keys:
 * - `c:<hash>` a chunk: the entries of one calendar year, keyed by a hash of its content, so an install writes only
 *   the years that changed (a day's fill rewrites one year) and never overwrites a chunk another copy uses.
 * - `current` the pointer: which chunks make the installed mirror, and what it covers. An install writes its new
 *   chunks first, then swaps the pointer (compare-and-swap under the store lock), then deletes the chunks only the
 *   old copy used: a reader sees the old copy or the new one, never a mix.
 * - `state` the refresh state every process reads: the last refresh's outcome, when the next one is due, and the
 *   claim of the process running one.
 *
 * Every failure is a StoreError to the caller (counted in the `mirror` store check): a write that did not happen is
 * never taken for done.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { z } from 'zod';
import type { StoreLock } from '../../store/lock.ts';
import { StoreWatch, type StoreCheck } from '../../store/store-watch.ts';
import type { IsoDate } from '../dates.ts';
import { entrySchema, isoDateSchema, type Entry } from '../entry.ts';

export const MIRROR_NAMESPACE = 'wotd-mirror';
const POINTER_KEY = 'current';
const STATE_KEY = 'state';
const SCHEMA = 1;

/** What a snapshot was served as, kept to revalidate it (If-None-Match, If-Modified-Since) instead of downloading it again. */
export interface SnapshotOrigin {
  /** Where it came from: a file's URL, or a local path. */
  location: string;
  /** wotd_YYYY-MM.db, or the local file's name. */
  name: string;
  etag: string | null;
  lastModified: string | null;
}

export interface MirrorRecord {
  schema: typeof SCHEMA;
  generation: string;
  /** The source it was made from (mirror-source.ts sourceKey): a copy of another source is not used. */
  source: string;
  chunks: Array<{ key: string; rows: number }>;
  rows: number;
  coveredThrough: IsoDate;
  holes: IsoDate[];
  snapshot: SnapshotOrigin | null;
  /** Rows the snapshot's file held that were skipped (bad, too large, after its last day). */
  skippedRows: number;
  installedAt: number;
  /** Chunks the copy before this one used and this one does not: deleted after the swap, again at the next. */
  garbage: string[];
}

export type RefreshOutcome = 'updated' | 'unchanged' | 'unavailable' | 'refused' | 'failed';

export interface RefreshState {
  schema: typeof SCHEMA;
  /** The source the state is about (sourceKey); another source's state is not followed. */
  source: string | null;
  lastRefresh: { at: number; outcome: RefreshOutcome; detail: string } | null;
  /** Epoch ms (refresher's clock) before which no process starts a refresh. */
  nextAt: number;
  /** Refreshes that failed in a row (the back-off). */
  failures: number;
  /** A process running a refresh, until when. */
  claim: { owner: string; until: number } | null;
  /** The last file downloaded and refused, so the same bytes are not fetched and refused again. */
  refused: SnapshotOrigin | null;
}

const originSchema = z.object({ location: z.string(), name: z.string(), etag: z.string().nullable(), lastModified: z.string().nullable() });

const recordSchema = z.object({
  schema: z.literal(SCHEMA),
  generation: z.string(),
  source: z.string(),
  chunks: z.array(z.object({ key: z.string(), rows: z.number().int().nonnegative() })),
  rows: z.number().int().nonnegative(),
  coveredThrough: isoDateSchema,
  holes: z.array(isoDateSchema),
  snapshot: originSchema.nullable(),
  skippedRows: z.number().int().nonnegative(),
  installedAt: z.number(),
  garbage: z.array(z.string()),
});

const stateSchema = z.object({
  schema: z.literal(SCHEMA),
  source: z.string().nullable(),
  lastRefresh: z.object({ at: z.number(), outcome: z.enum(['updated', 'unchanged', 'unavailable', 'refused', 'failed']), detail: z.string() }).nullable(),
  nextAt: z.number(),
  failures: z.number().int().nonnegative(),
  claim: z.object({ owner: z.string(), until: z.number() }).nullable(),
  refused: originSchema.nullable(),
});

const chunkSchema = z.object({ schema: z.literal(SCHEMA), entries: z.array(z.unknown()) });

export const EMPTY_STATE: RefreshState = { schema: SCHEMA, source: null, lastRefresh: null, nextAt: 0, failures: 0, claim: null, refused: null };

export type InstallContent = Pick<MirrorRecord, 'source' | 'coveredThrough' | 'holes' | 'snapshot' | 'skippedRows'>;

/** The pointer moved while an install was being written: another process installed first. */
export class MirrorSwapLost extends Error {
  override readonly name = 'MirrorSwapLost';
}

export class MirrorStore {
  /** The mirror's store for /healthz and wotd_bot_store_errors_total. */
  readonly watch: StoreWatch;

  constructor(
    private readonly keyv: Keyv,
    private readonly lock: StoreLock,
  ) {
    this.watch = new StoreWatch('mirror', { read: () => keyv.get(STATE_KEY) }).notesWrites();
  }

  get check(): StoreCheck {
    return this.watch;
  }

  /** The installed copy's pointer, or null when there is none (or it is not one this version wrote). */
  async current(): Promise<MirrorRecord | null> {
    const parsed = recordSchema.safeParse(await this.read(POINTER_KEY));
    return parsed.success ? (parsed.data as MirrorRecord) : null;
  }

  /**
   * The entries of `record`, oldest first. A chunk missing or damaged is an error (the copy is incomplete: the
   * caller reads the pointer again, or downloads afresh). Each entry is checked again on the way in.
   */
  async entries(record: MirrorRecord): Promise<Entry[]> {
    const entries: Entry[] = [];
    for (const { key, rows } of record.chunks) {
      const parsed = chunkSchema.safeParse(await this.read(key));
      if (!parsed.success) throw new Error(`the stored mirror ${record.generation} lacks its chunk ${key}`);
      const chunk = parsed.data.entries.map((value) => entrySchema.safeParse(value));
      if (chunk.length !== rows || chunk.some((entry) => !entry.success)) throw new Error(`the stored mirror's chunk ${key} is damaged`);
      for (const entry of chunk) if (entry.success) entries.push(entry.data);
    }
    return entries.sort((a, b) => (a.date < b.date ? -1 : 1));
  }

  /**
   * Stores `entries` as the new mirror and swaps it in, if the installed copy is still `expected` (its generation,
   * or null for none); otherwise MirrorSwapLost. `reuse`: the chunks `expected` names are all there (it was read
   * whole), so identical ones are not written again. Returns the new pointer, and the error of deleting the chunks
   * only the old copy used (the swap itself succeeded then; they are tried again at the next install).
   */
  async install(
    entries: readonly Entry[],
    content: InstallContent,
    expected: MirrorRecord | null,
    now: number,
    reuse = true,
  ): Promise<{ record: MirrorRecord; cleanupError: Error | null }> {
    const chunks = chunksByYear(entries);
    const held = new Set(expected?.chunks.map((chunk) => chunk.key) ?? []);
    for (const chunk of chunks) {
      if (!(reuse && held.has(chunk.key))) await this.write(chunk.key, { schema: SCHEMA, entries: chunk.entries });
    }
    const keys = new Set(chunks.map((chunk) => chunk.key));
    const garbage = [...new Set([...(expected?.garbage ?? []), ...held])].filter((key) => !keys.has(key));
    const record: MirrorRecord = {
      schema: SCHEMA,
      generation: `${now.toString(36)}-${randomBytes(4).toString('hex')}`,
      chunks: chunks.map(({ key, entries: list }) => ({ key, rows: list.length })),
      rows: entries.length,
      ...content,
      installedAt: now,
      garbage,
    };
    await this.lock.withLock('mirror:swap', async () => {
      const installed = await this.current();
      if ((installed?.generation ?? null) !== (expected?.generation ?? null)) {
        throw new MirrorSwapLost(`another process installed mirror ${installed?.generation ?? '(none)'} first`);
      }
      await this.write(POINTER_KEY, record);
    });
    let cleanupError: Error | null = null;
    for (const key of garbage) {
      try {
        await this.watch.run('write', () => this.keyv.delete(key));
      } catch (error) {
        cleanupError ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    return { record, cleanupError };
  }

  async readState(): Promise<RefreshState> {
    const parsed = stateSchema.safeParse(await this.read(STATE_KEY));
    return parsed.success ? (parsed.data as RefreshState) : { ...EMPTY_STATE };
  }

  /** Changes the refresh state under the store lock: `change` gets the current state and returns the new one, or null to leave it. */
  async updateState<T>(change: (state: RefreshState) => { state: RefreshState | null; result: T }): Promise<T> {
    return this.lock.withLock('mirror:state', async () => {
      const { state, result } = change(await this.readState());
      if (state) await this.write(STATE_KEY, state);
      return result;
    });
  }

  private read(key: string): Promise<unknown> {
    return this.watch.run('read', () => this.keyv.get(key));
  }

  private async write(key: string, value: unknown): Promise<void> {
    const stored = await this.watch.run('write', () => this.keyv.set(key, value));
    if (stored === false) throw this.watch.failed('write', new Error(`the store did not take ${key}`));
  }
}

/** Entries grouped by year, each group keyed by a hash of its content. */
function chunksByYear(entries: readonly Entry[]): Array<{ key: string; entries: Entry[] }> {
  const byYear = new Map<string, Entry[]>();
  for (const entry of [...entries].sort((a, b) => (a.date < b.date ? -1 : 1))) {
    const year = entry.date.slice(0, 4);
    const list = byYear.get(year);
    const plain = { date: entry.date, word: entry.word, pos: entry.pos, ipa: entry.ipa, definition: entry.definition };
    if (list) list.push(plain);
    else byYear.set(year, [plain]);
  }
  return [...byYear.values()].map((list) => ({ key: `c:${createHash('sha256').update(JSON.stringify(list)).digest('hex').slice(0, 40)}`, entries: list }));
}
