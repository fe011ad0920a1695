import type { Subscription } from '../src/schedule/subscription.ts';
import { weekdayOf, type Weekday } from '../src/schedule/post-rules.ts';
import type { IsoDate } from '../src/wotd/dates.ts';
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

/**
 * The options of issue 35 on one subscription in a realistic mix, by its position (`day`: the due day, so a share
 * of them is on days that leave it out): a tenth coloured, a tenth with an intro and a role, a tenth on weekdays, a
 * twentieth on the other days of the week, a twentieth paused.
 */
export function mixOptions(subscription: Subscription, index: number, day: IsoDate): Subscription {
  const slot = index % 20;
  if (slot < 2) return { ...subscription, colour: 0x1abc9c };
  if (slot < 4) return { ...subscription, roleId: '900000000000000001', intro: 'Word of the day for {date}: {word} {role}' };
  if (slot < 6) return { ...subscription, days: [1, 2, 3, 4, 5] };
  if (slot < 7) {
    const today = weekdayOf(day);
    return { ...subscription, days: ([1, 2, 3, 4, 5, 6, 7] as Weekday[]).filter((weekday) => weekday !== today) };
  }
  if (slot < 8) return { ...subscription, pause: { at: '2026-01-01T00:00:00.000Z' } };
  return subscription;
}
