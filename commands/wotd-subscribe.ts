import { ApplicationIntegrationType, ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { dailyPostEmbed, dailyPostRendering } from '../src/replies/daily-embeds.ts';
import { postsAsThreads, type AutocompleteContext, type BotServices, type ChannelPermission, type CommandContext, type Invoker, type ModalContext, type OutgoingMessage, type SlashCommand } from '../src/replies/interactions.ts';
import { DATE_STYLE_CHOICES, PARTS_OPTION_MAX_LENGTH } from '../src/replies/look-options.ts';
import { givesOtherOptions, INTRO_INPUT_ID, INTRO_MODAL_PREFIX, introModal, introModalChannel, introModalOptions } from '../src/replies/intro-modal.ts';
import { lookOf } from '../src/schedule/post-look.ts';
import { introDate } from '../src/replies/date-style.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { privateNote, quoteInput, staleNote, userError } from '../src/replies/messages.ts';
import { buildMessage } from '../src/schedule/delivery.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import { INTRO_LIMIT } from '../src/schedule/post-shape.ts';
import { FORUM_TAG_NAME_LIMIT, forumSettingsProblem, readForumTag } from '../src/replies/forum-options.ts';
import { adminGate, channelMention, isConsoleChannel, permissionName, REQUIRED_PERMISSIONS } from '../src/replies/admin-replies.ts';
import { choice, named } from '../src/replies/i18n/command-text.ts';
import { andList } from '../src/replies/i18n/formats.ts';
import { privateLocale, privateT, publicLocale } from '../src/replies/i18n/reply-locale.ts';
import type { Translate } from '../src/replies/i18n/translate.ts';
import { languageOrRefuse, suggestLanguages } from '../src/replies/language-option.ts';
import { TIME_OPTION_MAX_LENGTH } from '../src/replies/schedule-options.ts';
import { pauseState, settingsSummary, type Mentions } from '../src/replies/subscribe-replies.ts';
import { readSubscribeOptions, subscribeAnswer } from '../src/replies/subscribe-options.ts';
import { webhookSettingsProblem } from '../src/replies/webhook-options.ts';
import { WEBHOOK_AVATAR_LIMIT, WEBHOOK_NAME_LIMIT } from '../src/schedule/webhook-identity.ts';
import { requestedSettings, settingsOf, suggestTimeZones, type SubscribeRequest } from '../src/schedule/subscription-service.ts';

const AUTOCOMPLETE_CHOICES = 25;

/** What the bot needs in the notice channel to write a notice there. */
const NOTICE_PERMISSIONS: ChannelPermission[] = ['ViewChannel', 'SendMessages'];

const data = named(new SlashCommandBuilder(), 'command.wotd-subscribe.name', 'command.wotd-subscribe.description')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild)
  .addChannelOption((option) =>
    named(option, 'option.channel.name', 'command.wotd-subscribe.channel.description')
      .setRequired(true)
      .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement, ChannelType.GuildForum, ChannelType.GuildMedia),
  )
  .addStringOption((option) => named(option, 'option.time.name', 'command.wotd-subscribe.time.description').setMinLength(3).setMaxLength(TIME_OPTION_MAX_LENGTH))
  .addStringOption((option) =>
    named(option, 'option.timezone.name', 'command.wotd-subscribe.timezone.description').setMaxLength(64).setAutocomplete(true),
  )
  .addRoleOption((option) => named(option, 'option.role.name', 'command.wotd-subscribe.role.description'))
  .addStringOption((option) =>
    named(option, 'option.style.name', 'command.option.style.description').addChoices(choice('style.full', 'full'), choice('style.compact', 'compact')),
  )
  .addBooleanOption((option) => named(option, 'option.thread.name', 'command.wotd-subscribe.thread.description'))
  .addBooleanOption((option) => named(option, 'option.publish.name', 'command.wotd-subscribe.publish.description'))
  .addStringOption((option) => named(option, 'option.days.name', 'command.wotd-subscribe.days.description').setMaxLength(60))
  .addBooleanOption((option) => named(option, 'option.pause.name', 'command.wotd-subscribe.pause.description'))
  .addStringOption((option) => named(option, 'option.until.name', 'command.wotd-subscribe.until.description').setMinLength(10).setMaxLength(10))
  .addBooleanOption((option) => named(option, 'option.skip.name', 'command.wotd-subscribe.skip.description'))
  .addStringOption((option) => named(option, 'option.reset.name', 'command.wotd-subscribe.reset.description').setMaxLength(80))
  .addStringOption((option) => named(option, 'option.colour.name', 'command.wotd-subscribe.colour.description').setMaxLength(7))
  .addStringOption((option) => named(option, 'option.intro.name', 'command.wotd-subscribe.intro.description').setMaxLength(INTRO_LIMIT))
  .addChannelOption((option) =>
    named(option, 'option.notices.name', 'command.wotd-subscribe.notices.description').addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
  )
  .addBooleanOption((option) => named(option, 'option.preview.name', 'command.wotd-subscribe.preview.description'))
  .addStringOption((option) =>
    named(option, 'option.language.name', 'command.wotd-subscribe.language.description').setMaxLength(32).setAutocomplete(true),
  )
  .addBooleanOption((option) => named(option, 'option.quiz.name', 'command.wotd-subscribe.quiz.description'))
  .addStringOption((option) => named(option, 'option.parts.name', 'command.wotd-subscribe.parts.description').setMaxLength(PARTS_OPTION_MAX_LENGTH))
  .addStringOption((option) =>
    named(option, 'option.dateStyle.name', 'command.wotd-subscribe.date-style.description').addChoices(...DATE_STYLE_CHOICES.map(({ key, value }) => choice(key, value))),
  )
  .addBooleanOption((option) => named(option, 'option.introEdit.name', 'command.wotd-subscribe.intro-edit.description'))
  .addStringOption((option) => named(option, 'option.forumtag.name', 'command.wotd-subscribe.forum-tag.description').setMaxLength(FORUM_TAG_NAME_LIMIT))
  .addBooleanOption((option) => named(option, 'option.pin.name', 'command.wotd-subscribe.pin.description'))

  .addStringOption((option) => named(option, 'option.webhookName.name', 'command.wotd-subscribe.webhookName.description').setMaxLength(WEBHOOK_NAME_LIMIT))
  .addStringOption((option) => named(option, 'option.webhookAvatar.name', 'command.wotd-subscribe.webhookAvatar.description').setMaxLength(WEBHOOK_AVATAR_LIMIT));

