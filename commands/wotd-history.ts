import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder, type APIEmbed } from 'discord.js';
import { ACCENT, attribution } from '../src/replies/embeds.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import { saveButtons } from '../src/replies/learning-replies.ts';
import type { BotServices, ButtonContext, ButtonSpec, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { describeDate } from '../src/replies/date-text.ts';
import { INTERACTIVE, replyWhenReady, updateWhenReady } from '../src/replies/deliver.ts';
import { entryField } from '../src/replies/entries.ts';
import { STALE_NOTE, userError } from '../src/replies/messages.ts';
import { parseIsoDate, type IsoDate } from '../src/wotd/dates.ts';
import { isWotdError } from '../src/wotd/errors.ts';
import type { HistoryPage } from '../src/wotd/lookup.ts';
import { DATE_OPTION_DESCRIPTION, dateOptionOrRefuse } from './wotd.ts';

export const HISTORY_PREFIX = 'hist';
export const DEFAULT_LIMIT = 3;
export const MAX_LIMIT = 8;

const data = new SlashCommandBuilder()
  .setName('wotd-history')
  // Installed to a server or to a member's account: works in servers, the bot's DMs, group DMs and other DMs.
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .setDescription('List the words of the day before a date, newest first')
  .addStringOption((option) =>
    option.setName('date').setDescription(`Show the words before this day: ${DATE_OPTION_DESCRIPTION}`).setMaxLength(32),
  )
  .addIntegerOption((option) =>
    option
      .setName('limit')
      .setDescription(`How many words to show, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`)
      .setMinValue(1)
      .setMaxValue(MAX_LIMIT),
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

function historyEmbed(before: IsoDate, today: IsoDate, page: HistoryPage, siteUrl: string): APIEmbed {
  const newest = page.entries[0];
  const oldest = page.entries.at(-1);
  const span = newest && oldest ? (newest === oldest ? newest.date : `${newest.date} to ${oldest.date}`) : '';
  const title = before === today ? 'Recent words of the day' : `Words of the day before ${describeDate(before)}`;
  const footer = `${span} · ${attribution(siteUrl)}`;
  // Long service text shares what is left of the embed's total evenly among the entries.
  const room = Math.floor((EMBED_TOTAL_LIMIT - title.length - footer.length) / Math.max(1, page.entries.length));
  return {
    title,
    url: siteUrl,
    color: ACCENT,
    fields: page.entries.map((entry) => entryField(entry, room)),
    footer: { text: footer },
  };
}

async function historyMessage(before: IsoDate, limit: number, services: BotServices, locale?: string): Promise<OutgoingMessage> {
  const today = services.lookup.today();
  const found = await services.lookup.getPrevious(before, limit, INTERACTIVE).catch((error: unknown) => {
    if (isWotdError(error, 'not_found')) return null;
    throw error;
  });
  const page = found?.value;
  const oldest = page?.entries.at(-1);
  if (!found || !page || !oldest) return userError(`There are no words of the day before ${describeDate(before)}.`);
  const message: OutgoingMessage = { embeds: [historyEmbed(before, today, page, services.siteUrl)] };
  if (page.hasMore) {
    const older: ButtonSpec = { customId: olderButtonId(oldest.date, limit), label: 'Older', style: 'secondary' };
    message.buttons = [older];
  }
  // Save buttons for the first entries shown, as many as the row has room for.
  if (services.learning) message.buttons = [...(message.buttons ?? []), ...saveButtons(translatorFor(locale), page.entries, 5 - (message.buttons?.length ?? 0))];
  if (found.stale) message.content = STALE_NOTE;
  return message;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const before = await dateOptionOrRefuse(context, services.lookup.today());
  if (!before) return;
  const limit = context.options.getInteger('limit') ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return context.respond(userError(`The limit must be a whole number from 1 to ${MAX_LIMIT}; you gave ${limit}.`));
  }
  await replyWhenReady(context, historyMessage(before, limit, services, context.invoker.locale), {
    subject: { before },
    logger: services.logger,
  });
}

const STALE_BUTTON = 'This button no longer works. Run `/wotd-history` again to see the words of the day.';

/** "Older": the page before the oldest entry shown, replacing the message the button sits on. */
async function handleOlder(context: ButtonContext, services: BotServices): Promise<void> {
  const state = parseOlderButtonId(context.customId);
  if (!state || state.before > services.lookup.today()) return context.respond(userError(STALE_BUTTON));
  await updateWhenReady(context, historyMessage(state.before, state.limit, services, context.invoker.locale), {
    subject: { before: state.before },
    logger: services.logger,
  });
}

export const wotdHistoryCommand: SlashCommand = {
  data,
  execute,
  button: { prefix: HISTORY_PREFIX, handle: handleOlder },
};
