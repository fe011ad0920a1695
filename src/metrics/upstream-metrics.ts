import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { UpstreamEvent } from '../wotd/upstream-request.ts';
import type { AdapterView } from './sources.ts';

const UPSTREAM_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the services we call report: the Word-of-the-Day service's requests, and both services' rate limits. */
export interface UpstreamMetrics {
  /** The adapter's observer: one request to the Word-of-the-Day service finished. */
  readonly requestDone: (event: UpstreamEvent) => void;
  /** Discord REST answered 429 (`webhook`: to a daily post's webhook execution, which has per-webhook limits). */
  readonly discordTooManyRequests: (webhook?: boolean) => void;
  /** discord.js held a request back to stay inside a rate limit it knew of. */
  readonly discordWaited: () => void;
}

/** Requests to the Word-of-the-Day service, the 429s of both services, and the adapter's queue (read when scraped). */
export function registerUpstreamMetrics(registers: Registry[], adapter: () => AdapterView | null): UpstreamMetrics {
  const upstreamRequests = new Counter({
    name: 'wotd_bot_upstream_requests_total',
    help: 'Requests to the Word-of-the-Day service (retries included), by endpoint and outcome.',
    labelNames: ['endpoint', 'outcome'] as const,
    registers,
  });
  const upstreamDuration = new Histogram({
    name: 'wotd_bot_upstream_request_duration_seconds',
    help: 'How long each request to the Word-of-the-Day service took, by endpoint.',
    labelNames: ['endpoint'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers,
  });
  const tooManyRequests = new Counter({
    name: 'wotd_bot_429_responses_total',
    help: '429 Too Many Requests answers received, by service (wotd: the Word-of-the-Day service; discord: Discord REST; discord_webhook: daily posts executed through webhooks).',
    labelNames: ['service'] as const,
    registers,
  });
  const discordWaits = new Counter({
    name: 'wotd_bot_discord_rate_limit_waits_total',
    help: 'Discord REST requests discord.js held back to stay inside a rate limit it knew of.',
    registers,
  });
  new Gauge({
    name: 'wotd_bot_upstream_queued',
    help: 'Requests to the Word-of-the-Day service waiting for the rate limiter.',
    registers,
    collect() {
      this.reset();
      const stats = adapter()?.stats();
      if (stats) this.set(stats.queued);
    },
  });
  new Gauge({
    name: 'wotd_bot_upstream_in_flight',
    help: 'Requests to the Word-of-the-Day service under way.',
    registers,
    collect() {
      this.reset();
      const stats = adapter()?.stats();
      if (stats) this.set(stats.inFlight);
    },
  });

  // Known label sets start at 0, so rate() and increase() see their first event.
  for (const service of ['wotd', 'discord', 'discord_webhook']) tooManyRequests.inc({ service }, 0);

  return {
    requestDone: (event) => {
      upstreamRequests.inc({ endpoint: event.path, outcome: event.result });
      upstreamDuration.observe({ endpoint: event.path }, event.elapsedMs / 1000);
      if (event.result === 'rate_limited') tooManyRequests.inc({ service: 'wotd' });
    },
    discordTooManyRequests: (webhook = false) => tooManyRequests.inc({ service: webhook ? 'discord_webhook' : 'discord' }),
    discordWaited: () => discordWaits.inc(),
  };
}
