/**
 * One refresh's look at the newest snapshot (mirror-refresh.ts step 1): the site's listing and a download, one file's
 * URL, or a local file; each revalidated against the copy held (or the file refused last), then read and checked
 * (snapshot-file.ts) in a private temporary directory deleted afterwards.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { IsoDate } from '../dates.ts';
import type { FetchLike } from '../http-client.ts';
import type { SiteRequester } from '../upstream-request.ts';
import { describeSource, type MirrorSource } from './mirror-source.ts';
import type { MirrorRecord, SnapshotOrigin } from './mirror-store.ts';
import { DEFAULT_MAX_SNAPSHOT_BYTES, downloadSnapshot, fetchListing, type Validators } from './site-client.ts';
import { checkSqliteHeader, copyBounded, readSnapshotFile, SnapshotRefused, withPrivateTempFile, type SnapshotContents } from './snapshot-file.ts';
import { lastDayOfMonth, snapshotMonth } from './snapshot-listing.ts';

/** After a 429 the site's window (a minute) passes before anything else is asked. */
const AFTER_429_MS = 60_000;
/** How long a request to the site waits for the limiter and the shared budget (it is background work). */
export const REQUEST_WAIT_MS = 2 * 60_000;

export type SnapshotStep =
  | { outcome: 'unchanged' | 'unavailable'; detail: string }
  | { outcome: 'failed'; detail: string; retryAfterMs: number | null }
  | { outcome: 'refused'; detail: string; refused: SnapshotOrigin | null }
  | { outcome: 'updated'; detail: string; contents: SnapshotContents; origin: SnapshotOrigin };

export interface SnapshotFetchOptions {
  source: MirrorSource;
  /** The adapter: the site's requests go through its limiter and shared budget. */
  requester: SiteRequester;
  fetch?: FetchLike;
  /** How long the site may take to answer or to send the next bytes. */
  timeoutMs: number;
  downloadDeadlineMs?: number;
  maxBytes?: number;
  maxRows?: number;
  tempParent?: string;
  /** Stops a request under way (the mirror is closing). */
  signal: AbortSignal;
  now: () => number;
}

export class SnapshotFetcher {
  constructor(private readonly options: SnapshotFetchOptions) {}

  /**
   * The newest snapshot, if it is one to install: `record` the copy held (its validators are sent back), `refused`
   * the file refused last (not downloaded again while unchanged).
   */
  newest(record: MirrorRecord | null, refused: SnapshotOrigin | null, today: IsoDate, yesterday: IsoDate): Promise<SnapshotStep> {
    return this.snapshotStep(record, refused, today, yesterday);
  }

  private async snapshotStep(record: MirrorRecord | null, refused: SnapshotOrigin | null, today: IsoDate, yesterday: IsoDate): Promise<SnapshotStep> {
    const { source } = this.options;
    if (source.kind === 'file') return this.localStep(source.path, record, refused, yesterday);
    if (source.kind === 'url') return this.fileStep(source.url, basename(new URL(source.url).pathname), record, refused, yesterday);
    const listing = await this.options.requester.siteRequest('/databases', 'background', REQUEST_WAIT_MS, () =>
      fetchListing(source.origin, this.siteOptions()),
    );
    if (listing.kind === 'none') return { outcome: 'unavailable', detail: `${listing.detail}; the service is asked as before` };
    if (listing.kind === 'failed') {
      const wait = listing.result === 'rate_limited' ? Math.max(listing.retryAfterMs ?? 0, AFTER_429_MS) : listing.retryAfterMs;
      return { outcome: 'failed', detail: `the snapshot listing failed (${listing.detail}); keeping the mirror in use`, retryAfterMs: wait };
    }
    // A month after this one is not a snapshot yet, whatever a page says.
    const newest = listing.snapshots.find((snapshot) => snapshot.month <= today.slice(0, 7));
    if (!newest) return { outcome: 'unavailable', detail: `${describeSource(source)} lists no snapshot; the service is asked as before` };
    const heldMonth = record?.snapshot ? snapshotMonth(record.snapshot.name) : null;
    if (heldMonth !== null && heldMonth > newest.month) {
      return { outcome: 'unchanged', detail: `the copy of ${record?.snapshot?.name ?? ''} is newer than any listed` };
    }
    return this.fileStep(newest.url, newest.name, record, refused, yesterday);
  }

