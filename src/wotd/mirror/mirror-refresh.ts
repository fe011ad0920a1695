/**
 * Keeps the mirror current: loads the stored copy, and when a refresh is due (at start when none was made in the
 * last day, then once a day shortly after midnight UTC, sooner with back-off after a failure) it
 * 1. asks the site's listing for the newest snapshot and downloads it only when it is newer than the copy held or
 *    has changed (a conditional request: 304 keeps the copy); a failing listing or download keeps the copy;
 * 2. checks the file (snapshot-file.ts) and installs it (mirror-store.ts), keeping the days after it the copy had;
 * 3. fills the days between the mirror's last day and yesterday with `/query_previous` pages through the adapter
 *    (a handful of requests, each inside the rate limit and the shared budget), and installs that too.
 *
 * Processes sharing one store take turns: a refresh is claimed in the shared refresh state under the store lock
 * (RedisLock in cluster mode), so one process downloads and the others load the copy it installs at their next
 * check (every FOLLOW_INTERVAL_MS, or CLAIM_POLL_MS while the refresh is under way).
 */
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Logger } from '../../config/logger.ts';
import { isStoreError } from '../../store/store-watch.ts';
import { systemClock, systemTimers, type Clock, type TimerHandle, type Timers } from '../clock.ts';
import { addDays, utcDateOf, type IsoDate } from '../dates.ts';
import type { Entry } from '../entry.ts';
import type { FetchLike } from '../http-client.ts';
import type { HistoryPage, Lookup, LookupOptions } from '../lookup.ts';
import type { SiteRequester } from '../upstream-request.ts';
import { MirrorHolder } from './mirror-holder.ts';
import { MirrorModel } from './mirror-model.ts';
import { describeSource, sourceKey, type MirrorSource } from './mirror-source.ts';
import { MirrorSwapLost, type MirrorRecord, type MirrorStore, type RefreshOutcome, type RefreshState, type SnapshotOrigin } from './mirror-store.ts';
import { DEFAULT_MAX_SNAPSHOT_BYTES, downloadSnapshot, fetchListing, type Validators } from './site-client.ts';
import { checkSqliteHeader, copyBounded, readSnapshotFile, SnapshotRefused, withPrivateTempFile, type SnapshotContents } from './snapshot-file.ts';
import { lastDayOfMonth, snapshotMonth } from './snapshot-listing.ts';

/** How often a process looks for a copy another process installed, and whether a refresh is due. */
export const FOLLOW_INTERVAL_MS = 15 * 60_000;
/** A refresh claimed longer ago than this is taken to have died with its process. */
const CLAIM_MS = 10 * 60_000;
/** How often a process looks again while another one is refreshing. */
const CLAIM_POLL_MS = 30_000;
/** The daily refresh runs this long after midnight UTC (plus up to DAILY_JITTER_MS), when yesterday is complete. */
const DAILY_OFFSET_MS = 10 * 60_000;
const DAILY_JITTER_MS = 20 * 60_000;
/** Back-off after failures in a row: 5 minutes, doubling, at most 6 hours. */
const RETRY_BASE_MS = 5 * 60_000;
const RETRY_MAX_MS = 6 * 60 * 60_000;
/** After a 429 the site's window (a minute) passes before anything else is asked. */
const AFTER_429_MS = 60_000;
/** How long close() waits for a round under way. */
const CLOSE_WAIT_MS = 3_000;
/** History pages one refresh asks for at most (8 days each); the rest wait for the next run, soon after. */
export const MAX_FILL_PAGES = 8;
const FILL_AGAIN_MS = 15 * 60_000;
const PAGE_DAYS = 8;
/** How long a refresh's request waits for the limiter and the shared budget (it is background work). */
const REQUEST_WAIT_MS = 2 * 60_000;

/** What the refresher needs of the adapter: today, history pages, and requests to the site under its budget. */
export interface MirrorLookup extends SiteRequester {
  today(): IsoDate;
  getPrevious(date: IsoDate | undefined, limit: number, options?: LookupOptions): Promise<Lookup<HistoryPage>>;
}

