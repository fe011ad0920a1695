import type { Subscription } from '../src/schedule/subscription.ts';
import { weekdayOf, type Weekday } from '../src/schedule/post-rules.ts';
import type { IsoDate } from '../src/wotd/dates.ts';
import type { GuildInfo } from '../test/support/discord/index.ts';

/** Discord's channel types: text, and forum. */
const TEXT = 0;
const FORUM = 15;

/** A channel of the bench's local Discord server, with a forum's tags. */
export type BenchChannel = GuildInfo['channels'][number];

/**
 * An active daily subscription at `time` (UTC, HH:MM) for every text and forum channel of `guilds`, as the benches
 * store them (plain: mixOptions makes a forum's a forum post).
 */
export function subscribeEveryChannel(guilds: readonly GuildInfo[], time: string, createdBy: string): Subscription[] {
  return guilds.flatMap((guild) =>
    guild.channels
      .filter((channel) => channel.type === TEXT || channel.type === FORUM)
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
 * of them is on days that leave it out). Its shape, by `index % 20`: a tenth coloured, a tenth with an intro and a
 * role, a tenth on weekdays, a twentieth on the other days of the week, a twentieth paused. Where it posts, by
 * `index / 20 % 20`, so every shape meets every place: the shares of MIX_PLACES. Pinned (MIX_PIN): a tenth of
 * each shape, by the two together. A share whose option is not built (apply null) is counted but posts as before.
 */
export function mixOptions(subscription: Subscription, index: number, day: IsoDate, channel: BenchChannel): Subscription {
  return withMixExtras(withMixPlace(withMixShape(subscription, index, day), index, channel), index, channel);
}

function withMixShape(subscription: Subscription, index: number, day: IsoDate): Subscription {
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

/** A share of the mix, in twentieths of the channels: what it sets on a subscription (in its channel), or null where not built yet. */
export interface MixShare {
  name: string;
  twentieths: number;
  apply: ((subscription: Subscription, channel: BenchChannel, index: number) => Subscription) | null;
}

/** The tags of the mix's forums. */
export const MIX_FORUM_TAGS = ['Word of the day', 'Vocabulary'];

/** The channel the mix makes at `index` (its position among every channel): a forum, with tags, for a forum post. */
export function mixChannelSpec(index: number, name: string): { name: string; type?: number; availableTags?: string[] } {
  return mixPlaceOf(index)?.name === 'forum' ? { name, type: FORUM, availableTags: MIX_FORUM_TAGS } : { name };
}

/** A forum post; every other one carries one of its forum's tags, the rest none. */
function asForumPost(subscription: Subscription, channel: BenchChannel, index: number): Subscription {
  const tag = index % 2 === 0 ? channel.tags[Math.floor(index / 2) % Math.max(1, channel.tags.length)] : undefined;
  return { ...subscription, forum: true, ...(tag ? { forumTag: { id: tag.id, name: tag.name } } : {}) };
}

/** The webhook identity of the mix's webhook posts. */
export const MIX_WEBHOOK = { name: 'Word Owl', avatar: 'https://example.com/owl.png' };

/** Where posts go (issue 35): a quarter as forum posts (in forum channels, see mixChannelSpec), a tenth through webhooks. */
export const MIX_PLACES: readonly MixShare[] = [
  { name: 'forum', twentieths: 5, apply: asForumPost },
  { name: 'webhook', twentieths: 2, apply: (subscription) => ({ ...subscription, webhookName: MIX_WEBHOOK.name, webhookAvatar: MIX_WEBHOOK.avatar }) },
];

/** A tenth pinned (a forum post is not pinned: the poster leaves the option out there). */
export const MIX_PIN: MixShare = { name: 'pinned', twentieths: 2, apply: (subscription) => ({ ...subscription, pin: true }) };

function shareAt(shares: readonly MixShare[], slot: number): MixShare | undefined {
  let start = 0;
  for (const share of shares) {
    if (slot < start + share.twentieths) return share;
    start += share.twentieths;
  }
  return undefined;
}

/** The place share of a subscription at `index`, if any. */
export function mixPlaceOf(index: number): MixShare | undefined {
  return shareAt(MIX_PLACES, Math.floor(index / 20) % 20);
}

function withMixPlace(subscription: Subscription, index: number, channel: BenchChannel): Subscription {
  return mixPlaceOf(index)?.apply?.(subscription, channel, index) ?? subscription;
}

/** Whether the subscription at `index` is pinned in the mix: a tenth of each shape, spread over the places. */
export function mixPinned(index: number): boolean {
  return ((index % 20) + Math.floor(index / 20)) % 20 < MIX_PIN.twentieths;
}

function withMixExtras(subscription: Subscription, index: number, channel: BenchChannel): Subscription {
  return mixPinned(index) ? (MIX_PIN.apply?.(subscription, channel, index) ?? subscription) : subscription;
}
