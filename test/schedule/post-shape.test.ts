import { afterEach, describe, expect, it } from 'vitest';
import { checkIntro, parseColour, postContent } from '../../src/schedule/post-shape.ts';
import { buildMessage } from '../../src/schedule/delivery.ts';
import { translatorFor } from '../../src/replies/i18n/translate.ts';
import { CATALOGS } from '../../src/replies/i18n/translate.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { restFor, startDiscordServer } from '../support/discord/index.ts';
import { entryFor, makeSubscription } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const embed = entryEmbed({ ...entryFor('2026-06-15'), word: 'ser*en_dip' }, { siteUrl: 'https://wotd.site' });

describe('the post shape: colour and intro line', () => {
  it('reads colours as #RRGGBB only', () => {
    expect(parseColour('#1abc9c')).toBe(0x1abc9c);
    expect(parseColour('FFFFFF')).toBe(0xffffff);
    for (const bad of ['#fff', 'red', '#1abc9g', '#1abc9c0', '', '0x1abc9c']) expect(parseColour(bad)).toBeNull();
  });

  it('checks the intro: length, known placeholders, one line', () => {
    expect(checkIntro('Word of the day: {word} ({date}) {role}')).toBeNull();
    expect(checkIntro('{wrod}')).toEqual({ problem: 'unknown_placeholder', name: 'wrod' });
    expect(checkIntro('a'.repeat(201))).toEqual({ problem: 'too_long', limit: 200 });
    expect(checkIntro('two\nlines')).toEqual({ problem: 'line_break' });
  });

  it('fills the placeholders and leaves the admin\'s text inert: markdown escaped, no mention but the role', () => {
    const content = postContent({ intro: '# **Today** {word} for {date}, {role} @everyone <@123> [x](https://evil) ||s||', roleId: '42', embed, localDay: '2026-06-16' });
    expect(content).toBe(`\\# \\*\\*Today\\*\\* ${embed.title} for 2026-06-16, <@&42> @\u200beveryone <\u200b@\u200b123> \\[x\\](https://evil) \\|\\|s\\|\\|`);
    // Without {role}, the role is still mentioned, first; without an intro, the mention alone, as before.
    expect(postContent({ intro: 'Hello', roleId: '42', embed, localDay: '2026-06-16' })).toBe('<@&42> Hello');
    expect(postContent({ roleId: '42', embed, localDay: '2026-06-16' })).toBe('<@&42>');
    expect(postContent({ roleId: null, embed, localDay: '2026-06-16' })).toBeUndefined();
  });

  it('posts through the local Discord server with the colour and the intro, pinging only the role', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Words', roles: [{ name: 'readers', mentionable: true }], channels: [{ name: 'daily' }] });
    const daily = guild.channelId('daily');
    const role = guild.roleId('readers');
    const subscription = makeSubscription({ guildId: guild.id, channelId: daily, roleId: role, colour: 0x1abc9c, intro: '{role} today: {word} @here' });
    const poster = createChannelPoster(restFor(discord), { postsPerSecond: 0 });
    await poster.post(buildMessage(subscription, embed, '2026-06-15', { localDay: '2026-06-15' }));
    const [message] = discord.messagesIn(daily);
    expect(message?.content).toBe(`<@&${role}> today: ${embed.title} @\u200bhere`);
    expect(message?.embeds[0]?.color).toBe(0x1abc9c);
    expect(message?.pings.roles).toEqual([role]);
    expect(message?.pings.everyone).toBeFalsy();
  });
});

/** Every argument the posts. and subscribe. messages name: a number where a plural counts it, else a marker. */
const VALUES: Record<string, string | number> = Object.fromEntries(
  Object.entries(CATALOGS.en)
    .filter(([key]) => key.startsWith('posts.') || key.startsWith('subscribe.'))
    .flatMap(([, text]) => [...String(text).matchAll(/\{(\w+)(, *(\w+))?/g)].map((match) => [match[1] ?? '', match[3] ?? ''] as const))
    .map(([name, type]): [string, string | number] => [name, type === 'plural' || type === 'selectordinal' || type === 'number' ? 2 : `[${name}]`]),
);
VALUES.kind = 'list';
VALUES.outcome = 'new';

describe('catalogs', () => {
  it('have every posts. and subscribe. text in every language, and each formats', () => {
    const keys = Object.keys(CATALOGS.en).filter((key) => key.startsWith('posts.') || key.startsWith('subscribe.'));
    expect(keys.length).toBeGreaterThan(60);
    for (const [locale, catalog] of Object.entries(CATALOGS)) {
      for (const key of keys) {
        expect(catalog[key], `${locale} ${key}`).toBeTypeOf('string');
        const text = translatorFor(locale)(key as never, VALUES as never);
        expect(text, `${locale} ${key}`).not.toMatch(/\{(channel|summary|days|time|zone|reason|day|name|typed)\}/);
      }
    }
  });
});