  /** Downloads one snapshot (conditionally, when a copy of it is held or was refused) and reads it. */
  private async fileStep(url: string, name: string, record: MirrorRecord | null, refused: SnapshotOrigin | null, yesterday: IsoDate): Promise<SnapshotStep> {
    const held = record?.snapshot?.location === url ? record.snapshot : null;
    const refusedBefore = refused?.location === url ? refused : null;
    const validators: Validators | null = refusedBefore ?? held;
    return withPrivateTempFile(async (path) => {
      const answer = await this.options.requester.siteRequest('/databases/download', 'background', REQUEST_WAIT_MS, () =>
        downloadSnapshot(url, path, {
          ...this.siteOptions(),
          validators,
          maxBytes: this.options.maxBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES,
          ...(this.options.downloadDeadlineMs !== undefined ? { deadlineMs: this.options.downloadDeadlineMs } : {}),
        }),
      );
      switch (answer.kind) {
        case 'not_modified':
          return refusedBefore
            ? { outcome: 'refused', detail: `${name} is still the file refused before (304); keeping the mirror in use`, refused: refusedBefore }
            : { outcome: 'unchanged', detail: `${name} is unchanged (304)` };
        case 'too_large': {
          // Its validators, when the site sent some, spare downloading the same oversize file again.
          const known = answer.validators.etag !== null || answer.validators.lastModified !== null;
          return { outcome: 'refused', detail: `refused ${name}: ${answer.detail}; keeping the mirror in use`, refused: known ? { location: url, name, ...answer.validators } : null };
        }
        case 'failed': {
          const wait = answer.result === 'rate_limited' ? Math.max(answer.retryAfterMs ?? 0, AFTER_429_MS) : answer.retryAfterMs;
          return { outcome: 'failed', detail: `downloading ${name} failed (${answer.detail}); keeping the mirror in use`, retryAfterMs: wait };
        }
        case 'downloaded':
          return this.readStep(path, name, { location: url, name, ...answer.validators }, yesterday);
      }
    }, this.options.tempParent);
  }

  /** A local snapshot: copied (size-capped) into a private temporary file, then read like a download. */
  private async localStep(path: string, record: MirrorRecord | null, refused: SnapshotOrigin | null, yesterday: IsoDate): Promise<SnapshotStep> {
    const name = basename(path);
    let etag: string;
    try {
      const info = await stat(path);
      etag = `${info.size}-${Math.floor(info.mtimeMs)}`;
    } catch (error) {
      return { outcome: 'failed', detail: `cannot read ${path} (${oneLine(error)}); keeping the mirror in use`, retryAfterMs: null };
    }
    if (record?.snapshot?.location === path && record.snapshot.etag === etag) return { outcome: 'unchanged', detail: `${path} is unchanged` };
    if (refused?.location === path && refused.etag === etag) {
      return { outcome: 'refused', detail: `${path} is still the file refused before; keeping the mirror in use`, refused };
    }
    const origin: SnapshotOrigin = { location: path, name, etag, lastModified: null };
    return withPrivateTempFile(async (copy) => {
      try {
        await copyBounded(path, copy, this.options.maxBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES);
      } catch (error) {
        if (error instanceof SnapshotRefused) return { outcome: 'refused', detail: `refused ${path}: ${error.message}; keeping the mirror in use`, refused: origin };
        return { outcome: 'failed', detail: `cannot read ${path} (${oneLine(error)}); keeping the mirror in use`, retryAfterMs: null };
      }
      return this.readStep(copy, name, origin, yesterday);
    }, this.options.tempParent);
  }

  private async readStep(path: string, name: string, origin: SnapshotOrigin, yesterday: IsoDate): Promise<SnapshotStep> {
    const month = snapshotMonth(name);
    const monthEnd = month === null ? yesterday : lastDayOfMonth(month);
    const lastDate = monthEnd < yesterday ? monthEnd : yesterday;
    try {
      await checkSqliteHeader(path);
      const contents = await readSnapshotFile(path, { lastDate, ...(this.options.maxRows !== undefined ? { maxRows: this.options.maxRows } : {}) });
      const skipped = sumSkipped(contents);
      const note = skipped > 0 ? `, ${skipped} rows skipped (${describeSkipped(contents)}; first: ${contents.firstProblem ?? '?'})` : '';
      return { outcome: 'updated', detail: `installed ${name}: ${contents.entries.length} entries through ${contents.newest ?? '?'}${note}`, contents, origin };
    } catch (error) {
      if (error instanceof SnapshotRefused) return { outcome: 'refused', detail: `refused ${name}: ${error.message}; keeping the mirror in use`, refused: origin };
      throw error;
    }
  }

  private siteOptions() {
    return {
      timeoutMs: this.options.timeoutMs,
      now: this.options.now(),
      signal: this.options.signal,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    };
  }
}

export function sumSkipped(contents: SnapshotContents): number {
  return Object.values(contents.skipped).reduce((sum, count) => sum + count, 0);
}

function describeSkipped(contents: SnapshotContents): string {
  return Object.entries(contents.skipped)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason.replace('_', ' ')}`)
    .join(', ');
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).slice(0, 300);
}
