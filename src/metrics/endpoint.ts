import type { Config } from '../config/settings.ts';
import type { Logger } from '../config/logger.ts';
import type { BotMetrics, BotMetricsOptions } from './registry.ts';
import type { MetricsServer } from './metrics-server.ts';

export interface MetricsEndpoint {
  metrics: BotMetrics;
  server: MetricsServer;
  close(): Promise<void>;
}

/**
 * The health and metrics endpoint of one process when METRICS_PORT is set (null when it is not: off by default).
 * The caller attaches the parts as they come up (see BotMetrics) and closes it on shutdown.
 */
export async function openMetricsEndpoint(
  config: Pick<Config, 'METRICS_PORT' | 'METRICS_HOST'>,
  logger: Logger,
  options: BotMetricsOptions,
): Promise<MetricsEndpoint | null> {
  if (config.METRICS_PORT === undefined) return null;
  // Loaded only when asked for: a bot without metrics does not pay for prom-client.
  const [{ createBotMetrics }, { startMetricsServer }] = await Promise.all([import('./registry.ts'), import('./metrics-server.ts')]);
  const metrics = createBotMetrics(options);
  const server = await startMetricsServer({ metrics, port: config.METRICS_PORT, host: config.METRICS_HOST, logger });
  logger.info({ url: server.url }, `health at ${server.url}/healthz, metrics at ${server.url}/metrics`);
  return { metrics, server, close: () => server.close() };
}
