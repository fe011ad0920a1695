import { ApplicationIntegrationType, ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { dailyPostEmbed } from '../src/replies/daily-embeds.ts';
import type { AutocompleteContext, BotServices, ChannelPermission, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { privateNote, STALE_NOTE, userError } from '../src/replies/messages.ts';
import { buildMessage } from '../src/schedule/delivery.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import { INTRO_LIMIT } from '../src/schedule/post-shape.ts';
import { translatorFor, type Translate } from '../src/replies/i18n/translate.ts';
import { catalogLocaleOf } from '../src/replies/i18n/locales.ts';
import { pauseState, settingsSummary, type Mentions } from '../src/replies/subscribe-replies.ts';
import { readSubscribeOptions, subscribeAnswer, SUBSCRIBE_OPTION_TEXT } from '../src/replies/subscribe-options.ts';
import {
  adminGate,
  channelMention,
  discordTime,
  isConsoleChannel,
  PERMISSION_NAMES,
  REQUIRED_PERMISSIONS,
} from '../src/replies/admin-replies.ts';
import { requestedSettings, settingsOf, suggestTimeZones, type SubscribeRequest } from '../src/schedule/subscription-service.ts';

const AUTOCOMPLETE_CHOICES = 25;

/** What the bot needs in the notice channel to write a notice there. */
const NOTICE_PERMISSIONS: ChannelPermission[] = ['ViewChannel', 'SendMessages'];

const data = new SlashCommandBuilder()
  .setName('wotd-subscribe')
  .setDescription('Post the word of the day in a channel every day (or change that channel\'s settings)')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild)
  .addChannelOption((option) =>
    option
      .setName('channel')
      .setDescription('A text or announcement channel')
      .setRequired(true)
      .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
  )
  .addStringOption((option) =>
    option.setName('time').setDescription('Time of day to post, 24-hour HH:MM (default 09:00)').setMinLength(3).setMaxLength(5),
  )
  .addStringOption((option) =>
    option
      .setName('timezone')
      .setDescription('IANA time zone of that time, e.g. Europe/London (default UTC)')
      .setMaxLength(64)
      .setAutocomplete(true),
  )
  .addRoleOption((option) => option.setName('role').setDescription('A role to mention with each post'))
  .addStringOption((option) =>
    option
      .setName('style')
      .setDescription('full: like /wotd (default); compact: the word, IPA and a one-line definition')
      .addChoices({ name: 'full', value: 'full' }, { name: 'compact', value: 'compact' }),
  )
  .addBooleanOption((option) => option.setName('thread').setDescription('Open a thread on each post for discussion'))
  .addBooleanOption((option) =>
    option.setName('publish').setDescription('In an announcement channel, publish each post to the servers that follow it'),
  )
  .addStringOption((option) => option.setName('days').setDescription(SUBSCRIBE_OPTION_TEXT.days).setMaxLength(60))
  .addBooleanOption((option) => option.setName('pause').setDescription(SUBSCRIBE_OPTION_TEXT.pause))
  .addStringOption((option) => option.setName('until').setDescription(SUBSCRIBE_OPTION_TEXT.until).setMinLength(10).setMaxLength(10))
  .addBooleanOption((option) => option.setName('skip').setDescription(SUBSCRIBE_OPTION_TEXT.skip))
  .addStringOption((option) => option.setName('reset').setDescription(SUBSCRIBE_OPTION_TEXT.reset).setMaxLength(80))
  .addStringOption((option) => option.setName('colour').setDescription(SUBSCRIBE_OPTION_TEXT.colour).setMaxLength(7))
  .addStringOption((option) => option.setName('intro').setDescription(SUBSCRIBE_OPTION_TEXT.intro).setMaxLength(INTRO_LIMIT))
  .addChannelOption((option) =>
    option.setName('notices').setDescription(SUBSCRIBE_OPTION_TEXT.notices).addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
  )
  .addBooleanOption((option) =>
    option.setName('preview').setDescription('Show me the post as these settings would make it, privately; nothing is saved'),
  );

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const channel = context.options.getChannel('channel');
  const gate = await adminGate(context, services, channel);
  if (!gate) return;
  if (!channel) return context.respond(userError('Choose the channel to post in.'));
  const console = isConsoleChannel(channel.id);
  const where = channelMention(channel.id, channel.name, console);
  if (channel.kind === 'other') {
    return context.respond(userError(`${where} is not a text or announcement channel; daily posts can only go to one of those.`));
  }
  const locale = context.invoker.locale;
  const t = translatorFor(locale);

  // Options left out keep what the channel's subscription has (a new one: the defaults), unless `reset` names them.
  const saved = await gate.subscriptions.current(channel.id);
  const existing = saved?.guildId === gate.guildId ? saved : null;
  const read = readSubscribeOptions(context.options, existing, t, gate.subscriptions.now());
  if (!read.ok) return context.respond(userError(read.message));

  const role = context.options.getRole('role');
  if (role && role.id === gate.guildId) {
    // Broken with a zero-width space: even this note must not be able to ping everyone.
    return context.respond(userError('Daily posts never ping @\u200beveryone. Choose a specific role to mention, or none.'));
  }

  const request: SubscribeRequest = {
    guildId: gate.guildId,
    channelId: channel.id,
    channelName: channel.name,
    userId: context.invoker.userId,
    ...read.request,
    ...(role ? { roleId: role.id } : {}),
  };
  const settings = requestedSettings(request, existing);
  if (settings.publish && channel.kind !== 'announcement') {
    return context.respond(privateNote(`Only announcement channels can publish posts to other servers, and ${where} is not one. Leave out \`publish\`, or choose an announcement channel.`));
  }

  if (!context.botPermissionsIn) {
    return context.respond(privateNote(`I cannot check my permissions in ${where} from here, so I have not subscribed it.`));
  }
  const held = await context.botPermissionsIn(channel.id);
  const needed: ChannelPermission[] = settings.openThread ? [...REQUIRED_PERMISSIONS, 'CreatePublicThreads'] : REQUIRED_PERMISSIONS;
  const missing = needed.filter((permission) => !held.has(permission));
  if (missing.length > 0) {
    const names = missing.map((permission) => `**${PERMISSION_NAMES[permission]}**`);
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    return context.respond(
      userError(`I can't post in ${where}: I'm missing ${list} there. Give me ${missing.length === 1 ? 'it' : 'them'} in the channel's permissions, then run this again.`),
    );
  }

  const noticeChannel = context.options.getChannel('notices');
  if (noticeChannel) {
    const there = noticeChannel.kind === 'other' ? new Set<ChannelPermission>() : await context.botPermissionsIn(noticeChannel.id);
    const lacking = NOTICE_PERMISSIONS.filter((permission) => !there.has(permission));
    if (lacking.length > 0) {
      const list = new Intl.ListFormat(catalogLocaleOf(locale), { type: 'conjunction' }).format(lacking.map((permission) => `**${PERMISSION_NAMES[permission]}**`));
      const named = channelMention(noticeChannel.id, noticeChannel.name, console);
      return context.respond(userError(t('subscribe.error.noticeChannel', { channel: named, permissions: list })));
    }
  }

  const mentions: Mentions = {
    role: (roleId) => (console ? `@${roleId === role?.id ? role.name : roleId}` : `<@&${roleId}>`),
    channel: (channelId) => (console || isConsoleChannel(channelId) ? `#${channelId}` : `<#${channelId}>`),
  };
  if (context.options.getBoolean('preview') === true) {
    const draft = await gate.subscriptions.draft(request);
    return replyWhenReady(context, previewMessage(draft, where, mentions, t, locale, services, gate.subscriptions.now()), {
      subject: { date: services.lookup.today() },
      logger: services.logger,
    });
  }

  const result = await gate.subscriptions.subscribe(request);
  if (result.kind === 'limit_reached') {
    return context.respond(
      userError(
        `This server already has ${result.count} daily-post subscriptions, the most it may have (${result.limit}). Remove one with /wotd-unsubscribe first.`,
      ),
    );
  }
  const overview = (await gate.subscriptions.list(gate.guildId)).find((item) => item.subscription.channelId === channel.id);
  await context.respond(privateNote(subscribeAnswer({ ...result, overview, where, locale, t, mentions, now: gate.subscriptions.now() })));
}

