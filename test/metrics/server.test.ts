import { afterEach, describe, expect, it } from 'vitest';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import { MetricsServerError, startMetricsServer, type MetricsServer } from '../../src/metrics/metrics-server.ts';
import type { HealthReport } from '../../src/metrics/health.ts';
import { Scrape } from './prom-text.ts';

const servers: MetricsServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function health(url: string): Promise<{ status: number; body: HealthReport }> {
  const response = await fetch(`${url}/healthz`);
  return { status: response.status, body: (await response.json()) as HealthReport };
}

const tickReport = { total: 0, sent: 0, failed: 0, retrying: 0, skipped: 0, waitingForEntry: 0 };

describe('the metrics endpoint at the console (no gateway)', () => {
  it('passes the gateway check as not applicable, and fails when the scheduler has not ticked for 3 minutes', async () => {
    let now = 1_000_000;
    const metrics = createBotMetrics({ mode: 'console', now: () => now, defaultMetrics: false });
    const server = await startMetricsServer({ metrics, port: 0, host: '127.0.0.1' });
    servers.push(server);

    const fresh = await health(server.url);
    expect(fresh).toEqual({
      status: 200,
      body: {
        status: 'ok',
        failing: [],
        gateway: { status: 'not_applicable', shards: [] },
        store: 'not_applicable',
        stores: {},
        scheduler: 'ok',
        lastTickAgeSeconds: null,
      },
    });

    // Before the first tick the time since start counts.
    now += 3 * 60_000 + 1;
    expect(await health(server.url)).toMatchObject({ status: 503, body: { status: 'unhealthy', failing: ['scheduler'], scheduler: 'stale' } });

    metrics.scheduler.tickDone?.({ ok: true, report: tickReport, ms: 12 });
    expect(await health(server.url)).toMatchObject({ status: 200, body: { scheduler: 'ok', lastTickAgeSeconds: 0 } });

    now += 90_000;
    // A failed tick is no sign of life; a post of a running fan-out is.
    metrics.scheduler.tickDone?.({ ok: false, error: new Error('store down'), ms: 3 });
    expect((await health(server.url)).body.lastTickAgeSeconds).toBe(90);
    metrics.scheduler.fanOutStarted?.(3);
    metrics.scheduler.postDone?.('sent');
    metrics.scheduler.postDone?.('transient');
    now += 500;
    expect((await health(server.url)).body.lastTickAgeSeconds).toBe(0.5);

    const scrape = Scrape.of(await (await fetch(`${server.url}/metrics`)).text());
    expect(scrape.get('wotd_bot_scheduler_ticks_total', { outcome: 'ok' })).toBe(1);
    expect(scrape.get('wotd_bot_scheduler_ticks_total', { outcome: 'error' })).toBe(1);
    expect(scrape.get('wotd_bot_daily_posts_total', { outcome: 'sent' })).toBe(1);
    expect(scrape.get('wotd_bot_daily_posts_total', { outcome: 'retrying' })).toBe(1);
    expect(scrape.get('wotd_bot_daily_posts_total', { outcome: 'failed' })).toBe(0);
    expect(scrape.get('wotd_bot_fanout_size')).toBe(3);
    expect(scrape.get('wotd_bot_fanout_done')).toBe(2);
    expect(scrape.get('wotd_bot_fanout_running')).toBe(1);
    expect(scrape.get('wotd_bot_scheduler_last_tick_age_seconds')).toBe(0.5);
    // Nothing about a gateway at the console, and no process metrics when turned off.
    expect(scrape.has('wotd_bot_gateway_connected')).toBe(false);
    expect(scrape.has('process_cpu_user_seconds_total')).toBe(false);
  });

  it('answers HEAD without a body, and says clearly when its port is taken', async () => {
    const metrics = createBotMetrics({ mode: 'console', defaultMetrics: false });
    const server = await startMetricsServer({ metrics, port: 0, host: '127.0.0.1' });
    servers.push(server);
    const head = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');

    const taken = startMetricsServer({ metrics, port: server.port, host: '127.0.0.1' });
    await expect(taken).rejects.toThrow(MetricsServerError);
    await expect(taken).rejects.toThrow(
      `METRICS_PORT ${server.port} is already in use on 127.0.0.1; choose another (each process of a cluster needs its own)`,
    );
  });
});
