import { Gauge, type Registry } from 'prom-client';
import type { DiscordView } from './sources.ts';

/** The gateway's shards, read from the connected client (if any) when scraped. */
export function registerGatewayMetrics(registers: Registry[], discord: () => DiscordView | null): void {
  new Gauge({
    name: 'wotd_bot_gateway_connected',
    help: 'Whether the gateway shard is connected and receiving events (1) or not (0).',
    labelNames: ['shard'] as const,
    registers,
    collect() {
      this.reset();
      for (const shard of discord()?.shards() ?? []) this.set({ shard: String(shard.id) }, shard.connected ? 1 : 0);
    },
  });
  new Gauge({
    name: 'wotd_bot_gateway_shard_state',
    help: 'The gateway shard\'s state as discord.js names it: 1 for the current state.',
    labelNames: ['shard', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const shard of discord()?.shards() ?? []) this.set({ shard: String(shard.id), state: shard.state }, 1);
    },
  });
  new Gauge({
    name: 'wotd_bot_gateway_latency_seconds',
    help: 'Round trip of the shard\'s last gateway heartbeat (absent before the first).',
    labelNames: ['shard'] as const,
    registers,
    collect() {
      this.reset();
      for (const shard of discord()?.shards() ?? []) {
        if (shard.latencyMs !== null) this.set({ shard: String(shard.id) }, shard.latencyMs / 1000);
      }
    },
  });
}