/**
 * The post exactly as the channel would get it, with today's word, for the admin only: the saved settings plus the
 * ones given, the embed the scheduler would send and the role mention (shown, pinging nobody), under a line saying
 * it is a preview.
 */
async function previewMessage(
  draft: Subscription,
  where: string,
  mentions: Mentions,
  t: Translate,
  locale: string | undefined,
  services: BotServices,
  now: Date,
): Promise<OutgoingMessage> {
  const found = await services.lookup.getEntry(services.lookup.today(), INTERACTIVE);
  const settings = settingsOf(draft);
  const post = buildMessage(draft, dailyPostEmbed(found.value, settings.style, { siteUrl: services.siteUrl }), found.value.date);
  const lines = [
    t('subscribe.preview', { channel: where, summary: settingsSummary(settings, t, locale, mentions) }),
    post.thread ? t('subscribe.preview.thread', { name: post.thread.name }) : '',
    post.publish ? t('subscribe.preview.publish') : '',
    pauseState(draft, now, t, locale),
    t('subscribe.preview.nothingSaved'),
  ].filter(Boolean);
  // The post's own content (its intro, or the role mention), as the channel would get it; at the console a role is its name.
  const content = [found.stale ? STALE_NOTE : '', lines.join(' '), consoleRoles(post.content ?? '', mentions)].filter(Boolean).join('\n\n');
  return { content, embeds: post.embeds, ephemeral: true };
}

/** `<@&id>` as the reader sees a role (at the console, its name). */
function consoleRoles(content: string, mentions: Mentions): string {
  return content.replace(/<@&([^>]+)>/g, (_whole, id: string) => mentions.role(id));
}

/** Suggests IANA zones for the `timezone` option (shared by /wotd-subscribe-me). */
export async function autocomplete(context: AutocompleteContext): Promise<void> {
  if (context.focused.name !== 'timezone') return context.respond([]);
  const zones = suggestTimeZones(context.focused.value, AUTOCOMPLETE_CHOICES);
  await context.respond(zones.map((zone) => ({ name: zone.replaceAll('_', ' '), value: zone })));
}

export const wotdSubscribeCommand: SlashCommand = { data, execute, autocomplete };
