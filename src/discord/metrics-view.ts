import { RESTEvents, Status, type Client } from 'discord.js';
import type { DiscordView, GatewayShardView } from '../metrics/sources.ts';
import { webhookRest } from './channel-webhooks.ts';

const STATE_NAMES: Record<Status, string> = {
  [Status.Ready]: 'ready',
  [Status.Connecting]: 'connecting',
  [Status.Reconnecting]: 'reconnecting',
  [Status.Idle]: 'idle',
  [Status.Nearly]: 'nearly',
  [Status.Disconnected]: 'disconnected',
  [Status.WaitingForGuilds]: 'waiting_for_guilds',
  [Status.Identifying]: 'identifying',
  [Status.Resuming]: 'resuming',
};

/** Every state a shard can be in, for metrics that list them all. */
export const SHARD_STATES: readonly string[] = Object.values(STATE_NAMES);

/** The client's gateway shards and REST rate limits, read live. */
export function discordMetricsView(client: Client): DiscordView {
  return {
    shards: () =>
      [...client.ws.shards.values()].map(
        (shard): GatewayShardView => ({
          id: shard.id,
          state: STATE_NAMES[shard.status] ?? `status_${shard.status}`,
          connected: shard.status === Status.Ready,
          // discord.js reports -1 until the first heartbeat is acknowledged.
          latencyMs: shard.ping >= 0 ? shard.ping : null,
        }),
      ),
    on429: (listener) => {
      // With the default request function the response is a plain object here, so listening costs no body copy.
      client.rest.on(RESTEvents.Response, (_request, response) => {
        if (response.status === 429) listener({ global: response.headers.get('x-ratelimit-global') !== null });
      });
      webhookRest(client.rest).on(RESTEvents.Response, (_request, response) => {
        if (response.status === 429) listener({ global: response.headers.get('x-ratelimit-global') !== null, webhook: true });
      });
    },
    onRateLimitWait: (listener) => {
      client.rest.on(RESTEvents.RateLimited, (info) => listener({ global: info.global }));
    },
  };
}
