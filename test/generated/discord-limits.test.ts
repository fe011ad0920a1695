import type { APIEmbed } from 'discord.js';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { wotdFindCommand } from '../../commands/wotd-find.ts';
import { wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { wotdSubscribeCommand } from '../../commands/wotd-subscribe.ts';
import { clip, DISCORD_LIMITS, embedsLength } from '../../src/schedule/discord-limits.ts';
import { autocompleteChoices } from '../../src/discord/autocomplete-context.ts';
import { buttonRows } from '../../src/discord/interaction-payloads.ts';
import { dailyPostEmbed } from '../../src/replies/daily-embeds.ts';
import { entryEmbed, escapeText } from '../../src/replies/embeds.ts';
import type { AutocompleteChoice, BotServices, ChannelPermission, CommandContext, OutgoingMessage, SlashCommand } from '../../src/replies/interactions.ts';
import { buildMessage } from '../../src/schedule/delivery.ts';
import { subscriptionRecord, type SubscriptionService } from '../../src/schedule/subscription-service.ts';
import { addDays, type IsoDate } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import type { Lookup, WotdLookup } from '../../src/wotd/lookup.ts';
import { buttonContext, commandContext, type Recorded } from '../commands/recording-context.ts';
import { makeSubscription, tempStore } from '../schedule/helpers.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { validateMessageBody } from '../support/discord/validation.ts';
import { MARKDOWN, MENTIONS, INVISIBLE, settings, wellFormed } from './generated.ts';

/**
 * Every message the bot builds from an entry keeps every limit Discord documents, whatever the service sends: a
 * word of up to 1,000 characters, a definition of up to 10,000, a part of speech and IPA of up to 500, in any
 * Unicode (combining marks, emoji sequences, flags, right-to-left text) and full of markdown and mention syntax.
 * The commands run as they do for a member (/wotd, /wotd-history with up to 8 entries and its Older button,
 * /wotd-find with up to 25 dates and its page buttons, the no-match suggestions, the word autocomplete, the
 * subscribe preview), and the daily post is built in both styles. Text that was cut ends in an ellipsis on a
 * grapheme boundary, never inside an escape. Lengths are UTF-16 units (see src/schedule/discord-limits.ts).
 */

const SEED = 20_004;
const TODAY = '2026-06-15' as IsoDate;
const SITE_URL = 'https://wotd.example';

const COMBINING = ['\u0301', '\u0308', '\u0323', '\u20dd', '\u0e31', '\u093f', '\u05b8', '\u0651'];
const EMOJI = ['👨‍👩‍👧‍👦', '🏳️‍🌈', '🇺🇦', '🇯🇵🇰🇷', '👍🏽', '❤️', '🧑🏿‍🚀', '1️⃣', '😀', '𝔘𝔫𝔦'];
const RTL = ['שָׁלוֹם', 'مرحبا', '\u202e', '\u200f', 'עברית (test)', 'ٱلْعَرَبِيَّة', '\u2067x\u2069'];
const OTHER = ['ˈsɛɹ.ən', '/ˌsɛɹ.ənˈdɪp.ɪ.ti/', '한국어', '漢字', 'a', ' ', '\n', 'Zalgo', 'ﷺ', '\u00ad'];

const piece = fc.oneof(
  fc.constantFrom(...MARKDOWN, ...MENTIONS, ...INVISIBLE),
  fc.constantFrom(...COMBINING, ...EMOJI, ...RTL, ...OTHER),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 3 }),
);

/** Text of up to `max` UTF-16 units: a few pieces, or a run of them repeated up to the maximum (whole code points). */
function serviceText(max: number, nonEmpty = false): fc.Arbitrary<string> {
  const few = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
  const long = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.integer({ min: Math.floor(max / 2), max }))
    .map(([parts, length]) => {
      const unit = parts.join('') || 'x';
      return unit.repeat(Math.ceil(length / unit.length)).slice(0, length).replace(/[\ud800-\udbff]$/, '');
    });
  const text = fc.oneof({ weight: 1, arbitrary: few }, { weight: 2, arbitrary: long }).map((value) => value.slice(0, max).replace(/[\ud800-\udbff]$/, ''));
  return nonEmpty ? text.map((value) => (value.trim() === '' ? `w${value}` : value)) : text;
}