export interface MirrorRefresherOptions {
  source: MirrorSource;
  store: MirrorStore;
  holder: MirrorHolder;
  lookup: MirrorLookup;
  logger: Logger;
  now?: Clock;
  timers?: Timers;
  random?: () => number;
  fetch?: FetchLike;
  /** How long the site may take to answer or to send the next bytes (default 10 s). */
  timeoutMs?: number;
  /** A download's whole deadline (default 5 minutes). */
  downloadDeadlineMs?: number;
  /** The largest snapshot accepted (default 50 MB). */
  maxBytes?: number;
  maxRows?: number;
  /** Where the private temporary directory of a download is made (default the system's). */
  tempParent?: string;
  /** This process in the shared claim (default a random id). */
  owner?: string;
}

export interface RefreshReport {
  outcome: RefreshOutcome;
  detail: string;
  at: number;
}

/** What /healthz, the metrics and the console banner show of the mirror. */
export interface MirrorStatus {
  source: string;
  /** A mirror is loaded and answering. */
  inUse: boolean;
  rows: number;
  newest: IsoDate | null;
  coveredThrough: IsoDate | null;
  /** The snapshot file the copy came from. */
  snapshot: string | null;
  skippedRows: number;
  /** The last refresh of any process sharing the store. */
  lastRefresh: RefreshReport | null;
  nextRefreshAt: number | null;
  /** This process's refreshes, by outcome. */
  refreshes: Record<RefreshOutcome, number>;
}

type SnapshotStep =
  | { outcome: 'unchanged' | 'unavailable'; detail: string }
  | { outcome: 'failed'; detail: string; retryAfterMs: number | null }
  | { outcome: 'refused'; detail: string; refused: SnapshotOrigin | null }
  | { outcome: 'updated'; detail: string; contents: SnapshotContents; origin: SnapshotOrigin };

export class MirrorRefresher {
  private readonly now: Clock;
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly owner: string;
  private readonly key: string;
  private readonly abort = new AbortController();
  private timer: TimerHandle | null = null;
  private running: Promise<RefreshReport | null> | null = null;
  private closed = false;
  private record: MirrorRecord | null = null;
  private state: RefreshState | null = null;
  private damaged: string | null = null;
  private readonly counts: Record<RefreshOutcome, number> = { updated: 0, unchanged: 0, unavailable: 0, refused: 0, failed: 0 };

  constructor(private readonly options: MirrorRefresherOptions) {
    this.now = options.now ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.random = options.random ?? Math.random;
    this.owner = options.owner ?? `${process.pid}-${randomBytes(4).toString('hex')}`;
    this.key = sourceKey(options.source);
  }

  /** Loads the stored copy and refreshes if due, now and then every FOLLOW_INTERVAL_MS (or when the next refresh is due). */
  start(): void {
    this.schedule(0);
  }

  status(): MirrorStatus {
    const model = this.options.holder.current();
    const record = this.record;
    const last = this.state?.source === this.key ? this.state.lastRefresh : null;
    return {
      source: describeSource(this.options.source),
      inUse: model !== null,
      rows: model?.rows ?? 0,
      newest: model?.newest ?? null,
      coveredThrough: model?.coveredThrough ?? null,
      snapshot: record?.snapshot?.name ?? null,
      skippedRows: record?.skippedRows ?? 0,
      lastRefresh: last,
      nextRefreshAt: this.state?.source === this.key ? this.state.nextAt : null,
      refreshes: { ...this.counts },
    };
  }

