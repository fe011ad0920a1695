import type { Subscription } from '../src/schedule/subscription.ts';
import type { GuildInfo } from '../test/support/discord/index.ts';

/** An active daily subscription at `time` (UTC, HH:MM) for every text channel of `guilds`, as the benches store them. */
export function subscribeEveryChannel(guilds: readonly GuildInfo[], time: string, createdBy: string): Subscription[] {
  return guilds.flatMap((guild) =>
    guild.channels
      .filter((channel) => channel.type === 0)
      .map((channel) => ({
        guildId: guild.id,
        channelId: channel.id,
        channelName: channel.name,
        time,
        timeZone: 'UTC',
        roleId: null,
        createdBy,
        createdAt: '2026-01-01T00:00:00.000Z',
        enabledAt: '2026-01-01T00:00:00.000Z',
        status: { state: 'active' as const },
      })),
  );
}
