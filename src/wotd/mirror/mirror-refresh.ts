/**
 * Keeps the mirror current: loads the stored copy, and when a refresh is due (at start unless one was made since
 * the last daily time, then once a day shortly after midnight UTC, sooner with back-off after a failure) it
 * 1. asks the site's listing for the newest snapshot and downloads it only when it is newer than the copy held or
 *    has changed (a conditional request: 304 keeps the copy); a failing listing or download keeps the copy
 *    (snapshot-fetch.ts);
 * 2. checks the file (snapshot-file.ts) and installs it (mirror-store.ts), keeping the days after it the copy had;
 * 3. fills the days between the mirror's last day and yesterday with `/query_previous` pages through the adapter
 *    (mirror-fill.ts: a handful of requests, each inside the rate limit and the shared budget), and installs that too.
 *
 * Processes sharing one store take turns: a refresh is claimed in the shared refresh state under the store lock
 * (RedisLock in cluster mode), so one process downloads and the others load the copy it installs at their next
 * check (every FOLLOW_INTERVAL_MS, or CLAIM_POLL_MS while the refresh is under way).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../config/logger.ts';
import { isStoreError } from '../../store/store-watch.ts';
import { systemClock, systemTimers, type Clock, type TimerHandle, type Timers } from '../clock.ts';
import { addDays, utcDateOf, type IsoDate } from '../dates.ts';
import type { Entry } from '../entry.ts';
import { MirrorModel } from './mirror-model.ts';
import type { MirrorRefresherOptions, MirrorStatus, RefreshReport } from './mirror-refresh-types.ts';
import { describeSource, sourceKey, type MirrorSource } from './mirror-source.ts';
import { MirrorSwapLost, type MirrorRecord, type MirrorStore, type RefreshOutcome, type RefreshState, type SnapshotOrigin } from './mirror-store.ts';
import { fillDays } from './mirror-fill.ts';
import { REQUEST_WAIT_MS, SnapshotFetcher, sumSkipped } from './snapshot-fetch.ts';

/** How often a process looks for a copy another process installed, and whether a refresh is due. */
export const FOLLOW_INTERVAL_MS = 15 * 60_000;
/** A refresh claimed longer ago than this is taken to have died with its process. */
const CLAIM_MS = 10 * 60_000;
/** How often a process looks again while another one is refreshing. */
const CLAIM_POLL_MS = 30_000;
/** After the store failed a round: the first wait before the next (doubling, at most FOLLOW_INTERVAL_MS). */
const STORE_RETRY_MS = 30_000;
/** The daily refresh runs this long after midnight UTC (plus up to DAILY_JITTER_MS), when yesterday is complete. */
const DAILY_OFFSET_MS = 10 * 60_000;
const DAILY_JITTER_MS = 20 * 60_000;
/** Back-off after failures in a row: 5 minutes, doubling, at most 6 hours. */
const RETRY_BASE_MS = 5 * 60_000;
const RETRY_MAX_MS = 6 * 60 * 60_000;
/** How long close() waits for a round under way. */
const CLOSE_WAIT_MS = 3_000;
/** A fill that stopped at MAX_FILL_PAGES (mirror-fill.ts) goes on this soon. */
const FILL_AGAIN_MS = 15 * 60_000;

export type { MirrorLookup, MirrorRefresherOptions, MirrorStatus, RefreshReport } from './mirror-refresh-types.ts';

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
  /** Rounds in a row the store failed. */
  private storeFailures = 0;
  private readonly counts: Record<RefreshOutcome, number> = { updated: 0, unchanged: 0, unavailable: 0, refused: 0, failed: 0 };
  private readonly fetcher: SnapshotFetcher;

  constructor(private readonly options: MirrorRefresherOptions) {
    this.now = options.now ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.random = options.random ?? Math.random;
    this.owner = options.owner ?? `${process.pid}-${randomBytes(4).toString('hex')}`;
    this.key = sourceKey(options.source);
    this.fetcher = new SnapshotFetcher({
      source: options.source,
      requester: options.lookup,
      timeoutMs: options.timeoutMs ?? 10_000,
      signal: this.abort.signal,
      now: () => this.nowMs(),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.downloadDeadlineMs !== undefined ? { downloadDeadlineMs: options.downloadDeadlineMs } : {}),
      ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
      ...(options.maxRows !== undefined ? { maxRows: options.maxRows } : {}),
      ...(options.tempParent !== undefined ? { tempParent: options.tempParent } : {}),
    });
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
        .then(
          () => {
            this.storeFailures = 0;
            this.schedule(this.nextDelay());
          },
          (error: unknown) => {
            if (this.closed) return;
            // A store that fails is asked again after 30 s, doubling to FOLLOW_INTERVAL_MS: one line each time.
            this.storeFailures++;
            const retryMs = Math.min(FOLLOW_INTERVAL_MS, STORE_RETRY_MS * 2 ** Math.min(10, this.storeFailures - 1));
            this.options.logger.error(
              { err: error },
              `mirror: the store failed (${oneLine(error)}); the mirror in use is kept, trying again in ${Math.round(retryMs / 1000)} s`,
            );
            this.schedule(retryMs);
          },
        );
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
        const model = MirrorModel.build(entries, record.coveredThrough, record.holes);
        this.options.holder.swap(model, record.generation);
        this.record = record;
        this.options.logger.info({ mirror: { rows: model.rows, coveredThrough: model.coveredThrough } }, `mirror: loaded the stored copy (${model.rows} entries through ${model.coveredThrough})`);
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
      // A claim on another source (a process that was refreshing before WOTD_MIRROR or the site changed, and may
      // have died at it) holds up nothing: this source has no copy at all yet.
      const taken = state.source === this.key && state.claim !== null && state.claim.until > now && state.claim.owner !== this.owner;
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
    const step = await this.fetcher.newest(trusted ? record : null, state.source === this.key ? state.refused : null, today, yesterday);
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

  /** Step 3 (mirror-fill.ts): the days after the mirror up to yesterday, installed even when a page failed partway. */
  private async fill(base: MirrorModel, record: MirrorRecord, today: IsoDate): Promise<{ detail: string | null; installed: boolean; failed: boolean; incomplete: boolean }> {
    const yesterday = addDays(today, -1);
    if (base.coveredThrough >= yesterday) return { detail: null, installed: false, failed: false, incomplete: false };
    const { lookup } = this.options;
    const { added, coveredThrough, failure } = await fillDays((date, limit, options) => lookup.getPrevious(date, limit, options), base.coveredThrough, today, {
      priority: 'background',
      maxWaitMs: REQUEST_WAIT_MS,
    });
    if (coveredThrough === base.coveredThrough) {
      return { detail: `filling the days after ${coveredThrough} failed (${failure ?? 'no page'})`, installed: false, failed: true, incomplete: false };
    }
    const incomplete = failure === null && coveredThrough < yesterday;
    const content = { source: this.key, coveredThrough, holes: [...base.holes], snapshot: record.snapshot, skippedRows: record.skippedRows };
    await this.install([...base.entries(), ...added], content, record);
    const detail = `filled ${added.length} entries through ${coveredThrough}${failure ? `, then stopped (${failure})` : incomplete ? ', more next time' : ''}`;
    return { detail, installed: true, failed: failure !== null, incomplete };
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

  private nowMs(): number {
    return this.now().getTime();
  }
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? text).slice(0, 300);
}