  /**
   * One round: load a copy another process installed, then refresh if due and no other process is at it. Returns
   * this process's refresh report, or null when it ran none. A store failure rejects (nothing was changed).
   */
  runOnce(): Promise<RefreshReport | null> {
    if (this.running) return this.running;
    const run = this.round().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /**
   * Stops the timer and any download under way; resolves when the round under way has ended, or after CLOSE_WAIT_MS
   * (a page it waits for ends when the adapter closes). A round cut short records nothing but the end of its claim.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    const running = this.running;
    if (!running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      void this.runOnce()
        .catch((error: unknown) => {
          if (this.closed) return;
          this.options.logger.error({ err: error }, `mirror: the refresh failed on the store (${oneLine(error)}); the mirror in use is kept`);
        })
        .finally(() => this.schedule(this.nextDelay()));
    }, Math.max(0, delayMs));
  }

  /**
   * Until the next look: the due refresh, or FOLLOW_INTERVAL_MS, whichever is sooner; CLAIM_POLL_MS while another
   * process is refreshing, so its copy is taken up soon after it is installed.
   */
  private nextDelay(): number {
    const now = this.nowMs();
    const claim = this.state?.claim;
    if (claim && claim.owner !== this.owner && claim.until > now) return Math.min(CLAIM_POLL_MS, FOLLOW_INTERVAL_MS);
    const due = this.state?.source === this.key ? this.state.nextAt - now : 0;
    return Math.min(FOLLOW_INTERVAL_MS, Math.max(1_000, due));
  }

  private async round(): Promise<RefreshReport | null> {
    await this.follow();
    if (!(await this.claim())) return null;
    let report: RefreshReport | null = null;
    let refused: SnapshotOrigin | null | undefined;
    let retryAfterMs: number | null = null;
    let fillIncomplete = false;
    try {
      ({ report, refused, retryAfterMs, fillIncomplete } = await this.refresh());
    } catch (error) {
      report = { outcome: 'failed', detail: `the refresh failed: ${oneLine(error)}; keeping the mirror in use`, at: this.nowMs() };
    } finally {
      // Stopped partway (the bot is shutting down): not a failure to back off from, only a claim to give back.
      if (this.closed) await this.abandon();
      else await this.release(report, refused, retryAfterMs, fillIncomplete);
    }
    if (this.closed) return null;
    this.counts[report.outcome]++;
    const line = `mirror: ${report.detail}`;
    if (report.outcome === 'failed' || report.outcome === 'refused') this.options.logger.warn({ mirror: { outcome: report.outcome, source: describeSource(this.options.source) } }, line);
    else this.options.logger.info({ mirror: { outcome: report.outcome, rows: this.options.holder.current()?.rows ?? 0 } }, line);
    return report;
  }

  /** Loads the stored copy when it is not the one in use (installed by another process, or found at start). */
  private async follow(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const record = await this.options.store.current();
      this.state = await this.options.store.readState();
      if (!record || record.source !== this.key) return;
      if (record.generation === this.options.holder.loadedGeneration || record.generation === this.damaged) {
        this.record = record;
        return;
      }
      try {
        const entries = await this.options.store.entries(record);
        this.options.holder.swap(MirrorModel.build(entries, record.coveredThrough, record.holes), record.generation);
        this.record = record;
        return;
      } catch (error) {
        if (isStoreError(error)) throw error;
        // A chunk gone: another process may have swapped in a newer copy meanwhile; look again.
        const again = await this.options.store.current();
        if (again?.generation === record.generation) {
          this.damaged = record.generation;
          this.options.logger.error(`mirror: the stored copy is damaged (${oneLine(error)}); it is not used, and the next refresh downloads afresh`);
          return;
        }
      }
    }
  }

  private claim(): Promise<boolean> {
    return this.options.store.updateState((state) => {
      const now = this.nowMs();
      const due = state.source !== this.key || now >= state.nextAt || this.damaged !== null;
      const taken = state.claim !== null && state.claim.until > now && state.claim.owner !== this.owner;
      if (!due || taken) {
        this.state = state;
        return { state: null, result: false };
      }
      return { state: { ...state, source: this.key, claim: { owner: this.owner, until: now + CLAIM_MS } }, result: true };
    });
  }

  private async abandon(): Promise<void> {
    await this.options.store.updateState((state) => ({ state: state.claim?.owner === this.owner ? { ...state, claim: null } : null, result: null }));
  }