const entryParts = fc.record({
  word: serviceText(1_000, true),
  pos: serviceText(500),
  ipa: serviceText(500),
  definition: serviceText(10_000),
});

function entryOn(date: IsoDate, parts: Omit<Entry, 'date'>): Entry {
  return { date, ...parts };
}

/** The lookup a member's command reads, answering with the generated entries. */
function lookupOf(entries: Entry[], stale: boolean): WotdLookup {
  const found = <T>(value: T): Lookup<T> => ({ value, stale, fromCache: stale });
  const lookup: Pick<WotdLookup, 'today' | 'getEntry' | 'getPrevious' | 'findWord' | 'suggestWords'> = {
    today: () => TODAY,
    getEntry: async () => found(entries[0] as Entry),
    getPrevious: async (_before, limit) => found({ entries: entries.slice(0, limit), hasMore: true }),
    findWord: async () => found({ entries: entries.map((entry) => ({ ...entry, word: (entries[0] as Entry).word })), complete: !stale }),
    suggestWords: async (_prefix, limit) => entries.map((entry) => entry.word).slice(0, limit),
  };
  return lookup as WotdLookup;
}

/** Is `index` a grapheme boundary of `text`? */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
function isGraphemeBoundary(text: string, index: number): boolean {
  if (index === 0 || index === text.length) return true;
  for (const segment of segmenter.segment(text)) {
    if (segment.index === index) return true;
    if (segment.index > index) return false;
  }
  return false;
}

/** A text cut to fit: ends in the ellipsis, after a whole grapheme of `full` and a whole escape. */
function expectCut(shown: string, full: string, where: string): void {
  if (shown === full) return;
  expect(shown.endsWith('…'), `${where}: cut without an ellipsis`).toBe(true);
  const kept = shown.slice(0, -1);
  expect(full.startsWith(kept), `${where}: not a beginning of the text`).toBe(true);
  expect(isGraphemeBoundary(full, kept.length), `${where}: cut inside a grapheme at ${kept.length}`).toBe(true);
}

function textsOf(embed: APIEmbed): Array<[string, string, number]> {
  const texts: Array<[string, string, number]> = [];
  if (embed.title !== undefined) texts.push(['title', embed.title, DISCORD_LIMITS.embedTitle]);
  if (embed.description !== undefined) texts.push(['description', embed.description, DISCORD_LIMITS.embedDescription]);
  for (const [index, field] of (embed.fields ?? []).entries()) {
    texts.push([`field ${index} name`, field.name, DISCORD_LIMITS.fieldName], [`field ${index} value`, field.value, DISCORD_LIMITS.fieldValue]);
  }
  if (embed.footer) texts.push(['footer', embed.footer.text, DISCORD_LIMITS.footerText]);
  if (embed.author) texts.push(['author name', embed.author.name, DISCORD_LIMITS.authorName]);
  return texts;
}

/**
 * Every documented limit of one message, checked one by one and by the local Discord server's validation. Problems
 * are collected and asserted once: a thousand runs of a few hundred expect() calls each would dominate the run.
 */
