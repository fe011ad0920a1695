import { Counter, Gauge, type Registry } from 'prom-client';
import type { AdapterView } from './sources.ts';

/** The adapter counts its cache itself; these copy its counters when scraped. */
export function registerCacheMetrics(registers: Registry[], adapter: () => AdapterView | null): void {
  new Counter({
    name: 'wotd_bot_cache_lookups_total',
    help: 'Lookups answered from the cache (hit) or not (miss: sent to the service, or joined a request under way).',
    labelNames: ['result'] as const,
    registers,
    collect() {
      this.reset();
      const stats = adapter()?.stats();
      if (!stats) return;
      this.inc({ result: 'hit' }, stats.cacheHits);
      this.inc({ result: 'miss' }, stats.cacheMisses);
    },
  });
  new Gauge({
    name: 'wotd_bot_cache_hit_ratio',
    help: 'Cache hits over hits and misses since start (absent before the first lookup).',
    registers,
    collect() {
      this.reset();
      const stats = adapter()?.stats();
      const looked = stats ? stats.cacheHits + stats.cacheMisses : 0;
      if (stats && looked > 0) this.set(stats.cacheHits / looked);
    },
  });
  new Counter({
    name: 'wotd_bot_cache_stale_served_total',
    help: 'Lookups answered from an expired cache entry because the service failed.',
    registers,
    collect() {
      this.reset();
      const stats = adapter()?.stats();
      if (stats) this.inc(stats.staleServed);
    },
  });
}
