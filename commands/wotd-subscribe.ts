import { ApplicationIntegrationType, ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { dailyPostEmbed } from '../src/replies/daily-embeds.ts';
import type { AutocompleteContext, BotServices, ChannelPermission, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { privateNote, STALE_NOTE, userError } from '../src/replies/messages.ts';
import { buildMessage } from '../src/schedule/delivery.ts';
import { POST_STYLES, type PostStyle } from '../src/schedule/subscription.ts';
import {
  adminGate,
  channelMention,
  discordTime,
  isConsoleChannel,
  PERMISSION_NAMES,
  REQUIRED_PERMISSIONS,
  subscribeOutcome,
} from '../src/replies/admin-replies.ts';
import { parseSchedule } from '../src/replies/schedule-options.ts';
import { subscriptionRecord, suggestTimeZones, type SubscribeRequest } from '../src/schedule/subscription-service.ts';

const AUTOCOMPLETE_CHOICES = 25;

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
  .addBooleanOption((option) =>
    option.setName('preview').setDescription('Show me the post with today\'s word first, privately; nothing is saved'),
  )
  .addBooleanOption((option) => option.setName('quiz').setDescription('Make each post a quiz: four meanings to pick from, revealed at the end of the day'));

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

  const schedule = parseSchedule(context.options.getString('time'), context.options.getString('timezone'));
  if (!schedule.ok) return context.respond(userError(schedule.message));

  const role = context.options.getRole('role');
  if (role && role.id === gate.guildId) {
    // Broken with a zero-width space: even this note must not be able to ping everyone.
    return context.respond(userError('Daily posts never ping @\u200beveryone. Choose a specific role to mention, or none.'));
  }

  const openThread = context.options.getBoolean('thread') === true;
  const publish = context.options.getBoolean('publish') === true;
  if (publish && channel.kind !== 'announcement') {
    return context.respond(privateNote(`Only announcement channels can publish posts to other servers, and ${where} is not one. Leave out \`publish\`, or choose an announcement channel.`));
  }

  if (!context.botPermissionsIn) {
    return context.respond(privateNote(`I cannot check my permissions in ${where} from here, so I have not subscribed it.`));
  }
  const held = await context.botPermissionsIn(channel.id);
  const needed: ChannelPermission[] = openThread ? [...REQUIRED_PERMISSIONS, 'CreatePublicThreads'] : REQUIRED_PERMISSIONS;
  const missing = needed.filter((permission) => !held.has(permission));
  if (missing.length > 0) {
    const names = missing.map((permission) => `**${PERMISSION_NAMES[permission]}**`);
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    return context.respond(
      userError(`I can't post in ${where}: I'm missing ${list} there. Give me ${missing.length === 1 ? 'it' : 'them'} in the channel's permissions, then run this again.`),
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
    quiz: context.options.getBoolean('quiz') === true,
  };
  if (context.options.getBoolean('preview') === true) {
    const mention = role ? (console ? `@${role.name}` : `<@&${role.id}>`) : null;
    return replyWhenReady(context, previewMessage(request, where, mention, services), { subject: { date: services.lookup.today() }, logger: services.logger });
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
  const mention = role ? `, mentioning ${console ? `@${role.name}` : `<@&${role.id}>`}` : '';
  const { verb, changed } = subscribeOutcome(result, console);
  const next = overview?.dueNow
    ? " Today's post time has passed, so today's word goes out within a minute."
    : overview?.nextPostAt
      ? ` Next post: ${discordTime(overview.nextPostAt)}.`
      : '';
  const style = request.style === 'compact' ? ', compact (word, IPA and a one-line definition)' : '';
  const extras = `${openThread ? ', with a thread on each post' : ''}${publish ? ', published to following servers' : ''}${request.quiz ? ', as a daily quiz' : ''}`;
  await context.respond(privateNote(`${verb} ${where}: the word of the day every day at ${schedule.time} (${schedule.timeZone})${style}${mention}${extras}.${changed}${next}`));
}

function styleOption(context: CommandContext): PostStyle {
  const given = context.options.getString('style');
  return POST_STYLES.find((style) => style === given) ?? 'full';
}

/**
 * The post exactly as the channel would get it, with today's word, for the admin only: the embed the scheduler would
 * send, and the role mention (shown, pinging nobody), under a line saying it is a preview.
 */
async function previewMessage(request: SubscribeRequest, where: string, mention: string | null, services: BotServices): Promise<OutgoingMessage> {
  const found = await services.lookup.getEntry(services.lookup.today(), INTERACTIVE);
  const draft = subscriptionRecord(request, null, new Date().toISOString());
  const post = buildMessage(draft, dailyPostEmbed(found.value, request.style ?? 'full', { siteUrl: services.siteUrl }), found.value.date);
  const extras = [
    post.thread ? `Each post opens a thread, such as “${post.thread.name}”.` : '',
    post.publish ? 'Each post is published to the servers that follow the channel.' : '',
  ].filter(Boolean);
  const note =
    `**Preview** of the daily post in ${where} at ${request.time} (${request.timeZone}), with today's word. ` +
    `${extras.length > 0 ? `${extras.join(' ')} ` : ''}Nothing is saved: run the command again without \`preview\` to subscribe.`;
  const content = [found.stale ? STALE_NOTE : '', note, mention ?? ''].filter(Boolean).join('\n\n');
  return { content, embeds: post.embeds, ephemeral: true };
}

/** Suggests IANA zones for the `timezone` option (shared by /wotd-subscribe-me). */
export async function autocomplete(context: AutocompleteContext): Promise<void> {
  if (context.focused.name !== 'timezone') return context.respond([]);
  const zones = suggestTimeZones(context.focused.value, AUTOCOMPLETE_CHOICES);
  await context.respond(zones.map((zone) => ({ name: zone.replaceAll('_', ' '), value: zone })));
}

export const wotdSubscribeCommand: SlashCommand = { data, execute, autocomplete };
