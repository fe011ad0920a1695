import { ApplicationIntegrationType, ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { dailyPostEmbed, dailyPostRendering } from '../src/replies/daily-embeds.ts';
import type { AutocompleteContext, BotServices, ChannelPermission, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { privateNote, quoteInput, staleNote, userError } from '../src/replies/messages.ts';
import { buildMessage } from '../src/schedule/delivery.ts';
import { POST_STYLES, type PostStyle } from '../src/schedule/subscription.ts';
import {
  adminGate,
  channelMention,
  discordTime,
  isConsoleChannel,
  permissionName,
  REQUIRED_PERMISSIONS,
  subscribeOutcome,
} from '../src/replies/admin-replies.ts';
import { choice, named } from '../src/replies/i18n/command-text.ts';
import { andList } from '../src/replies/i18n/formats.ts';
import { privateT, publicLocale } from '../src/replies/i18n/reply-locale.ts';
import type { Translate } from '../src/replies/i18n/translate.ts';
import { readLanguageOption, suggestLanguages } from '../src/replies/language-option.ts';
import { parseSchedule, TIME_OPTION_MAX_LENGTH } from '../src/replies/schedule-options.ts';
import { languageName } from '../src/replies/subscription-text.ts';
import { subscriptionRecord, suggestTimeZones, type SubscribeRequest } from '../src/schedule/subscription-service.ts';

const AUTOCOMPLETE_CHOICES = 25;

const data = named(new SlashCommandBuilder(), 'command.wotd-subscribe.name', 'command.wotd-subscribe.description')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild)
  .addChannelOption((option) =>
    named(option, 'option.channel.name', 'command.wotd-subscribe.channel.description')
      .setRequired(true)
      .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
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
  .addBooleanOption((option) => named(option, 'option.preview.name', 'command.wotd-subscribe.preview.description'))
  .addStringOption((option) =>
    named(option, 'option.language.name', 'command.wotd-subscribe.language.description').setMaxLength(32).setAutocomplete(true),
  )
  .addBooleanOption((option) => named(option, 'option.quiz.name', 'command.wotd-subscribe.quiz.description'));

/** The `language` option as a Discord locale: absent means none set; undefined after the member was told it is not one. */
export async function languageOrRefuse(context: CommandContext, t: Translate): Promise<{ language: string | null } | undefined> {
  const typed = context.options.getString('language');
  if (typed === null || typed.trim() === '') return { language: null };
  const language = readLanguageOption(typed);
  if (language) return { language };
  await context.respond(userError(t('language.unknown', { text: quoteInput(typed) })));
  return undefined;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  const channel = context.options.getChannel('channel');
  const gate = await adminGate(context, services, channel);
  if (!gate) return;
  if (!channel) return context.respond(userError(t('subscribe.noChannel')));
  const console = isConsoleChannel(channel.id);
  const where = channelMention(channel.id, channel.name, console);
  if (channel.kind === 'other') return context.respond(userError(t('subscribe.notTextChannel', { channel: where })));

  const schedule = parseSchedule(context.options.getString('time'), context.options.getString('timezone'), t);
  if (!schedule.ok) return context.respond(userError(schedule.message));

  const role = context.options.getRole('role');
  // Broken with a zero-width space: even this note must not be able to ping everyone.
  if (role && role.id === gate.guildId) return context.respond(userError(t('subscribe.everyone', { everyone: '@\u200beveryone' })));

  const chosen = await languageOrRefuse(context, t);
  if (!chosen) return;

  const openThread = context.options.getBoolean('thread') === true;
  const publish = context.options.getBoolean('publish') === true;
  if (publish && channel.kind !== 'announcement') return context.respond(privateNote(t('subscribe.publishNotAnnouncement', { channel: where })));

  if (!context.botPermissionsIn) return context.respond(privateNote(t('subscribe.cannotCheckBot', { channel: where })));
  const held = await context.botPermissionsIn(channel.id);
  const needed: ChannelPermission[] = openThread ? [...REQUIRED_PERMISSIONS, 'CreatePublicThreads'] : REQUIRED_PERMISSIONS;
  const missing = needed.filter((permission) => !held.has(permission));
  if (missing.length > 0) {
    const names = missing.map((permission) => `**${permissionName(permission, t)}**`);
    return context.respond(
      userError(t('subscribe.missingPermissions', { channel: where, permissions: andList(names, context.invoker.locale), count: missing.length })),
    );
  }

  const request: SubscribeRequest = {
    guildId: gate.guildId,
    channelId: channel.id,
    channelName: channel.name,
    time: schedule.time,
    timeZone: schedule.timeZone,
    roleId: role?.id ?? null,
    userId: context.invoker.userId,
    style: styleOption(context),
    openThread,
    publish,
    ...(chosen.language ? { language: chosen.language } : {}),
    quiz: context.options.getBoolean('quiz') === true,
  };
  const mention = role ? (console ? `@${role.name}` : `<@&${role.id}>`) : null;
  if (context.options.getBoolean('preview') === true) {
    return replyWhenReady(context, previewMessage(context, request, where, mention, services), {
      subject: { date: services.lookup.today() },
      logger: services.logger,
    });
  }

  const result = await gate.subscriptions.subscribe(request);
  if (result.kind === 'limit_reached') {
    return context.respond(userError(t('subscribe.limitReached', { count: result.count, limit: result.limit })));
  }

  const overview = (await gate.subscriptions.list(gate.guildId)).find((item) => item.subscription.channelId === channel.id);
  const { verb, changed } = subscribeOutcome(result, console, t);
  const next = overview?.dueNow
    ? ` ${t('subscribe.dueNow')}`
    : overview?.nextPostAt
      ? ` ${t('subscribe.next', { when: discordTime(overview.nextPostAt) })}`
      : '';
  const details = [
    request.style === 'compact' ? t('subscribe.detail.compact') : '',
    mention ? t('subscribe.detail.mention', { role: mention }) : '',
    openThread ? t('subscribe.detail.thread') : '',
    publish ? t('subscribe.detail.publish') : '',
    request.quiz ? t('subscribe.detail.quiz') : '',
    chosen.language ? t('subscribe.detail.language', { language: languageName(chosen.language, t) }) : '',
  ].join('');
  const saved = t('subscribe.saved', { verb, channel: where, time: schedule.time, zone: `${schedule.timeZone}${schedule.zoneNote}`, details });
  await context.respond(privateNote(`${saved}${changed}${next}`));
}

function styleOption(context: CommandContext): PostStyle {
  const given = context.options.getString('style');
  return POST_STYLES.find((style) => style === given) ?? 'full';
}

/**
 * The post exactly as the channel would get it, with today's word and in its language, for the admin only: the
 * embed the scheduler would send, and the role mention (shown, pinging nobody), under a line, in the admin's own
 * language, saying it is a preview.
 */
async function previewMessage(
  context: CommandContext,
  request: SubscribeRequest,
  where: string,
  mention: string | null,
  services: BotServices,
): Promise<OutgoingMessage> {
  const t = privateT(context.invoker);
  const postLocale = publicLocale(context.invoker, request.language);
  const found = await services.lookup.getEntry(services.lookup.today(), INTERACTIVE);
  const draft = subscriptionRecord(request, null, new Date().toISOString());
  const embed = dailyPostEmbed(found.value, request.style ?? 'full', { siteUrl: services.siteUrl, locale: postLocale });
  const post = buildMessage(draft, embed, found.value.date, dailyPostRendering(services.siteUrl).threadSuffix(found.value.date, postLocale));
  const extras = [
    post.thread ? t('preview.thread', { name: post.thread.name }) : '',
    post.publish ? t('preview.publish') : '',
  ].filter(Boolean);
  const note = t('preview.note', { channel: where, time: request.time, zone: request.timeZone, extras: extras.map((extra) => `${extra} `).join('') });
  const content = [found.stale ? staleNote(t) : '', note, mention ?? ''].filter(Boolean).join('\n\n');
  return { content, embeds: post.embeds, ephemeral: true };
}

/** Suggests IANA zones for the `timezone` option and languages for `language` (shared by /wotd-subscribe-me). */
export async function autocomplete(context: AutocompleteContext): Promise<void> {
  if (context.focused.name === 'language') return context.respond(suggestLanguages(context.focused.value, privateT(context.invoker)));
  if (context.focused.name !== 'timezone') return context.respond([]);
  const zones = suggestTimeZones(context.focused.value, AUTOCOMPLETE_CHOICES);
  await context.respond(zones.map((zone) => ({ name: zone.replaceAll('_', ' '), value: zone })));
}

export const wotdSubscribeCommand: SlashCommand = { data, execute, autocomplete };
