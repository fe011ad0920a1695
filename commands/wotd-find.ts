import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder, type APIEmbed } from 'discord.js';
import { ACCENT, attribution, clip, escapeText } from '../src/replies/embeds.ts';
import { translatorFor, type Translate } from '../src/replies/i18n/translate.ts';
import { saveButtons } from '../src/replies/learning-replies.ts';
import { DISCORD_LIMITS } from '../src/schedule/discord-limits.ts';
import type {
  AutocompleteContext,
  BotServices,
  ButtonContext,
  ButtonSpec,
  CommandContext,
  OutgoingMessage,
  SlashCommand,
} from '../src/replies/interactions.ts';
import { INTERACTIVE, replyWhenReady, updateWhenReady } from '../src/replies/deliver.ts';
import { entryLine } from '../src/replies/entries.ts';
import { quoteInput, staleNote, userError } from '../src/replies/messages.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { shortDate } from '../src/replies/i18n/formats.ts';
import { placeLocale, privateT } from '../src/replies/i18n/reply-locale.ts';
import { isWotdError } from '../src/wotd/errors.ts';
import type { Lookup, WordMatches } from '../src/wotd/lookup.ts';

export const FIND_PREFIX = 'find';
export const PAGE_SIZE = 10;
export const MAX_WORD_LENGTH = 100;
const MAX_CUSTOM_ID = 100;
const MAX_CHOICES = 25;
const SUGGESTIONS = 5;
const SUGGESTION_LENGTH = 40;

const data = named(new SlashCommandBuilder(), 'command.wotd-find.name', 'command.wotd-find.description')
  // Installed to a server or to a member's account: works in servers, the bot's DMs, group DMs and other DMs.
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addStringOption((option) =>
    named(option, 'option.word.name', 'command.wotd-find.word.description')
      .setRequired(true)
      .setMaxLength(MAX_WORD_LENGTH)
      .setAutocomplete(true),
  );

/** A page button carries the page it opens and the word, so it works after a restart. Null when it would not fit. */
export function pageButtonId(page: number, word: string): string | null {
  const id = `${FIND_PREFIX}:${page}:${word}`;
  return id.length <= MAX_CUSTOM_ID ? id : null;
}

export function parsePageButtonId(customId: string): { page: number; word: string } | null {
  const match = /^find:(\d{1,4}):(.+)$/s.exec(customId);
  if (!match?.[1] || !match[2]) return null;
  const page = Number(match[1]);
  const word = match[2].trim();
  if (page < 1 || word === '') return null;
  return { page, word };
}

function pageCount(total: number): number {
  return Math.max(1, Math.ceil(total / PAGE_SIZE));
}

/** The service reports one date only (variant A): the title says which, and the footer how to read the rest. */
function findEmbed(found: WordMatches, page: number, siteUrl: string, locale: string | undefined): APIEmbed {
  const t = translatorFor(locale);
  const { entries, complete } = found;
  const pages = pageCount(entries.length);
  const shown = entries.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const word = entries[0]?.word ?? '';
  const first = entries.at(-1)?.date;
  // The word is cut to fit, never what the title says about it.
  const about = complete
    ? t('find.title.times', { count: entries.length })
    : t('find.title.first', { date: first ? shortDate(first, locale) : '' });
  const title = `${clip(escapeText(word), DISCORD_LIMITS.embedTitle - about.length)}${about}`;
  const note = complete ? '' : `${entries.length > 1 ? t('find.firstDateOnly.seen') : t('find.firstDateOnly')} · `;
  const paging = pages > 1 ? `${t('find.page', { page, pages })} · ` : '';
  return {
    title,
    url: siteUrl,
    color: ACCENT,
    description: clip(shown.map((entry) => entryLine(entry, locale)).join('\n'), DISCORD_LIMITS.embedDescription),
    footer: { text: clip(`${paging}${note}${attribution(siteUrl, locale)}`, DISCORD_LIMITS.footerText) },
  };
}

function pageButtons(query: string, page: number, pages: number, t: Translate): ButtonSpec[] | undefined {
  if (pages <= 1) return undefined;
  const newer = pageButtonId(page - 1, query);
  const older = pageButtonId(page + 1, query);
  // A word too long to fit in a button's state is shown one page only.
  if (!newer || !older) return undefined;
  return [
    { customId: newer, label: t('button.newer'), style: 'secondary', disabled: page <= 1 },
    { customId: older, label: t('button.older'), style: 'secondary', disabled: page >= pages },
  ];
}