function execute(context: CommandContext, services: BotServices): Promise<void> {
  return subscribe(context, services, false);
}

/** A submitted intro form: the command again with the channel and the intro typed, checked exactly as the option. */
async function submitIntro(context: ModalContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  const channelId = introModalChannel(context.customId);
  const intro = context.value(INTRO_INPUT_ID);
  if (channelId === null || intro === null) return context.respond(userError(t('subscribe.modal.stale')));
  const channel = (await context.channel(channelId)) ?? { id: channelId, name: channelId, kind: 'text' as const };
  const command: CommandContext = {
    commandName: 'wotd-subscribe',
    options: introModalOptions(channel, intro),
    invoker: context.invoker,
    get acknowledged() {
      return context.acknowledged;
    },
    defer: (options) => context.defer(options),
    respond: (message) => context.respond(message),
    ...(context.botPermissionsIn ? { botPermissionsIn: context.botPermissionsIn.bind(context) } : {}),
    ...(context.memberCanManageChannel ? { memberCanManageChannel: context.memberCanManageChannel.bind(context) } : {}),
    ...(context.forumFactsOf ? { forumFactsOf: context.forumFactsOf.bind(context) } : {}),
  };
  return subscribe(command, services, true);
}

/** `fromForm`: a submitted intro form, which changes a subscription that exists and never makes one. */
async function subscribe(context: CommandContext, services: BotServices, fromForm: boolean): Promise<void> {
  const t = privateT(context.invoker);
  const locale = privateLocale(context.invoker);
  const channel = context.options.getChannel('channel');
  const gate = await adminGate(context, services, channel);
  if (!gate) return;
  if (!channel) return context.respond(userError(t('subscribe.noChannel')));
  const console = isConsoleChannel(channel.id);
  const where = channelMention(channel.id, channel.name, console);
  if (channel.kind === 'other') return context.respond(userError(t('subscribe.notTextChannel', { channel: where })));

  // Options left out keep what the channel's subscription has (a new one: the defaults), unless `reset` names them.
  const saved = await gate.subscriptions.current(channel.id);
  const existing = saved?.guildId === gate.guildId ? saved : null;
  if (fromForm && !existing) return context.respond(userError(t('subscribe.modal.noSubscription', { channel: where })));
  if (context.options.getBoolean('intro-edit') === true) {
    if (givesOtherOptions(context.options)) return context.respond(userError(t('subscribe.modal.alone')));
    if (!existing) return context.respond(userError(t('subscribe.modal.noSubscription', { channel: where })));
    if (!context.showModal) return context.respond(userError(t('subscribe.modal.unsupported')));
    return context.showModal(introModal(channel.id, existing.intro ?? null, t));
  }
  const read = readSubscribeOptions(context.options, existing, t, locale, gate.subscriptions.now());
  if (!read.ok) return context.respond(userError(read.message));

  const role = context.options.getRole('role');
  // Broken with a zero-width space: even this note must not be able to ping everyone.
  if (role && role.id === gate.guildId) return context.respond(userError(t('subscribe.everyone', { everyone: '@\u200beveryone' })));

  const chosen = await languageOrRefuse(context, t);
  const quiz = context.options.getBoolean('quiz');
  if (!chosen) return;
  const forumFacts = postsAsThreads(channel.kind) ? ((await context.forumFactsOf?.(channel.id)) ?? null) : null;
  const tag = readForumTag(context.options.getString('forum-tag'), channel, forumFacts, { where, t, locale });
  if (!tag.ok) return context.respond(userError(tag.message));

  const request: SubscribeRequest = {
    guildId: gate.guildId,
    channelId: channel.id,
    channelName: channel.name,
    userId: context.invoker.userId,
    ...(context.invoker.locale ? { userLocale: context.invoker.locale } : {}),
    ...read.request,
    ...(role ? { roleId: role.id } : {}),
    ...(chosen.language ? { language: chosen.language } : {}),
    ...(quiz !== null ? { quiz } : {}),
    ...(tag.forumTag ? { forumTag: tag.forumTag } : {}),
    ...(postsAsThreads(channel.kind) ? { forum: true } : {}),
  };
  const settings = requestedSettings(request, existing);
  const forumProblem = forumSettingsProblem(settings, channel, forumFacts, { where, t, locale });
  if (forumProblem) return context.respond(userError(forumProblem));
  if (settings.publish && channel.kind !== 'announcement') return context.respond(privateNote(t('subscribe.publishNotAnnouncement', { channel: where })));
  const webhookProblem = webhookSettingsProblem(settings, t);
  if (webhookProblem) return context.respond(userError(webhookProblem));

  if (!context.botPermissionsIn) return context.respond(privateNote(t('subscribe.cannotCheckBot', { channel: where })));
  const held = await context.botPermissionsIn(channel.id);
  const needed: ChannelPermission[] = [
    ...REQUIRED_PERMISSIONS,
    ...(settings.openThread ? (['CreatePublicThreads'] as const) : []),
    ...(settings.pin ? (['PinMessages'] as const) : []),
  ];
  // Posting through its own webhook: the bot lists, and if need be creates, the channel's webhooks.
  if (settings.webhookName !== null) needed.push('ManageWebhooks');
  const missing = needed.filter((permission) => !held.has(permission));
  if (missing.length > 0) {
    const names = missing.map((permission) => `**${permissionName(permission, t)}**`);
    return context.respond(userError(t('subscribe.missingPermissions', { channel: where, permissions: andList(names, locale), count: missing.length })));
  }

  const noticeChannel = context.options.getChannel('notices');
  if (noticeChannel) {
    const there = noticeChannel.kind === 'other' ? new Set<ChannelPermission>() : await context.botPermissionsIn(noticeChannel.id);
    const lacking = NOTICE_PERMISSIONS.filter((permission) => !there.has(permission));
    if (lacking.length > 0) {
      const names = lacking.map((permission) => `**${permissionName(permission, t)}**`);
      const notices = channelMention(noticeChannel.id, noticeChannel.name, console);
      return context.respond(userError(t('subscribe.error.noticeChannel', { channel: notices, permissions: andList(names, locale) })));
    }
  }

  const mentions: Mentions = {
    role: (roleId) => (console ? `@${roleId === role?.id ? role.name : roleId}` : `<@&${roleId}>`),
    channel: (channelId) => (console || isConsoleChannel(channelId) ? `#${channelId}` : `<#${channelId}>`),
  };
  if (context.options.getBoolean('preview') === true) {
    const draft = await gate.subscriptions.draft(request);
    return replyWhenReady(context, previewMessage(context.invoker, draft, where, mentions, services, gate.subscriptions.now()), {
      subject: { date: services.lookup.today() },
      logger: services.logger,
    });
  }

  const result = await gate.subscriptions.subscribe(request);
  if (result.kind === 'limit_reached') return context.respond(userError(t('subscribe.limitReached', { count: result.count, limit: result.limit })));
  const overview = (await gate.subscriptions.list(gate.guildId)).find((item) => item.subscription.channelId === channel.id);
  await context.respond(privateNote(subscribeAnswer({ ...result, overview, where, locale, t, mentions, now: gate.subscriptions.now(), zoneNote: read.zoneNote })));
}

