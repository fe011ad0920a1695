import { Counter, Gauge, type Registry } from 'prom-client';
import type { RefreshOutcome } from '../wotd/mirror/mirror-store.ts';
import type { AdapterView, MirrorView } from './sources.ts';

const OUTCOMES: readonly RefreshOutcome[] = ['updated', 'unchanged', 'unavailable', 'refused', 'failed'];

/** The database mirror's state, read from its status when scraped (absent while WOTD_MIRROR is off). */
export function registerMirrorMetrics(registers: Registry[], mirror: () => MirrorView | null, adapter: () => AdapterView | null): void {
  const status = () => mirror()?.status() ?? null;
  new Gauge({
    name: 'wotd_bot_mirror_in_use',
    help: 'Whether the database mirror is loaded and answers past days (1) or not (0).',
    registers,
    collect() {
      this.reset();
      const current = status();
      if (current) this.set(current.inUse ? 1 : 0);
    },
  });
  new Gauge({
    name: 'wotd_bot_mirror_rows',
    help: 'Entries in the database mirror in use.',
    registers,
    collect() {
      this.reset();
      const current = status();
      if (current) this.set(current.rows);
    },
  });
  new Gauge({
    name: 'wotd_bot_mirror_newest_date_seconds',
    help: 'The newest entry of the database mirror in use, as the Unix time of its day (00:00 UTC).',
    registers,
    collect() {
      this.reset();
      const newest = status()?.newest;
      if (newest) this.set(Date.parse(`${newest}T00:00:00Z`) / 1000);
    },
  });
  new Gauge({
    name: 'wotd_bot_mirror_skipped_rows',
    help: 'Rows of the installed snapshot that were skipped (invalid, too large, after its last day).',
    registers,
    collect() {
      this.reset();
      const current = status();
      if (current) this.set(current.skippedRows);
    },
  });
  new Gauge({
    name: 'wotd_bot_mirror_last_refresh_timestamp_seconds',
    help: 'When the last refresh of the mirror ended (any process sharing the store), by its outcome.',
    labelNames: ['outcome'] as const,
    registers,
    collect() {
      this.reset();
      const last = status()?.lastRefresh;
      if (last) this.set({ outcome: last.outcome }, last.at / 1000);
    },
  });
  new Counter({
    name: 'wotd_bot_mirror_refreshes_total',
    help: 'Refreshes of the mirror this process ran, by outcome (updated, unchanged, unavailable, refused, failed).',
    labelNames: ['outcome'] as const,
    registers,
    collect() {
      this.reset();
      const current = status();
      if (!current) return;
      for (const outcome of OUTCOMES) this.inc({ outcome }, current.refreshes[outcome]);
    },
  });
  new Counter({
    name: 'wotd_bot_mirror_lookups_total',
    help: 'Lookups answered from the database mirror (also counted as cache hits).',
    registers,
    collect() {
      this.reset();
      const stats = adapter()?.stats();
      if (stats && mirror()) this.inc(stats.mirrorHits);
    },
  });
}
