import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { BotServices, ButtonContext, CommandContext, Invoker, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import type { DataExport, PrivacyService } from '../src/schedule/privacy.ts';

export const DATA_PREFIX = 'data';
export const EXPORT_FILE = 'wotd-data.json';

const data = new SlashCommandBuilder()
  .setName('wotd-data')
  .setDescription('See or erase what the bot stores about you (and, for a server admin, about the server)')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addSubcommand((sub) => sub.setName('export').setDescription('Send me everything stored about me (and this server, if I manage it) as a JSON file'))
  .addSubcommand((sub) =>
    sub
      .setName('forget')
      .setDescription('Erase what is stored about me, after a confirmation')
      .addBooleanOption((option) => option.setName('server').setDescription("Also erase this server's daily posts and their records (Manage Server)")),
  );

/** The server whose data the member may see and erase: one the bot is in, where they hold Manage Server. */
function manageableServer(invoker: Invoker): string | null {
  if (!invoker.guildId || invoker.botInGuild === false || invoker.context === 'private_channel') return null;
  return invoker.canManageGuild === true ? invoker.guildId : null;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function exportSummary(exported: DataExport, serverNote: string): string {
  const { member, server } = exported;
  const parts = [
    member.dmSubscription
      ? `your DM subscription with ${plural(member.dmDeliveries.length, 'delivery record')}`
      : member.dmDeliveries.length > 0
        ? `no DM subscription, but ${plural(member.dmDeliveries.length, 'delivery record')} of an earlier one (kept until they are pruned)`
        : 'no DM subscription',
    `your id on ${plural(member.serverSubscriptionsCreated.length, 'server subscription')} you created`,
  ];
  const yours = `Everything I store about you is in ${EXPORT_FILE}: ${parts.join(', and ')}.`;
  const theirs = server
    ? ` This server: ${plural(server.subscriptions.length, 'subscription')} and ${plural(server.deliveries.length, 'delivery record')}.`
    : serverNote;
  return `${yours}${theirs}`;
}

async function exportData(context: CommandContext, privacy: PrivacyService): Promise<void> {
  await context.defer({ ephemeral: true });
  const guildId = manageableServer(context.invoker);
  const serverNote =
    context.invoker.guildId && context.invoker.context === 'guild' && !guildId
      ? context.invoker.botInGuild === false
        ? ' I am not in this server, so I store nothing about it.'
        : " This server's data is included for members with **Manage Server**."
      : '';
  const exported = await privacy.exportData(context.invoker.userId, guildId);
  await context.respond({
    ephemeral: true,
    content: exportSummary(exported, serverNote),
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
  const wantsServer = context.options.getBoolean('server') === true;
  const guildId = manageableServer(context.invoker);
  if (wantsServer && !guildId) {
    return context.respond(
      privateNote("Erasing a server's data needs **Manage Server**, in a server I am in. Run `/wotd-data forget` without `server` to erase only yours."),
    );
  }
  const what = wantsServer
    ? "your DM subscription and its records, your id on the server subscriptions you created, and **all of this server's daily posts and their records**"
    : 'your DM subscription and its records, and your id on the server subscriptions you created (those subscriptions stay, they belong to their servers)';
  const message: OutgoingMessage = {
    ephemeral: true,
    content: `This erases ${what}. It cannot be undone. \`/wotd-data export\` first if you want a copy.`,
    buttons: [
      { customId: forgetButtonId(wantsServer ? 'server' : 'me', context.invoker.userId, wantsServer ? guildId : null), label: 'Erase', style: 'danger' },
      { customId: `${DATA_PREFIX}:keep`, label: 'Keep it', style: 'secondary' },
    ],
  };
  await context.respond(message);
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  if (!services.privacy) return context.respond(privateNote('I store nothing about anyone here: daily posts are not run by this bot.'));
  const subcommand = context.options.getSubcommand();
  if (subcommand === 'export') return exportData(context, services.privacy);
  if (subcommand === 'forget') return askToForget(context);
  await context.respond(privateNote('Choose `/wotd-data export` or `/wotd-data forget`.'));
}

async function handleButton(context: ButtonContext, services: BotServices): Promise<void> {
  if (context.customId === `${DATA_PREFIX}:keep`) return context.update({ content: 'Nothing was erased.' });
  const request = parseForgetButton(context.customId);
  if (!request || !services.privacy) return context.respond(privateNote('This button no longer works. Run `/wotd-data forget` again.'));
  if (request.userId !== context.invoker.userId) return context.respond(privateNote('This button belongs to someone else.'));
  if (request.scope === 'server' && (request.guildId === null || manageableServer(context.invoker) !== request.guildId)) {
    return context.respond(privateNote("You no longer have **Manage Server** here, so this server's data was not erased."));
  }
  await context.defer();
  const member = await services.privacy.forgetMember(request.userId);
  const servers = request.scope === 'server' && request.guildId ? await services.privacy.forgetServer(request.guildId) : null;
  const parts = [
    member.dmSubscription
      ? 'your DM subscription and its records'
      : member.dmDeliveries > 0
        ? `the ${plural(member.dmDeliveries, 'delivery record')} of your earlier DM subscription`
        : 'no DM subscription (there was none)',
    `your id on ${plural(member.serverSubscriptionsAnonymised, 'server subscription')}`,
    ...(servers === null ? [] : [`this server's ${plural(servers, 'subscription')} and their records`]),
  ];
  await context.update({ content: `Erased ${parts.join(', ')}.` });
}

export const wotdDataCommand: SlashCommand = { data, execute, button: { prefix: DATA_PREFIX, handle: handleButton } };

