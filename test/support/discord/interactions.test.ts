import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  DiscordAPIError,
  Events,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  Routes,
  SlashCommandBuilder,
  type Client,
  type Interaction,
} from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginClient, restFor, startDiscordServer, type DiscordServer, type GuildInfo } from './index.ts';

const wotd = new SlashCommandBuilder()
  .setName('wotd')
  .setDescription('Word of the day')
  .addStringOption((o) => o.setName('date').setDescription('YYYY-MM-DD').setRequired(false))
  .addChannelOption((o) => o.setName('channel').setDescription('where').addChannelTypes(ChannelType.GuildText))
  .addIntegerOption((o) => o.setName('limit').setDescription('how many').setMinValue(1).setMaxValue(8));
const find = new SlashCommandBuilder()
  .setName('wotd-find')
  .setDescription('Find a word')
  .addStringOption((o) => o.setName('word').setDescription('the word').setRequired(true).setAutocomplete(true));

describe('fake Discord interactions', () => {
  let discord: DiscordServer;
  let client: Client<true>;
  let guild: GuildInfo;
  let general: string;
  const handlers: ((i: Interaction) => Promise<void>)[] = [];
  const errors: unknown[] = [];

  /** A fresh harness, guild, registered commands and logged-in client; handlers answer interactions in order. */
  async function setUp(options: Parameters<typeof startDiscordServer>[0] = {}): Promise<void> {
    discord = await startDiscordServer(options);
    guild = discord.addGuild({ name: 'Words', roles: [{ name: 'mods', permissions: 1n << 4n }], channels: [{ name: 'general' }, { name: 'daily' }] });
    general = guild.channelId('general');
    await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: [wotd.toJSON(), find.toJSON()] });
    client = await loginClient(discord);
    client.on(Events.InteractionCreate, (interaction) => {
      const handler = handlers.shift();
      if (handler) handler(interaction).catch((error: unknown) => errors.push(error));
    });
  }

  async function restart(options: Parameters<typeof startDiscordServer>[0]): Promise<void> {
    await client.destroy();
    await discord.close();
    await setUp(options);
  }

  beforeEach(async () => {
    await setUp();
  });
  afterEach(async () => {
    handlers.length = 0;
    errors.length = 0;
    await client.destroy();
    await discord.close();
  });

  it('delivers a slash command with options, member permissions and app_permissions; the reply lands in the recording', async () => {
    let seen: Record<string, unknown> = {};
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) throw new Error('expected a chat input command');
      seen = {
        name: interaction.commandName,
        date: interaction.options.getString('date'),
        channel: interaction.options.getChannel('channel')?.id,
        limit: interaction.options.getInteger('limit'),
        canManage: interaction.memberPermissions?.has('ManageChannels'),
        botCanSend: interaction.appPermissions.has('SendMessages'),
        guildId: interaction.guildId,
      };
      await interaction.reply({ content: 'serendipity', embeds: [{ title: 'serendipity', description: 'a happy accident' }] });
    });
    const daily = guild.channelId('daily');
    const ix = discord.invokeCommand({
      name: 'wotd',
      channelId: general,
      options: { date: '2024-01-01', channel: daily, limit: 3 },
      user: { username: 'mod', roles: ['mods'] },
    });
    const reply = await ix.waitForResponse();
    expect(seen).toEqual({ name: 'wotd', date: '2024-01-01', channel: daily, limit: 3, canManage: true, botCanSend: true, guildId: guild.id });
    expect(reply).toMatchObject({ content: 'serendipity', ephemeral: false, channelId: general });
    expect(reply.embeds[0]).toMatchObject({ title: 'serendipity' });
    expect(ix.callback).toMatchObject({ type: 4, status: 204 });
    expect(discord.messagesIn(general).map((m) => m.content)).toEqual(['serendipity']);
    const callbackRequest = discord.requests.find((r) => r.route === 'POST /interactions/:interaction_id/:interaction_token/callback');
    expect(callbackRequest?.body).toMatchObject({ type: 4, data: { content: 'serendipity' } });
  });

  it('refuses to invoke what the Discord client would not send', () => {
    expect(() => discord.invokeCommand({ name: 'nope', channelId: general })).toThrow(/not registered/);
    expect(() => discord.addGuild({ id: 'guild-1' })).toThrow(/not a snowflake/);
    expect(() => discord.pressButton({ channelId: general, customId: 'missing' })).toThrow(/no message/);
    expect(() => discord.invokeCommand({ name: 'wotd', channelId: general, options: { limit: 9 } })).toThrow(/above 8/);
    expect(() => discord.invokeCommand({ name: 'wotd-find', channelId: general })).toThrow(/requires option "word"/);
    expect(() => discord.invokeCommand({ name: 'wotd', channelId: general, options: { colour: 'x' } })).toThrow(/no option "colour"/);
    expect(() => discord.invokeCommand({ name: 'wotd', channelId: general, options: { channel: guild.roleId('mods') } })).toThrow(/unknown channel/);
  });

  it('only lets members with a command’s default_member_permissions invoke it', async () => {
    const admin = new SlashCommandBuilder().setName('wotd-subscribe').setDescription('Subscribe').setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels);
    await restFor(discord).put(Routes.applicationGuildCommands(discord.applicationId, guild.id), { body: [admin.toJSON()] });
    expect(() => discord.invokeCommand({ name: 'wotd-subscribe', channelId: general })).toThrow(/default_member_permissions/);
    let canManage: boolean | undefined;
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      canManage = interaction.memberPermissions?.has('ManageChannels');
      await interaction.reply({ content: 'subscribed', flags: MessageFlags.Ephemeral });
    });
    const ix = discord.invokeCommand({ name: 'wotd-subscribe', channelId: general, user: { username: 'mod', roles: ['mods'] } });
    expect(await ix.waitForResponse()).toMatchObject({ content: 'subscribed', ephemeral: true });
    expect(canManage).toBe(true);
    expect(ix.payload.data).toMatchObject({ guild_id: guild.id, name: 'wotd-subscribe' });
  });

  it('follows a deferred ephemeral reply through its edit and a follow-up', async () => {
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      await interaction.editReply({ content: 'done' });
      await interaction.followUp({ content: 'and one more', flags: MessageFlags.Ephemeral });
    });
    const ix = discord.invokeCommand({ name: 'wotd', channelId: general });
    const callback = await ix.waitForCallback();
    expect(callback.type).toBe(5);
    const reply = await ix.waitForResponse();
    expect(reply).toMatchObject({ content: 'done', ephemeral: true, loading: false });
    const follow = await ix.waitForFollowUp(0);
    expect(follow).toMatchObject({ content: 'and one more', ephemeral: true });
    expect(discord.messagesIn(general)).toEqual([]);
  });

  it('round-trips a button: the bot replies with a button, the press updates that message', async () => {
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId('wotd:older:2024-01-01').setLabel('Older').setStyle(ButtonStyle.Secondary),
      );
      await interaction.reply({ content: 'page 1', components: [row] });
    });
    const first = discord.invokeCommand({ name: 'wotd', channelId: general });
    const page1 = await first.waitForResponse();

    let pressedOn = '';
    handlers.push(async (interaction) => {
      if (!interaction.isButton()) throw new Error('expected a button');
      pressedOn = `${interaction.customId}@${interaction.message.id}`;
      await interaction.update({ content: 'page 2', components: [] });
    });
    const press = discord.pressButton({ channelId: general, customId: 'wotd:older:2024-01-01' });
    const page2 = await press.waitForResponse();
    expect(pressedOn).toBe(`wotd:older:2024-01-01@${page1.id}`);
    expect(page2).toMatchObject({ id: page1.id, content: 'page 2', components: [] });
    expect(press.callback?.type).toBe(7);
    expect(() => discord.pressButton({ channelId: general, customId: 'wotd:older:2024-01-01' })).toThrow(/no message/);
  });

  it('defers a button update (type 6) and edits the message the button is on; a deferral can become an ephemeral follow-up', async () => {
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('next').setLabel('Next').setStyle(ButtonStyle.Primary));
      await interaction.reply({ content: 'page 1', components: [row], withResponse: true });
    });
    const page1 = await discord.invokeCommand({ name: 'wotd', channelId: general }).waitForResponse();

    handlers.push(async (interaction) => {
      if (!interaction.isButton()) return;
      await interaction.deferUpdate();
      await new Promise((r) => setTimeout(r, 20));
      await interaction.editReply({ content: 'page 2', components: [] });
    });
    const press = discord.pressButton({ channelId: general, customId: 'next', messageId: page1.id });
    const page2 = await press.waitForResponse();
    expect(press.callback?.type).toBe(6);
    expect(page2).toMatchObject({ id: page1.id, content: 'page 2' });
    expect(page2.editedAt).not.toBeNull();

    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.deferReply();
      await interaction.deleteReply();
      await interaction.followUp({ content: 'only you can see this', flags: MessageFlags.Ephemeral });
    });
    const ix = discord.invokeCommand({ name: 'wotd', channelId: general });
    const follow = await ix.waitForFollowUp();
    expect(follow).toMatchObject({ content: 'only you can see this', ephemeral: true });
    expect(ix.original?.deleted).toBe(true);
    expect(discord.messagesIn(general).map((m) => m.content)).toEqual(['page 2']);
    expect(discord.internalErrors).toEqual([]);
  });

  it('invokes commands in the bot’s DMs: no guild or member, only commands allowed there', async () => {
    const guildOnly = new SlashCommandBuilder().setName('wotd-subscribe').setDescription('Subscribe').setContexts(InteractionContextType.Guild);
    await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: [wotd.toJSON(), guildOnly.toJSON()] });
    expect(() => discord.invokeCommand({ name: 'wotd-subscribe', dm: true })).toThrow(/cannot be used in DMs/);
    let where: unknown;
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      where = { guildId: interaction.guildId, member: interaction.member, user: interaction.user.id, channelId: interaction.channelId };
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('more').setLabel('More').setStyle(ButtonStyle.Primary));
      await interaction.reply({ content: 'in your DMs', components: [row] });
    });
    const ix = discord.invokeCommand({ name: 'wotd', dm: true, user: { username: 'lurker' } });
    const reply = await ix.waitForResponse();
    expect(where).toEqual({ guildId: null, member: null, user: ix.userId, channelId: ix.channelId });
    expect(ix.payload).toMatchObject({ context: 1, channel: { type: 1 } });
    expect(reply).toMatchObject({ content: 'in your DMs', guildId: null, channelId: ix.channelId });
    expect(discord.messagesIn(ix.channelId).map((m) => m.content)).toEqual(['in your DMs']);

    handlers.push(async (interaction) => {
      if (!interaction.isButton()) return;
      await interaction.update({ content: 'more, privately', components: [] });
    });
    const press = discord.pressButton({ channelId: ix.channelId, customId: 'more' });
    expect(await press.waitForResponse()).toMatchObject({ id: reply.id, content: 'more, privately' });
    expect(press.userId).toBe(ix.userId);
  });

  it('fetches the reply and edits and deletes follow-ups through the interaction webhook', async () => {
    const done = new Promise<string>((resolve, reject) => {
      handlers.push(async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await interaction.reply({ content: 'first' });
        const fetched = await interaction.fetchReply();
        const one = await interaction.followUp({ content: 'one' });
        const two = await interaction.followUp({ content: 'two' });
        await interaction.editReply({ message: one.id, content: 'one, edited' });
        await interaction.deleteReply(two.id);
        resolve(fetched.content);
      });
      setTimeout(() => reject(new Error('handler did not finish')), 5000).unref();
    });
    const ix = discord.invokeCommand({ name: 'wotd', channelId: general });
    expect(await done).toBe('first');
    expect(ix.followUps.map((m) => [m.content, m.deleted])).toEqual([
      ['one, edited', false],
      ['two', true],
    ]);
    expect(discord.messagesIn(general).map((m) => m.content)).toEqual(['first', 'one, edited']);
  });

  it('round-trips autocomplete: the focused option arrives and the choices come back', async () => {
    handlers.push(async (interaction) => {
      if (!interaction.isAutocomplete()) throw new Error('expected autocomplete');
      const focused = interaction.options.getFocused(true);
      await interaction.respond([
        { name: `${focused.value}ipity`, value: `${focused.value}ipity` },
        { name: `${focused.value}e`, value: `${focused.value}e` },
      ]);
    });
    const choices = await discord.autocomplete({ name: 'wotd-find', channelId: general, options: { word: 'serend' }, focused: 'word' });
    expect(choices).toEqual([
      { name: 'serendipity', value: 'serendipity' },
      { name: 'serende', value: 'serende' },
    ]);
  });

  it('answers a callback after the deadline with 404 10062, as discord.js sees it', async () => {
    await restart({ interactionDeadlineMs: 150 });
    const lateOutcome = new Promise<unknown>((resolve) => {
      handlers.push(async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await new Promise((r) => setTimeout(r, 300));
        await interaction.reply({ content: 'too late' }).then(() => resolve('accepted'), resolve);
      });
    });
    const late = discord.invokeCommand({ name: 'wotd', channelId: general });
    const lateError = await lateOutcome;
    expect(lateError).toBeInstanceOf(DiscordAPIError);
    expect((lateError as DiscordAPIError).code).toBe(10062);
    expect((lateError as DiscordAPIError).status).toBe(404);
    expect(late.callbacks).toMatchObject([{ status: 404, errorCode: 10062 }]);
    expect(late.original).toBeUndefined();
  });

  it('answers a second callback with 400 40060, as discord.js sees it', async () => {
    const secondOutcome = new Promise<unknown>((resolve) => {
      handlers.push(async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await interaction.reply({ content: 'first' });
        // Bypass discord.js's own "already replied" guard to send a second callback, as a buggy bot could.
        await client.rest
          .post(Routes.interactionCallback(interaction.id, interaction.token), { body: { type: 4, data: { content: 'second' } }, auth: false })
          .then(() => resolve('accepted'), resolve);
      });
    });
    const twice = discord.invokeCommand({ name: 'wotd', channelId: general });
    const secondError = await secondOutcome;
    expect(secondError).toBeInstanceOf(DiscordAPIError);
    expect((secondError as DiscordAPIError).code).toBe(40060);
    expect((secondError as DiscordAPIError).status).toBe(400);
    expect(twice.callbacks.map((c) => c.status)).toEqual([204, 400]);
    expect(discord.messagesIn(general).map((m) => m.content)).toEqual(['first']);
    expect(errors).toEqual([]);
  });

  it('answers every follow-up with 200 and the message, with or without ?wait (Discord: `wait` is always true there)', async () => {
    const ix = discord.invokeCommand({ name: 'wotd', channelId: general });
    const api = `${discord.apiUrl}/v10`;
    const json = { 'Content-Type': 'application/json' };
    const callback = await fetch(`${api}/interactions/${ix.id}/${ix.token}/callback`, { method: 'POST', headers: json, body: '{"type":5}' });
    expect(callback.status).toBe(204);
    for (const query of ['', '?wait=false', '?wait=true']) {
      const sent = await fetch(`${api}/webhooks/${discord.applicationId}/${ix.token}${query}`, { method: 'POST', headers: json, body: JSON.stringify({ content: `follow-up${query}` }) });
      expect(sent.status, query).toBe(200);
      expect(await sent.json()).toMatchObject({ content: `follow-up${query}`, webhook_id: discord.applicationId, author: { id: discord.botUser.id } });
    }
    expect(ix.followUps.map((m) => m.content)).toEqual(['follow-up', 'follow-up?wait=false', 'follow-up?wait=true']);
    // A channel webhook (whose 204 without ?wait=true is Execute Webhook's) is not one this server knows.
    const other = await fetch(`${api}/webhooks/123456789012345678/${ix.token}`, { method: 'POST', headers: json, body: '{"content":"x"}' });
    expect([other.status, ((await other.json()) as { code: number }).code]).toEqual([404, 10015]);
  });

  it('stops accepting webhook calls once the interaction token expires (401 50027)', async () => {
    await restart({ interactionTokenTtlMs: 150 });
    const outcome = new Promise<unknown>((resolve) => {
      handlers.push(async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await interaction.deferReply();
        await new Promise((r) => setTimeout(r, 250));
        await interaction.editReply({ content: 'too late' }).then(() => resolve('accepted'), resolve);
      });
    });
    discord.invokeCommand({ name: 'wotd', channelId: general });
    const error = await outcome;
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect([(error as DiscordAPIError).status, (error as DiscordAPIError).code]).toEqual([401, 50027]);
  });

  it('takes a form (callback 9) checked as Discord does, and its submit reaches discord.js as a modal submit (type 5)', async () => {
    const api = `${discord.apiUrl}/v10`;
    const json = { 'Content-Type': 'application/json' };
    const form = (value: string) => ({
      type: 9,
      data: { custom_id: 'form:1', title: 'A form', components: [{ type: 18, label: 'Line', component: { type: 4, custom_id: 'line', style: 1, max_length: 5, value } }] },
    });
    const refused = discord.invokeCommand({ name: 'wotd', channelId: general });
    const tooLong = await fetch(`${api}/interactions/${refused.id}/${refused.token}/callback`, { method: 'POST', headers: json, body: JSON.stringify(form('123456')) });
    expect([tooLong.status, ((await tooLong.json()) as { code: number }).code]).toEqual([400, 50035]);
    expect(refused.modal).toBeUndefined();

    const submitted = new Promise<string>((resolve) => {
      client.on(Events.InteractionCreate, (interaction) => {
        if (interaction.isModalSubmit()) resolve(`${interaction.customId} ${interaction.fields.getTextInputValue('line')}`);
      });
    });
    const opened = discord.invokeCommand({ name: 'wotd', channelId: general });
    const shown = await fetch(`${api}/interactions/${opened.id}/${opened.token}/callback`, { method: 'POST', headers: json, body: JSON.stringify(form('12')) });
    expect(shown.status).toBe(204);
    expect(() => discord.submitModal({ interactionId: opened.id, values: { line: '123456' }, channelId: general })).toThrow(/within 0\.\.5/);
    const submit = discord.submitModal({ interactionId: opened.id, values: { line: 'hey' }, channelId: general });
    expect(await submitted).toBe('form:1 hey');
    expect(submit.payload).toMatchObject({ type: 5, data: { custom_id: 'form:1', components: [{ type: 18, component: { type: 4, custom_id: 'line', value: 'hey' } }] } });
    expect(errors).toEqual([]);
  });
});