/**
 * Words seen before that look like the query, for a reply that found nothing: words starting with the query,
 * then with ever shorter beginnings of it, so a typo late in the word still finds its neighbours.
 */
async function suggestionsFor(query: string, services: BotServices): Promise<string[]> {
  const wanted = query.toLowerCase();
  // Down to two letters: one letter in common says nothing about what was meant.
  for (let length = query.length; length >= Math.min(2, query.length); length -= 1) {
    const words = await services.lookup.suggestWords(query.slice(0, length), SUGGESTIONS + 1);
    const others = words.filter((word) => word.toLowerCase() !== wanted).slice(0, SUGGESTIONS);
    if (others.length > 0) return others;
  }
  return [];
}

/** Said privately, in the member's own language (`own`). */
async function noMatchMessage(query: string, services: BotServices, own: string | undefined): Promise<OutgoingMessage> {
  const t = translatorFor(own);
  const suggestions = await suggestionsFor(query, services).catch(() => []);
  const word = quoteInput(query);
  if (suggestions.length === 0) return userError(t('find.noMatch', { word }));
  // Cut short, so five long words from the service still fit in one message.
  const list = suggestions.map((suggestion) => `**${escapeText(clip(suggestion, SUGGESTION_LENGTH))}**`);
  return userError(t('find.noMatchDidYouMean', { word, suggestions: list.join(t('common.listSeparator')) }));
}

/** The results for everyone in the channel (its language: `locale`); refusals privately, in the member's (`own`). */
async function findMessage(query: string, page: number, services: BotServices, locale: string | undefined, own: string | undefined): Promise<OutgoingMessage> {
  // A try rather than a .catch: no closure and promise of its own per search (bench:commands).
  let found: Lookup<WordMatches> | null;
  try {
    found = await services.lookup.findWord(query, INTERACTIVE);
  } catch (error) {
    if (!isWotdError(error, 'not_found')) throw error;
    found = null;
  }
  const entries = found?.value.entries ?? [];
  if (!found || entries.length === 0) return noMatchMessage(query, services, own);
  const pages = pageCount(entries.length);
  if (page > pages) return userError(translatorFor(own)('find.pageGone', { word: quoteInput(query), pages }));
  const t = translatorFor(locale);
  const message: OutgoingMessage = { embeds: [findEmbed(found.value, page, services.siteUrl, locale)] };
  const buttons = pageButtons(query, page, pages, t);
  if (buttons) message.buttons = buttons;
  // Save buttons for the first entries of the page, as many as the row has room for.
  if (services.learning) {
    const shown = entries.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    message.buttons = [...(message.buttons ?? []), ...saveButtons(t, shown, 5 - (message.buttons?.length ?? 0))];
  }
  if (found.stale) message.content = staleNote(t);
  return message;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const query = (context.options.getString('word') ?? '').trim().replace(/\s+/g, ' ');
  const t = privateT(context.invoker);
  if (query === '') return context.respond(userError(t('find.noWord')));
  if (query.length > MAX_WORD_LENGTH) return context.respond(userError(t('find.tooLong', { max: MAX_WORD_LENGTH })));
  const whereKnown = placeLocale(context.invoker, services);
  const where = typeof whereKnown === 'object' ? await whereKnown : whereKnown;
  await replyWhenReady(context, findMessage(query, 1, services, where, context.invoker.locale), { logger: services.logger });
}

async function handlePage(context: ButtonContext, services: BotServices): Promise<void> {
  const state = parsePageButtonId(context.customId);
  if (!state) return context.respond(userError(privateT(context.invoker)('find.staleButton')));
  const whereKnown = placeLocale(context.invoker, services);
  const where = typeof whereKnown === 'object' ? await whereKnown : whereKnown;
  await updateWhenReady(context, findMessage(state.word, state.page, services, where, context.invoker.locale), { logger: services.logger });
}

/** Suggests words already in the cache; never asks the service, so it is instant and costs no requests. */
async function autocomplete(context: AutocompleteContext, services: BotServices): Promise<void> {
  if (context.focused.name !== 'word') return context.respond([]);
  let words: string[];
  try {
    words = await services.lookup.suggestWords(context.focused.value.trim(), MAX_CHOICES);
  } catch (error) {
    services.logger?.warn({ err: error }, 'word suggestions failed');
    words = [];
  }
  await context.respond(words.slice(0, MAX_CHOICES).map((word) => ({ name: word, value: word })));
}

export const wotdFindCommand: SlashCommand = {
  data,
  execute,
  autocomplete,
  button: { prefix: FIND_PREFIX, handle: handlePage },
};