function expectWithinLimits(message: { content?: string | undefined; embeds?: APIEmbed[] | undefined; buttons?: OutgoingMessage['buttons'] }, where: string): void {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  const content = message.content ?? '';
  check(content.length <= DISCORD_LIMITS.content, `content is ${content.length} long`);
  check(wellFormed(content), 'content is not well-formed');
  const embeds = message.embeds ?? [];
  check(embeds.length <= 10, `${embeds.length} embeds`);
  for (const embed of embeds) {
    check((embed.fields ?? []).length <= DISCORD_LIMITS.fields, `${(embed.fields ?? []).length} fields`);
    for (const [part, text, limit] of textsOf(embed)) {
      check(text.length <= limit, `${part} is ${text.length} long, over ${limit}`);
      check(wellFormed(text), `${part} is not well-formed`);
      // Our own cuts end in an ellipsis; the backslash before one must not be an escape whose character went.
      check(!/(^|[^\\])(\\\\)*\\…$/.test(text), `${part} ends in an escape cut in half`);
    }
  }
  const total = embedsLength(embeds);
  check(total <= DISCORD_LIMITS.embedsTotal, `the embeds' total is ${total}`);
  const rows = buttonRows(message.buttons);
  for (const row of rows) for (const button of row.components) check((button.label?.length ?? 0) <= DISCORD_LIMITS.buttonLabel, `button label ${button.label}`);
  const body = JSON.parse(JSON.stringify({ content: message.content, embeds: message.embeds, components: rows.map((row) => row.toJSON()) }));
  const refused = validateMessageBody(body, { mode: 'create', interaction: true }).tree;
  check(Object.keys(refused).length === 0, `Discord would refuse it: ${JSON.stringify(refused).slice(0, 500)}`);
  expect(problems, where).toEqual([]);
}

function sent(recorder: { events: Recorded[] }): OutgoingMessage[] {
  return recorder.events.flatMap((event) => (event.kind === 'defer' ? [] : [event.message]));
}

async function answers(command: SlashCommand, services: BotServices, options: Record<string, string | number> = {}): Promise<OutgoingMessage[]> {
  const context = commandContext(command.data.name, options);
  await command.execute(context, services);
  return sent(context.recorder);
}