/**
 * The post exactly as the channel would get it, with today's word and in its language, for the admin only: the saved
 * settings plus the ones given, the embed the scheduler would send and the role mention (shown, pinging nobody),
 * under a line, in the admin's own language, saying it is a preview.
 */
async function previewMessage(
  invoker: Invoker,
  draft: Subscription,
  where: string,
  mentions: Mentions,
  services: BotServices,
  now: Date,
): Promise<OutgoingMessage> {
  const t: Translate = privateT(invoker);
  const locale = privateLocale(invoker);
  const found = await services.lookup.getEntry(services.lookup.today(), INTERACTIVE);
  const settings = settingsOf(draft);
  const postLocale = publicLocale(invoker, settings.language);
  const embed = dailyPostEmbed(found.value, settings.style, { siteUrl: services.siteUrl, locale: postLocale }, lookOf(draft));
  const post = buildMessage(draft, embed, found.value.date, {
    threadSuffix: dailyPostRendering(services.siteUrl).threadSuffix(found.value.date, postLocale),
    dateText: introDate(found.value.date, settings.dateStyle, postLocale),
  });
  const lines = [
    t('subscribe.preview', { channel: where, summary: settingsSummary(settings, t, locale, mentions) }),
    post.thread ? t('subscribe.preview.thread', { name: post.thread.name }) : '',
    post.publish ? t('subscribe.preview.publish') : '',
    post.forumPost ? t('subscribe.preview.forum', { title: post.forumPost.title }) : '',
    draft.forum && draft.forumTag ? t('subscribe.preview.forumTag', { tag: draft.forumTag.name }) : '',
    post.pin ? t('subscribe.preview.pin') : '',
    pauseState(draft, now, t, locale),
    t('subscribe.preview.nothingSaved'),
  ].filter(Boolean);
  // The post's own content (its intro, or the role mention), as the channel would get it; at the console a role is its name.
  const content = [found.stale ? staleNote(t) : '', lines.join(' '), consoleRoles(post.content ?? '', mentions)].filter(Boolean).join('\n\n');
  return { content, embeds: post.embeds, ephemeral: true };
}

/** `<@&id>` as the reader sees a role (at the console, its name). */
function consoleRoles(content: string, mentions: Mentions): string {
  return content.replace(/<@&([^>]+)>/g, (_whole, id: string) => mentions.role(id));
}

/** Suggests IANA zones for the `timezone` option and languages for `language` (shared by /wotd-subscribe-me). */
export async function autocomplete(context: AutocompleteContext): Promise<void> {
  if (context.focused.name === 'language') return context.respond(suggestLanguages(context.focused.value, privateT(context.invoker)));
  if (context.focused.name !== 'timezone') return context.respond([]);
  const zones = suggestTimeZones(context.focused.value, AUTOCOMPLETE_CHOICES);
  await context.respond(zones.map((zone) => ({ name: zone.replaceAll('_', ' '), value: zone })));
}

export const wotdSubscribeCommand: SlashCommand = { data, execute, autocomplete, modal: { prefix: INTRO_MODAL_PREFIX, handle: submitIntro } };
