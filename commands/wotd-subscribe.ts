import { ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { AutocompleteContext, BotServices, CommandContext, SlashCommand } from '../src/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import {
  adminGate,
  channelMention,
  discordTime,
  isConsoleChannel,
  PERMISSION_NAMES,
  REQUIRED_PERMISSIONS,
} from '../src/schedule/admin-replies.ts';
import { parseSchedule, suggestTimeZones } from '../src/schedule/subscription-service.ts';

const AUTOCOMPLETE_CHOICES = 25;

const data = new SlashCommandBuilder()
  .setName('wotd-subscribe')
  .setDescription('Post the word of the day in a channel every day (or change that channel\'s settings)')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
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
  .addRoleOption((option) => option.setName('role').setDescription('A role to mention with each post'));

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const gate = await adminGate(context, services);
  if (!gate) return;
  const channel = context.options.getChannel('channel');
  if (!channel) return context.respond(privateNote('Choose the channel to post in.'));
  const console = isConsoleChannel(channel.id);
  const where = channelMention(channel.id, channel.name, console);
  if (channel.kind === 'other') {
    return context.respond(privateNote(`${where} is not a text or announcement channel; daily posts can only go to one of those.`));
  }

  const schedule = parseSchedule(context.options.getString('time'), context.options.getString('timezone'));
  if (!schedule.ok) return context.respond(privateNote(schedule.message));

  const role = context.options.getRole('role');
  if (role && role.id === gate.guildId) {
    // Broken with a zero-width space: even this note must not be able to ping everyone.
    return context.respond(privateNote('Daily posts never ping @\u200beveryone. Choose a specific role to mention, or none.'));
  }

  if (!context.botPermissionsIn) {
    return context.respond(privateNote(`I cannot check my permissions in ${where} from here, so I have not subscribed it.`));
  }
  const held = await context.botPermissionsIn(channel.id);
  const missing = REQUIRED_PERMISSIONS.filter((permission) => !held.has(permission));
  if (missing.length > 0) {
    const names = missing.map((permission) => `**${PERMISSION_NAMES[permission]}**`);
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    return context.respond(
      privateNote(`I can't post in ${where}: I'm missing ${list} there. Give me ${missing.length === 1 ? 'it' : 'them'} in the channel's permissions, then run this again.`),
    );
  }

  const result = await gate.subscriptions.subscribe({
    guildId: gate.guildId,
    channelId: channel.id,
    channelName: channel.name,
    time: schedule.time,
    timeZone: schedule.timeZone,
    roleId: role?.id ?? null,
    userId: context.invoker.userId,
  });
  if (result.kind === 'limit_reached') {
    return context.respond(
      privateNote(
        `This server already has ${result.count} daily-post subscriptions, the most it may have (${result.limit}). Remove one with /wotd-unsubscribe first.`,
      ),
    );
  }

  const overview = (await gate.subscriptions.list(gate.guildId)).find((item) => item.subscription.channelId === channel.id);
  const mention = role ? `, mentioning ${console ? `@${role.name}` : `<@&${role.id}>`}` : '';
  const verb = result.kind === 'created' ? 'Subscribed' : result.previous?.status.state === 'active' ? 'Updated' : 'Updated and re-enabled';
  const next = overview?.dueNow
    ? " Today's post time has passed, so today's word goes out within a minute."
    : overview?.nextPostAt
      ? ` Next post: ${discordTime(overview.nextPostAt)}.`
      : '';
  await context.respond(privateNote(`${verb} ${where}: the word of the day every day at ${schedule.time} (${schedule.timeZone})${mention}.${next}`));
}

async function autocomplete(context: AutocompleteContext): Promise<void> {
  if (context.focused.name !== 'timezone') return context.respond([]);
  const zones = suggestTimeZones(context.focused.value, AUTOCOMPLETE_CHOICES);
  await context.respond(zones.map((zone) => ({ name: zone.replaceAll('_', ' '), value: zone })));
}

export const wotdSubscribeCommand: SlashCommand = { data, execute, autocomplete };