describe('Discord size limits, for any entry', () => {
  it('every message built from generated entries keeps every limit, cut on grapheme boundaries', async () => {
    let cuts = 0;
    // The preview reads the channel's saved subscription (none here) and saves nothing.
    const temp = tempStore();
    onTestFinished(temp.cleanup);
    const store = await SubscriptionStore.open(temp.url);
    onTestFinished(() => store.close());
    const subscriptions = createSubscriptionService({ store, limit: 5, now: () => new Date(`${TODAY}T12:00:00Z`) });
    await fc.assert(
      fc.asyncProperty(fc.array(entryParts, { minLength: 1, maxLength: 25 }), fc.boolean(), fc.integer({ min: 1, max: 8 }), async (parts, stale, limit) => {
        const entries = parts.map((part, index) => entryOn(addDays(TODAY, -index), part));
        const first = entries[0] as Entry;
        const services: BotServices = { lookup: lookupOf(entries, stale), siteUrl: SITE_URL };
        const shownEntry = JSON.stringify({ ...first, definition: first.definition.slice(0, 200) }).slice(0, 300);
        const where = (what: string) => `${what} for ${shownEntry}`;

        // /wotd: the title is the escaped word, cut on a grapheme boundary and never inside an escape.
        const wotd = await answers(wotdCommand, services);
        for (const message of wotd) expectWithinLimits(message, where('/wotd'));
        const title = entryEmbed(first, { siteUrl: SITE_URL }).title ?? '';
        expectCut(title, escapeText(first.word), where('/wotd title'));
        if (title !== escapeText(first.word)) cuts += 1;

        // The daily post, both styles, with a role mention and a thread on each post.
        const subscription = makeSubscription({ channelId: '200000000000000001', roleId: '300000000000000001', openThread: true });
        for (const style of ['full', 'compact'] as const) {
          const embed = dailyPostEmbed(first, style, { siteUrl: SITE_URL });
          const post = buildMessage(subscription, embed, first.date);
          expectWithinLimits(post, where(`the ${style} daily post`));
          expect(post.thread?.name.length ?? 0, where('thread name')).toBeLessThanOrEqual(DISCORD_LIMITS.threadName);
          expect(wellFormed(post.thread?.name ?? ''), where('thread name')).toBe(true);
          expectCut(embed.title ?? '', escapeText(first.word), where(`the ${style} post's title`));
        }

        // /wotd-history with up to 8 entries, and its Older button.
        const history = await answers(wotdHistoryCommand, services, { limit });
        for (const message of history) expectWithinLimits(message, where(`/wotd-history limit ${limit}`));
        const older = buttonContext(`hist:${TODAY}:${limit}`);
        await wotdHistoryCommand.button?.handle(older, services);
        for (const message of sent(older.recorder)) expectWithinLimits(message, where('the Older button'));

        // /wotd-find: up to 25 days of one word, 10 to a page, and the page buttons.
        const find = await answers(wotdFindCommand, services, { word: 'w' });
        for (const message of find) expectWithinLimits(message, where('/wotd-find'));
        const page = buttonContext('find:3:w');
        await wotdFindCommand.button?.handle(page, services);
        for (const message of sent(page.recorder)) expectWithinLimits(message, where('a /wotd-find page'));

        // No match: the suggestions are the generated words.
        const none: BotServices = { ...services, lookup: { ...lookupOf(entries, stale), findWord: async () => ({ value: { entries: [], complete: true }, stale, fromCache: false }) } as WotdLookup };
        for (const message of await answers(wotdFindCommand, none, { word: 'w' })) expectWithinLimits(message, where('/wotd-find suggestions'));

        // The word autocomplete, as the Discord transport sends it.
        let offered: AutocompleteChoice[] = [];
        await wotdFindCommand.autocomplete?.(
          { invoker: { userId: '1', guildId: null, channelId: '2', canManageChannels: false }, commandName: 'wotd-find', focused: { name: 'word', value: 'w' }, respond: async (choices) => void (offered = choices) },
          services,
        );
        const choices = autocompleteChoices(offered);
        expect(choices.length, where('autocomplete')).toBeLessThanOrEqual(25);
        for (const choice of choices) {
          expect(choice.name.length, where('choice name')).toBeLessThanOrEqual(DISCORD_LIMITS.choiceName);
          expect(choice.value.length, where('choice value')).toBeLessThanOrEqual(DISCORD_LIMITS.choiceValue);
          expect(wellFormed(choice.name), where('choice name')).toBe(true);
          expectCut(choice.name, offered.find((given) => given.value === choice.value)?.name ?? '', where('choice name'));
        }

        // The subscribe preview: today's post as the channel would get it, under the admin's note.
        const channelName = clip(first.word, 100);
        const all: ChannelPermission[] = ['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory', 'CreatePublicThreads'];
        const base = commandContext('wotd-subscribe');
        const preview: CommandContext = {
          ...base,
          invoker: { ...base.invoker, canManageChannels: true },
          get acknowledged() {
            return base.recorder.acknowledged;
          },
          options: {
            ...base.options,
            getChannel: () => ({ id: '200000000000000001', name: channelName, kind: 'announcement' }),
            getRole: () => ({ id: '300000000000000001', name: clip(first.pos || 'fans', 100) }),
            getBoolean: (name) => name === 'preview' || name === 'thread' || name === 'publish',
            getString: (name) => (name === 'style' ? (limit % 2 === 0 ? 'compact' : 'full') : null),
          },
          botPermissionsIn: async () => new Set(all),
          memberCanManageChannel: async () => true,
        };
        const previewServices: BotServices = { ...services, subscriptions };
        await wotdSubscribeCommand.execute(preview, previewServices);
        const shown = sent(base.recorder);
        expect(shown.some((message) => message.embeds?.length), where('the preview')).toBe(true);
        for (const message of shown) expectWithinLimits(message, where('the subscribe preview'));
      }),
      settings(SEED),
    );
    // The generator reaches the limits: many titles had to be cut.
    expect(cuts).toBeGreaterThan(100);
  }, 600_000);
});
