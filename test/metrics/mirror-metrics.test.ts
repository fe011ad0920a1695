import { expect, it } from 'vitest';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import type { MirrorStatus } from '../../src/wotd/mirror/mirror-refresh.ts';

/** The mirror's state in /healthz and the metrics (the console test shows them from a real mirror). */

const STATUS: MirrorStatus = {
  source: 'https://wotd.site/databases',
  inUse: true,
  rows: 1200,
  newest: '2025-01-19',
  coveredThrough: '2025-01-19',
  snapshot: 'wotd_2024-12.db',
  skippedRows: 2,
  lastRefresh: { outcome: 'refused', detail: 'refused wotd_2025-01.db: it is cut short', at: Date.parse('2025-01-20T00:12:00Z') },
  nextRefreshAt: null,
  refreshes: { updated: 1, unchanged: 0, unavailable: 0, refused: 1, failed: 0 },
};

it('reports the mirror in /healthz without ever failing it, and in the metrics', async () => {
  const metrics = createBotMetrics({ mode: 'console', defaultMetrics: false });
  let status: MirrorStatus | null = null;
  metrics.watchMirror({ status: () => status });
  expect((await metrics.health()).mirror).toEqual({ status: 'off' });
  expect(await metrics.text()).toMatch(/^wotd_bot_mirror_in_use 0$/m);

  status = STATUS;
  const health = await metrics.health();
  expect(health.status).toBe('ok');
  expect(health.mirror).toEqual({
    status: 'in_use',
    source: 'https://wotd.site/databases',
    newest: '2025-01-19',
    coveredThrough: '2025-01-19',
    rows: 1200,
    snapshot: 'wotd_2024-12.db',
    lastRefresh: { outcome: 'refused', at: '2025-01-20T00:12:00.000Z', detail: 'refused wotd_2025-01.db: it is cut short' },
  });
  const text = await metrics.text();
  expect(text).toMatch(/^wotd_bot_mirror_in_use 1$/m);
  expect(text).toMatch(/^wotd_bot_mirror_rows 1200$/m);
  expect(text).toMatch(/^wotd_bot_mirror_newest_date_seconds 1737244800$/m);
  expect(text).toMatch(/^wotd_bot_mirror_last_refresh_timestamp_seconds\{outcome="refused"\} 1737331920$/m);
  expect(text).toMatch(/^wotd_bot_mirror_refreshes_total\{outcome="refused"\} 1$/m);
  expect(text).toMatch(/^wotd_bot_mirror_skipped_rows 2$/m);
});
