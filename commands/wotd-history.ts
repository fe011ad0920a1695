import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder, type APIEmbed } from 'discord.js';
import { ACCENT, attribution } from '../src/replies/embeds.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import { saveButtons } from '../src/replies/learning-replies.ts';
import type { BotServices, ButtonContext, ButtonSpec, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { INTERACTIVE, replyWhenReady, updateWhenReady } from '../src/replies/deliver.ts';
import { entryField } from '../src/replies/entries.ts';
import { staleNote, userError } from '../src/replies/messages.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { longDate, shortDate } from '../src/replies/i18n/formats.ts';
import { placeLocale, privateT } from '../src/replies/i18n/reply-locale.ts';
import { parseIsoDate, type IsoDate } from '../src/wotd/dates.ts';
import { isWotdError } from '../src/wotd/errors.ts';
import type { HistoryPage, Lookup } from '../src/wotd/lookup.ts';
import { dateOptionOrRefuse } from './wotd.ts';

export const HISTORY_PREFIX = 'hist';
export const DEFAULT_LIMIT = 3;
export const MAX_LIMIT = 8;

const data = named(new SlashCommandBuilder(), 'command.wotd-history.name', 'command.wotd-history.description')
  // Installed to a server or to a member's account: works in servers, the bot's DMs, group DMs and other DMs.
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addStringOption((option) => named(option, 'option.date.name', 'command.wotd-history.date.description').setMaxLength(32))
  .addIntegerOption((option) =>
    named(option, 'option.limit.name', 'command.wotd-history.limit.description').setMinValue(1).setMaxValue(MAX_LIMIT),
  );

/** The "Older" button carries everything needed to continue: the day to look before and the page size. */
export function olderButtonId(before: IsoDate, limit: number): string {
  return `${HISTORY_PREFIX}:${before}:${limit}`;
}

export function parseOlderButtonId(customId: string): { before: IsoDate; limit: number } | null {
  const match = /^hist:(\d{4}-\d{2}-\d{2}):(\d{1,2})$/.exec(customId);
  if (!match?.[1] || !match[2]) return null;
  const before = parseIsoDate(match[1]);
  const limit = Number(match[2]);
  if (!before || limit < 1 || limit > MAX_LIMIT) return null;
  return { before, limit };
}

/** Discord refuses an embed whose title, fields and footer together pass this many characters. */
const EMBED_TOTAL_LIMIT = 6000;

function historyEmbed(before: IsoDate, today: IsoDate, page: HistoryPage, siteUrl: string, locale: string | undefined): APIEmbed {
  const t = translatorFor(locale);
  const newest = page.entries[0];
  const oldest = page.entries.at(-1);
  const span =
    newest && oldest
      ? newest === oldest
        ? shortDate(newest.date, locale)
        : t('history.span', { newest: shortDate(newest.date, locale), oldest: shortDate(oldest.date, locale) })
      : '';
  const title = before === today ? t('history.title.recent') : t('history.title.before', { date: longDate(before, locale) });
  const footer = `${span} · ${attribution(siteUrl, locale)}`;
  // Long service text shares what is left of the embed's total evenly among the entries.
  const room = Math.floor((EMBED_TOTAL_LIMIT - title.length - footer.length) / Math.max(1, page.entries.length));
  return {
    title,
    url: siteUrl,
    color: ACCENT,
    fields: page.entries.map((entry) => entryField(entry, room, locale)),
    footer: { text: footer },
  };
}

/** The list for everyone in the channel (its language: `locale`); its refusal privately, in the member's (`own`). */
async function historyMessage(
  before: IsoDate,
  limit: number,
  services: BotServices,
  locale: string | undefined,
  own: string | undefined,
): Promise<OutgoingMessage> {
  const today = services.lookup.today();
  // A try rather than a .catch: no closure and promise of its own per page (bench:commands).
  let found: Lookup<HistoryPage> | null;
  try {
    found = await services.lookup.getPrevious(before, limit, INTERACTIVE);
  } catch (error) {
    if (!isWotdError(error, 'not_found')) throw error;
    found = null;
  }
  const page = found?.value;
  const oldest = page?.entries.at(-1);
  if (!found || !page || !oldest) return userError(translatorFor(own)('error.noWordsBefore', { date: longDate(before, own) }));
  const message: OutgoingMessage = { embeds: [historyEmbed(before, today, page, services.siteUrl, locale)] };
  const t = translatorFor(locale);
  if (page.hasMore) {
    const older: ButtonSpec = { customId: olderButtonId(oldest.date, limit), label: t('button.older'), style: 'secondary' };
    message.buttons = [older];
  }
  // Save buttons for the first entries shown, as many as the row has room for.
  if (services.learning) message.buttons = [...(message.buttons ?? []), ...saveButtons(t, page.entries, 5 - (message.buttons?.length ?? 0))];
  if (found.stale) message.content = staleNote(t);
  return message;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const beforeRead = dateOptionOrRefuse(context, services.lookup.today());
  const before = typeof beforeRead === 'string' ? beforeRead : await beforeRead;
  if (!before) return;
  const limit = context.options.getInteger('limit') ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return context.respond(userError(privateT(context.invoker)('history.badLimit', { max: MAX_LIMIT, given: String(limit) })));
  }
  const localeKnown = placeLocale(context.invoker, services);
  const locale = typeof localeKnown === 'object' ? await localeKnown : localeKnown;
  await replyWhenReady(context, historyMessage(before, limit, services, locale, context.invoker.locale), {
    subject: { before },
    logger: services.logger,
  });
}

/** "Older": the page before the oldest entry shown, replacing the message the button sits on. */
async function handleOlder(context: ButtonContext, services: BotServices): Promise<void> {
  const state = parseOlderButtonId(context.customId);
  if (!state || state.before > services.lookup.today()) return context.respond(userError(privateT(context.invoker)('history.staleButton')));
  const localeKnown = placeLocale(context.invoker, services);
  const locale = typeof localeKnown === 'object' ? await localeKnown : localeKnown;
  await updateWhenReady(context, historyMessage(state.before, state.limit, services, locale, context.invoker.locale), {
    subject: { before: state.before },
    logger: services.logger,
  });
}

export const wotdHistoryCommand: SlashCommand = {
  data,
  execute,
  button: { prefix: HISTORY_PREFIX, handle: handleOlder },
};
