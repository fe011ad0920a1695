import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { wotdFindCommand } from '../../commands/wotd-find.ts';
import { wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { createConsolePoster } from '../../src/console/console-poster.ts';
import { renderMessage } from '../../src/console/render.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed, escapeText } from '../../src/replies/embeds.ts';
import type { SlashCommand } from '../../src/replies/interactions.ts';
import { formatEntry } from '../../src/cli/lookup-command.ts';
import { buildMessage } from '../../src/schedule/delivery.ts';
import type { DailyMessage } from '../../src/schedule/poster.ts';
import { addDays } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { commandContext } from '../commands/recording-context.ts';
import { startCommandWorld, TODAY, type CommandWorld } from '../commands/world.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { restFor, startDiscordServer, type DiscordServer, type GuildInfo } from '../support/discord/index.ts';
import { validateMessageBody } from '../support/discord/validation.ts';
import { expectInert, expectSendable } from './discord-checks.ts';
import { activeMarkup, unescapeDiscord, withoutBreaks } from './discord-markdown.ts';
import {
  nastyText,
  RUNS,
  seedOf,
  settings,
  TERMINAL_CONTROL,
  trackUnhandled,
  withinBound,
  WORLD_RATE_LIMIT,
  PROPERTY_TIMEOUT_MS,
} from './generated.ts';

/**
 * Service text full of markdown, mentions, links, zero-width and control characters never pings anyone and renders
 * inert: in every embed and reply the bot builds from it (/wotd, /wotd-history, /wotd-find, the daily post), on
 * Discord and at the console. The entries are generated once (seeded) into the word list of our real service, and
 * the commands read them through the real adapter.
 */

const SEED = 4_201;
const SITE_URL = 'https://wotd.example';
/** Daily posts sent for real, one channel each, since Discord lets a channel take only 5 posts in 5 seconds. */
const POSTED = 25;

const serviceText = (huge: number) => nastyText({ maxPieces: 16, huge });
const entryText = fc.record({
  word: serviceText(400).filter((word) => word.trim() !== ''),
  pos: serviceText(1_500),
  ipa: serviceText(1_500),
  definition: serviceText(6_000),
});

/** Long fields only, so that a page of history is as large as service text can make it. */
const longText = (min: number, max: number) =>
  fc
    .tuple(serviceText(0), fc.integer({ min, max }))
    .map(([text, length]) => (text || '*').repeat(length).slice(0, length).replace(/[\ud800-\udbff]$/, ''));
const longEntryText = fc.record({
  word: longText(100, 400).filter((word) => word.trim() !== ''),
  pos: longText(300, 1_500),
  ipa: longText(300, 1_500),
  definition: longText(1_000, 6_000),
});
/** The oldest LONG entries are all long. */
const LONG = 24;

/** One generated entry a day, the newest on TODAY. */
const entries: Entry[] = [
  ...fc.sample(longEntryText, { numRuns: LONG, seed: seedOf(SEED) }),
  ...fc.sample(entryText, { numRuns: RUNS - LONG, seed: seedOf(SEED) }),
].map((text, index) => ({ ...text, date: addDays(TODAY, index - RUNS + 1) }));

let world: CommandWorld;
let discord: DiscordServer;
let guild: GuildInfo;
const unhandled = trackUnhandled();

beforeAll(async () => {
  // One entry per request (no read-ahead): the generated entries are large, and the rendering is what is tested.
  world = await startCommandWorld({ rateLimit: WORLD_RATE_LIMIT, readAhead: 1 }, undefined, entries);
  discord = await startDiscordServer();
  guild = discord.addGuild({
    name: 'Words',
    roles: [{ name: 'word-fans', mentionable: true }],
    channels: Array.from({ length: POSTED }, (_, index) => ({ name: `daily-${index}` })),
  });
}, 60_000);

afterAll(async () => {
  unhandled.stop();
  await world?.close();
  await discord?.close();
  expect(unhandled.problems).toEqual([]);
});

/** The terminal gets the text and the console's own styling, never a control character from the service. */
function expectPlainInTerminal(rendered: string, where: string): void {
  const ownStyles = /\u001b\[(1|22|3|23|36|39|2)m/g;
  expect(TERMINAL_CONTROL.test(rendered.replace(ownStyles, '')), `${where}: ${JSON.stringify(rendered.slice(0, 400))}`).toBe(false);
}

describe('escapeText', () => {
  it('makes any text inert, and it still reads exactly as written', () => {
    fc.assert(
      fc.property(nastyText({ maxPieces: 24, broken: true, huge: 2_000 }), (text) => {
        const escaped = escapeText(text);
        expect(activeMarkup(escaped), JSON.stringify(escaped)).toEqual([]);
        expect(withoutBreaks(unescapeDiscord(escaped))).toBe(withoutBreaks(text));
      }),
      settings(SEED),
    );
  });
});

type Lookup = { command: SlashCommand; options: Record<string, string | number> };

function lookupFor(kind: 'wotd' | 'history' | 'find', entry: Entry, limit: number): Lookup {
  if (kind === 'wotd') return { command: wotdCommand, options: { date: entry.date } };
  if (kind === 'history') {
    return { command: wotdHistoryCommand, options: { date: entry.date === TODAY ? TODAY : addDays(entry.date, 1), limit } };
  }
  return { command: wotdFindCommand, options: { word: entry.word.trim().slice(0, 100) } };
}

describe('replies built from service text', () => {
  it('/wotd, /wotd-history and /wotd-find ping nobody, render inert, fit Discord, and print plainly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 4, arbitrary: fc.nat({ max: RUNS - 1 }) }, { weight: 1, arbitrary: fc.nat({ max: LONG }) }),
        fc.constantFrom('wotd' as const, 'history' as const, 'find' as const),
        fc.integer({ min: 1, max: 8 }),
        async (index, kind, limit) => {
          const entry = entries[index] as Entry;
          const { command, options } = lookupFor(kind, entry, limit);
          const context = commandContext(command.data.name, options);
          await withinBound(`/${command.data.name} ${JSON.stringify(options)}`, command.execute(context, world.services));
          const answer = context.recorder.answer;
          const where = `/${command.data.name} for ${entry.date}`;
          expectInert(answer, where);
          expectSendable(answer, where);
          const title = answer.embeds?.[0]?.title ?? '';
          // The word reads exactly as the service wrote it (unless it had to be cut short).
          if (kind === 'wotd' && !title.endsWith('…')) {
            expect(withoutBreaks(unescapeDiscord(title)), where).toBe(withoutBreaks(entry.word.trim()));
          }
          expectPlainInTerminal(renderMessage(answer, { color: true, now: world.now() }), `${where} at the console`);
          expectPlainInTerminal(renderMessage(answer, { color: false, now: world.now() }), `${where} at the console`);
        },
      ),
      settings(SEED),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('the command-line lookups print service text plainly too', () => {
    for (const entry of entries) expectPlainInTerminal(formatEntry(entry), `wotd-bot query for ${entry.date}`);
  });
});

describe('the daily post built from service text', () => {
  const roleId = fc.option(fc.constantFrom('300000000000000001', '123456789012345678'), { nil: null });

  it('pings only the subscription’s role, renders inert and fits Discord; the console prints it plainly', async () => {
    const printed: string[] = [];
    const consolePoster = createConsolePoster({ write: (text) => printed.push(text), color: true, now: world.now });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: RUNS - 1 }), roleId, async (index, role) => {
        const entry = entries[index] as Entry;
        const subscription = makeSubscription({ channelId: '200000000000000001', roleId: role });
        const message = buildMessage(subscription, entryEmbed(entry, { siteUrl: SITE_URL }), entry.date);
        const where = `daily post of ${entry.date}`;
        expect(message.content).toBe(role ? `<@&${role}>` : undefined);
        expect(message.mentionRoleId).toBe(role);
        expectInert({ embeds: message.embeds }, where);
        const body = JSON.parse(JSON.stringify({ content: message.content, embeds: message.embeds, nonce: message.nonce }));
        expect(validateMessageBody(body, { mode: 'create', interaction: false }).tree, `${where}: Discord would refuse it`).toEqual({});
        printed.length = 0;
        await consolePoster.post({ ...message, nonce: `console-${run++}` });
        expect(printed).toHaveLength(1);
        expectPlainInTerminal(printed.join(''), `${where} at the console`);
      }),
      settings(SEED),
    );
   }, PROPERTY_TIMEOUT_MS);

  it('through discord.js to the local Discord server: allowed_mentions names only the role, and only it is pinged', async () => {
    const poster = createChannelPoster(restFor(discord, { retries: 0, timeout: 5_000 }), { postsPerSecond: 0 });
    const role = guild.roleId('word-fans');
    let run = 0;
    // A sample: each post is a real request through discord.js's REST manager.
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: RUNS - 1 }), fc.boolean(), async (index, mention) => {
        const channelId = guild.channelId(`daily-${run++ % POSTED}`);
        const entry = entries[index] as Entry;
        const subscription = makeSubscription({ guildId: guild.id, channelId, roleId: mention ? role : null });
        const message: DailyMessage = buildMessage(subscription, entryEmbed(entry, { siteUrl: SITE_URL }), `${entry.date}`);
        const { messageId } = await withinBound(`post of ${entry.date}`, poster.post({ ...message, nonce: `${run}` }));
        const stored = discord.messagesIn(channelId).find((candidate) => candidate.id === messageId);
        expect(stored?.allowedMentions).toEqual({ parse: [], roles: mention ? [role] : [] });
        expect(stored?.pings).toEqual({ everyone: false, roles: mention ? [role] : [], users: [] });
      }),
      settings(SEED, POSTED),
    );
  });
});