  private async release(report: RefreshReport | null, refused: SnapshotOrigin | null | undefined, retryAfterMs: number | null, fillIncomplete: boolean): Promise<void> {
    this.state = await this.options.store.updateState((state) => {
      const now = this.nowMs();
      const failed = report === null || report.outcome === 'failed' || report.outcome === 'refused';
      const failures = failed ? (state.source === this.key ? state.failures : 0) + 1 : 0;
      const backoff = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(20, failures - 1));
      const nextAt = failed
        ? now + Math.round(Math.max(retryAfterMs ?? 0, backoff * (0.75 + this.random() * 0.5)))
        : fillIncomplete
          ? now + FILL_AGAIN_MS
          : this.nextDaily(now);
      const next: RefreshState = {
        ...state,
        source: this.key,
        lastRefresh: report ?? state.lastRefresh,
        nextAt,
        failures,
        claim: null,
        refused: refused === undefined ? (state.source === this.key ? state.refused : null) : refused,
      };
      return { state: next, result: next };
    });
  }

  private nextDaily(now: number): number {
    const midnight = Date.parse(`${addDays(utcDateOf(new Date(now)), 1)}T00:00:00Z`);
    return midnight + DAILY_OFFSET_MS + Math.floor(this.random() * DAILY_JITTER_MS);
  }

  private async refresh(): Promise<{ report: RefreshReport; refused?: SnapshotOrigin | null; retryAfterMs: number | null; fillIncomplete: boolean }> {
    const today = this.options.lookup.today();
    const yesterday = addDays(today, -1);
    // The installed copy: the swap is made against it, whatever its source; only one of ours is built on.
    const current = await this.options.store.current();
    let record = current?.source === this.key ? current : null;
    const trusted = record !== null && record.generation === this.options.holder.loadedGeneration && record.generation !== this.damaged;
    let base = trusted ? this.options.holder.current() : null;
    const state = this.state ?? (await this.options.store.readState());
    const step = await this.snapshotStep(trusted ? record : null, state.source === this.key ? state.refused : null, today, yesterday);
    const details = [step.detail];
    let installed = false;
    if (step.outcome === 'updated') {
      const { contents, origin } = step;
      const newest = contents.newest ?? yesterday;
      const keep = base && base.coveredThrough > newest ? base : null;
      const entries = [...contents.entries, ...(keep?.entries().filter((entry) => entry.date > newest) ?? [])];
      const holes = [...contents.holes, ...(keep?.holes.filter((hole) => hole > newest) ?? [])];
      const coveredThrough = keep ? keep.coveredThrough : newest;
      ({ record, model: base } = await this.install(entries, { source: this.key, coveredThrough, holes, snapshot: origin, skippedRows: sumSkipped(contents) }, current));
      installed = true;
    }
    let fillIncomplete = false;
    let fillFailed = false;
    if (base && record) {
      const fill = await this.fill(base, record, today);
      if (fill.detail) details.push(fill.detail);
      fillIncomplete = fill.incomplete;
      fillFailed = fill.failed;
      installed ||= fill.installed;
    }
    const outcome: RefreshOutcome =
      step.outcome === 'failed' || step.outcome === 'refused'
        ? step.outcome
        : fillFailed
          ? 'failed'
          : installed
            ? 'updated'
            : step.outcome === 'unavailable' && !base
              ? 'unavailable'
              : 'unchanged';
    return {
      report: { outcome, detail: details.join('; '), at: this.nowMs() },
      ...(step.outcome === 'refused' ? { refused: step.refused } : step.outcome === 'updated' ? { refused: null } : {}),
      retryAfterMs: step.outcome === 'failed' ? step.retryAfterMs : null,
      fillIncomplete,
    };
  }

  /** The newest snapshot, if it is one to install. */
  private async snapshotStep(record: MirrorRecord | null, refused: SnapshotOrigin | null, today: IsoDate, yesterday: IsoDate): Promise<SnapshotStep> {
    const { source } = this.options;
    if (source.kind === 'file') return this.localStep(source.path, record, refused, yesterday);
    if (source.kind === 'url') return this.fileStep(source.url, basename(new URL(source.url).pathname), record, refused, yesterday);
    const listing = await this.options.lookup.siteRequest('/databases', 'background', REQUEST_WAIT_MS, () =>
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
      const answer = await this.options.lookup.siteRequest('/databases/download', 'background', REQUEST_WAIT_MS, () =>
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

  /**
   * Fills the days after the mirror's last covered day up to yesterday. First the page before today: when it reaches
   * back into the mirror (the usual day, or a service with no newer words), it alone fills the gap. Otherwise pages
   * of PAGE_DAYS go forward from the mirror's last day, each ending on the day after its span, so each page (newest
   * first, days without a word skipped) accounts for every day it spans and the coverage grows without a gap until
   * it meets the first page. Installs what it got, even when a page fails partway.
   */
  private async fill(base: MirrorModel, record: MirrorRecord, today: IsoDate): Promise<{ detail: string | null; installed: boolean; failed: boolean; incomplete: boolean }> {
    const yesterday = addDays(today, -1);
    let covered = base.coveredThrough;
    if (covered >= yesterday) return { detail: null, installed: false, failed: false, incomplete: false };
    const added: Entry[] = [];
    let failure: string | null = null;
    const ask = async (before: IsoDate): Promise<HistoryPage | null> => {
      try {
        return (await this.options.lookup.getPrevious(before, PAGE_DAYS, { priority: 'background', maxWaitMs: REQUEST_WAIT_MS })).value;
      } catch (error) {
        failure = oneLine(error);
        return null;
      }
    };
    const recent = await ask(today);
    const start = covered;
    if (recent && recent.entries.some((entry) => entry.date <= start)) {
      added.push(...recent.entries.filter((entry) => entry.date > start));
      covered = yesterday;
    } else if (recent) {
      // The page spans its oldest entry to yesterday: fill forward from the mirror until it is met.
      const meet = recent.entries.at(-1)?.date ?? today;
      for (let pages = 1; covered < addDays(meet, -1) && pages < MAX_FILL_PAGES; pages++) {
        const end = addDays(covered, PAGE_DAYS + 1);
        const before = end < meet ? end : meet;
        const page = await ask(before);
        if (!page) break;
        if (!(page.entries.length >= PAGE_DAYS || page.entries.some((entry) => entry.date <= covered))) {
          failure = `the service's page before ${before} does not reach ${covered}, the mirror's last day`;
          break;
        }
        const after = covered;
        added.push(...page.entries.filter((entry) => entry.date > after && entry.date < before));
        covered = addDays(before, -1);
      }
      if (covered >= addDays(meet, -1)) {
        const after = covered;
        added.push(...recent.entries.filter((entry) => entry.date > after));
        covered = yesterday;
      }
    }
    const stopped: string | null = failure;
    const incomplete = stopped === null && covered < yesterday;
    if (covered === base.coveredThrough) {
      return { detail: `filling the days after ${covered} failed (${stopped ?? 'no page'})`, installed: false, failed: true, incomplete: false };
    }
    await this.install([...base.entries(), ...added], { source: this.key, coveredThrough: covered, holes: [...base.holes], snapshot: record.snapshot, skippedRows: record.skippedRows }, record);
    const detail = `filled ${added.length} entries through ${covered}${stopped ? `, then stopped (${stopped})` : incomplete ? ', more next time' : ''}`;
    return { detail, installed: true, failed: stopped !== null, incomplete };
  }

  /** Stores and swaps in a new copy; a copy installed meanwhile by another process wins and is loaded instead. */
  private async install(entries: readonly Entry[], content: Parameters<MirrorStore['install']>[1], expected: MirrorRecord | null): Promise<{ record: MirrorRecord; model: MirrorModel }> {
    const model = MirrorModel.build(entries, content.coveredThrough, content.holes);
    // Chunks of the installed copy are reused only when that copy loaded whole here: a damaged one's are rewritten.
    const whole = expected !== null && expected.generation === this.options.holder.loadedGeneration && expected.generation !== this.damaged;
    let installed;
    try {
      installed = await this.options.store.install(model.entries(), content, expected, this.nowMs(), whole);
    } catch (error) {
      if (error instanceof MirrorSwapLost) {
        await this.follow();
        throw error;
      }
      throw error;
    }
    if (installed.cleanupError) {
      this.options.logger.warn({ err: installed.cleanupError }, 'mirror: could not delete the previous copy\'s chunks; they are tried again at the next install');
    }
    this.options.holder.swap(model, installed.record.generation);
    this.record = installed.record;
    this.damaged = null;
    return { record: installed.record, model };
  }

  private siteOptions() {
    return {
      timeoutMs: this.options.timeoutMs ?? 10_000,
      now: this.nowMs(),
      signal: this.abort.signal,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
    };
  }

  private nowMs(): number {
    return this.now().getTime();
  }
}

function sumSkipped(contents: SnapshotContents): number {
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
