import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { BotServices, ButtonContext, CommandContext, Invoker, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { privateT } from '../src/replies/i18n/reply-locale.ts';
import type { Translate } from '../src/replies/i18n/translate.ts';
import { ANOTHER_MEMBER, type DataExport, type PrivacyService } from '../src/schedule/privacy.ts';

export const DATA_PREFIX = 'data';
export const EXPORT_FILE = 'wotd-data.json';

const data = named(new SlashCommandBuilder(), 'command.wotd-data.name', 'command.wotd-data.description')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addSubcommand((sub) => named(sub, 'command.wotd-data.export.name', 'command.wotd-data.export.description'))
  .addSubcommand((sub) =>
    named(sub, 'command.wotd-data.forget.name', 'command.wotd-data.forget.description').addBooleanOption((option) =>
      named(option, 'option.server.name', 'command.wotd-data.forget.server.description'),
    ),
  );

/** The server whose data the member may see and erase: one the bot is in, where they hold Manage Server. */
function manageableServer(invoker: Invoker): string | null {
  if (!invoker.guildId || invoker.botInGuild === false || invoker.context === 'private_channel') return null;
  return invoker.canManageGuild === true ? invoker.guildId : null;
}

function exportSummary(exported: DataExport, serverNote: string, t: Translate): string {
  const { member, server } = exported;
  const records = member.dmDeliveries.length;
  const dm = member.dmSubscription
    ? t('data.export.dm', { records })
    : records > 0
      ? t('data.export.dmEarlier', { records })
      : t('data.export.noDm');
  const yours = t('data.export.yours', { file: EXPORT_FILE, dm, created: member.serverSubscriptionsCreated.length });
  const theirs = server
    ? ` ${t('data.export.server', { subscriptions: server.subscriptions.length, records: server.deliveries.length })}`
    : serverNote;
  return `${yours}${theirs}`;
}

async function exportData(context: CommandContext, privacy: PrivacyService): Promise<void> {
  const t = privateT(context.invoker);
  await context.defer({ ephemeral: true });
  const guildId = manageableServer(context.invoker);
  const serverNote =
    context.invoker.guildId && context.invoker.context === 'guild' && !guildId
      ? ` ${context.invoker.botInGuild === false ? t('data.export.notInServer') : t('data.export.serverNeedsManage')}`
      : '';
  const exported = await privacy.exportData(context.invoker.userId, guildId);
  exported.about = t('data.export.about', { file: EXPORT_FILE, anotherMember: ANOTHER_MEMBER });
  await context.respond({
    ephemeral: true,
    content: exportSummary(exported, serverNote, t),
    files: [{ name: EXPORT_FILE, text: `${JSON.stringify(exported, null, 2)}\n` }],
  });
}

/** `data:forget:<me|server>:<user id>:<guild id or ->` and `data:keep`: the whole request travels in the button. */
function forgetButtonId(scope: 'me' | 'server', userId: string, guildId: string | null): string {
  return `${DATA_PREFIX}:forget:${scope}:${userId}:${guildId ?? '-'}`;
}

function parseForgetButton(customId: string): { scope: 'me' | 'server'; userId: string; guildId: string | null } | null {
  const match = /^data:forget:(me|server):([^:]+):([^:]+)$/.exec(customId);
  if (!match?.[1] || !match[2] || !match[3]) return null;
  return { scope: match[1] === 'server' ? 'server' : 'me', userId: match[2], guildId: match[3] === '-' ? null : match[3] };
}

async function askToForget(context: CommandContext): Promise<void> {
  const t = privateT(context.invoker);
  const wantsServer = context.options.getBoolean('server') === true;
  const guildId = manageableServer(context.invoker);
  if (wantsServer && !guildId) return context.respond(privateNote(t('data.forget.serverNeedsManage')));
  const message: OutgoingMessage = {
    ephemeral: true,
    content: wantsServer ? t('data.forget.confirmServer') : t('data.forget.confirm'),
    buttons: [
      {
        customId: forgetButtonId(wantsServer ? 'server' : 'me', context.invoker.userId, wantsServer ? guildId : null),
        label: t('button.erase'),
        style: 'danger',
      },
      { customId: `${DATA_PREFIX}:keep`, label: t('button.keep'), style: 'secondary' },
    ],
  };
  await context.respond(message);
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  if (!services.privacy) return context.respond(privateNote(t('data.nothingStored')));
  const subcommand = context.options.getSubcommand();
  if (subcommand === 'export') return exportData(context, services.privacy);
  if (subcommand === 'forget') return askToForget(context);
  await context.respond(privateNote(t('data.chooseSubcommand')));
}

async function handleButton(context: ButtonContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  if (context.customId === `${DATA_PREFIX}:keep`) return context.update({ content: t('data.forget.kept') });
  const request = parseForgetButton(context.customId);
  if (!request || !services.privacy) return context.respond(privateNote(t('data.forget.staleButton')));
  if (request.userId !== context.invoker.userId) return context.respond(privateNote(t('data.forget.notYourButton')));
  if (request.scope === 'server' && (request.guildId === null || manageableServer(context.invoker) !== request.guildId)) {
    return context.respond(privateNote(t('data.forget.lostManage')));
  }
  await context.defer();
  const member = await services.privacy.forgetMember(request.userId);
  const servers = request.scope === 'server' && request.guildId ? await services.privacy.forgetServer(request.guildId) : null;
  const dm = member.dmSubscription
    ? t('data.erased.dm')
    : member.dmDeliveries > 0
      ? t('data.erased.dmEarlier', { records: member.dmDeliveries })
      : t('data.erased.noDm');
  const ids = t('data.erased.ids', { count: member.serverSubscriptionsAnonymised });
  const content =
    servers === null
      ? t('data.erased', { dm, ids })
      : t('data.erased.withServer', { dm, ids, server: t('data.erased.server', { count: servers }) });
  await context.update({ content });
}

export const wotdDataCommand: SlashCommand = { data, execute, button: { prefix: DATA_PREFIX, handle: handleButton } };

