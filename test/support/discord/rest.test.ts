import { HTTPError, PermissionFlagsBits, Routes } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { restFor, type DiscordServer, type GuildInfo } from './index.ts';
import { apiError, eachTestDiscordServer } from './suite-helpers.ts';

describe('fake Discord REST', () => {
  let discord: DiscordServer;
  let guild: GuildInfo;
  let general: string;

  eachTestDiscordServer((server) => {
    discord = server;
    guild = discord.addGuild({
      roles: [{ name: 'announcers', permissions: 0n }],
      channels: [
        { name: 'general' },
        { name: 'readonly', permissionOverwrites: [{ id: '@everyone', deny: PermissionFlagsBits.SendMessages }] },
        { name: 'hidden', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.ViewChannel }] },
        { name: 'category', type: 4 },
      ],
    });
    general = guild.channelId('general');
  });

  it('serves what discord.js calls at login and for lookups', async () => {
    const rest = restFor(discord);
    expect(await rest.get(Routes.gatewayBot())).toMatchObject({ url: discord.gatewayUrl, shards: 1, session_start_limit: { max_concurrency: 1 } });
    expect(await rest.get(Routes.user('@me'))).toMatchObject({ id: discord.botUser.id, bot: true });
    expect(await rest.get(Routes.currentApplication())).toMatchObject({ id: discord.applicationId });
    expect(await rest.get(Routes.channel(general))).toMatchObject({ id: general, guild_id: guild.id, name: 'general', type: 0 });
    expect(await rest.get(Routes.guild(guild.id))).toMatchObject({ id: guild.id, owner_id: guild.ownerId });
    expect(await rest.get(Routes.guildMember(guild.id, discord.botUser.id))).toMatchObject({ user: { id: discord.botUser.id }, roles: [guild.botRoleId] });
  });

  it('requires "Bot <token>" (401) and knows unknown channels (404 10003)', async () => {
    const bad = await fetch(`${discord.apiUrl}/v10/channels/${general}`, { headers: { Authorization: 'Bot wrong' } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    const missing = await apiError(restFor(discord).post(Routes.channelMessages('123456789012345678'), { body: { content: 'x' } }));
    expect([missing.status, missing.code]).toEqual([404, 10003]);
  });

  it('enforces the bot’s permissions from roles and overwrites: 50001 Missing Access, 50013 Missing Permissions', async () => {
    const rest = restFor(discord);
    const hidden = await apiError(rest.post(Routes.channelMessages(guild.channelId('hidden')), { body: { content: 'x' } }));
    expect([hidden.status, hidden.code, hidden.message]).toEqual([403, 50001, 'Missing Access']);
    const readonly = await apiError(rest.post(Routes.channelMessages(guild.channelId('readonly')), { body: { content: 'x' } }));
    expect([readonly.status, readonly.code]).toEqual([403, 50013]);
    // Granting a role an allow overwrite and giving the bot that role lets it post.
    discord.updateChannel(guild.channelId('readonly'), {
      permissionOverwrites: [
        { id: '@everyone', deny: PermissionFlagsBits.SendMessages },
        { id: 'announcers', allow: PermissionFlagsBits.SendMessages },
      ],
    });
    discord.setMemberRoles(guild.id, discord.botUser.id, [guild.botRoleId ?? '', 'announcers']);
    await rest.post(Routes.channelMessages(guild.channelId('readonly')), { body: { content: 'now allowed' } });
    const category = await apiError(rest.post(Routes.channelMessages(guild.channelId('category')), { body: { content: 'x' } }));
    expect(category.code).toBe(50008);
  });

  it('deduplicates nonce + enforce_nonce: the repeat returns the first message and creates none', async () => {
    const rest = restFor(discord);
    const first = (await rest.post(Routes.channelMessages(general), { body: { content: 'daily', nonce: 'd-2025-01-20', enforce_nonce: true } })) as { id: string };
    const again = (await rest.post(Routes.channelMessages(general), { body: { content: 'daily (retry)', nonce: 'd-2025-01-20', enforce_nonce: true } })) as { id: string; content: string };
    expect(again.id).toBe(first.id);
    expect(again.content).toBe('daily');
    // Without enforce_nonce the nonce is only echoed.
    const loose = (await rest.post(Routes.channelMessages(general), { body: { content: 'other', nonce: 'd-2025-01-20' } })) as { id: string; nonce: string };
    expect(loose.id).not.toBe(first.id);
    expect(loose.nonce).toBe('d-2025-01-20');
    expect(discord.messagesIn(general).map((m) => m.content)).toEqual(['daily', 'other']);
  });

  it('validates like Discord: 400 Invalid Form Body (50035) with the field errors', async () => {
    const rest = restFor(discord);
    // A fresh channel per post keeps the 5-per-5-s message bucket out of the way.
    const post = (body: Record<string, unknown>) => apiError(rest.post(Routes.channelMessages(discord.addChannel(guild.id).id), { body }));

    const long = await post({ content: 'x'.repeat(2001) });
    expect([long.status, long.code]).toEqual([400, 50035]);
    expect(long.rawError).toMatchObject({ message: 'Invalid Form Body', errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } });

    const embed = await post({ embeds: [{ title: 't'.repeat(257), description: 'd'.repeat(4097), fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) }] });
    expect(embed.rawError).toMatchObject({
      errors: { embeds: { 0: { title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] }, description: {}, fields: {} } } },
    });

    const total = await post({ embeds: [{ description: 'd'.repeat(4000) }, { description: 'd'.repeat(2001) }] });
    expect(total.rawError).toMatchObject({ errors: { embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED' }] } } });

    const field = await post({ embeds: [{ fields: [{ name: 'n'.repeat(257), value: 'v'.repeat(1025) }], footer: { text: 'f'.repeat(2049) } }] });
    expect(field.rawError).toMatchObject({
      errors: { embeds: { 0: { fields: { 0: { name: {}, value: {} } }, footer: { text: {} } } } },
    });

    const eleven = await post({ embeds: Array.from({ length: 11 }, () => ({ title: 'x' })) });
    expect(eleven.code).toBe(50035);

    const mentions = await post({ content: 'hi', allowed_mentions: { parse: ['roles', 'channels'], roles: ['1'] } });
    expect(mentions.rawError).toMatchObject({
      errors: { allowed_mentions: { _errors: [{ code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE' }], parse: { 1: {} } } },
    });
    const tooMany = await post({ content: 'hi', allowed_mentions: { users: Array.from({ length: 101 }, (_, i) => String(i + 1)) } });
    expect(tooMany.code).toBe(50035);

    const empty = await post({ content: '' });
    expect([empty.status, empty.code]).toEqual([400, 50006]);
    expect(discord.allMessages()).toEqual([]);
  });

  it('validates application commands and keeps ids stable across re-registration', async () => {
    const rest = restFor(discord);
    const body = [{ name: 'wotd', description: 'Word of the day', options: [{ type: 3, name: 'date', description: 'when' }] }];
    const [first] = (await rest.put(Routes.applicationCommands(discord.applicationId), { body })) as { id: string }[];
    const [second] = (await rest.put(Routes.applicationCommands(discord.applicationId), { body })) as { id: string }[];
    expect(second?.id).toBe(first?.id);
    await rest.put(Routes.applicationGuildCommands(discord.applicationId, guild.id), { body });
    expect(discord.commands(guild.id).map((c) => c.name)).toEqual(['wotd']);
    const bad = await apiError(
      rest.put(Routes.applicationCommands(discord.applicationId), {
        body: [{ name: 'Bad Name', description: '' }, { name: 'ok', description: 'x', options: [{ type: 3, name: 'a', description: 'a' }, { type: 3, name: 'b', description: 'b', required: true }] }],
      }),
    );
    expect(bad.code).toBe(50035);
    expect(bad.rawError).toMatchObject({ errors: { 0: { name: {}, description: {} }, 1: { options: { 1: { required: {} } } } } });
    expect(discord.commands().map((c) => c.name)).toEqual(['wotd']);
  });

  it('injects faults per channel or route: 403, 404, 5xx and slow responses', async () => {
    const rest = restFor(discord, { retries: 0 });
    const other = discord.addChannel(guild.id, { name: 'other' }).id;
    const denied = discord.injectFault({ channelId: general, status: 403, code: 50001, times: 1 });
    const e403 = await apiError(rest.post(Routes.channelMessages(general), { body: { content: 'x' } }));
    expect([e403.status, e403.code, e403.message]).toEqual([403, 50001, 'Missing Access']);
    expect(denied.hits).toBe(1);
    await rest.post(Routes.channelMessages(general), { body: { content: 'after the fault' } });

    discord.injectFault({ route: 'POST /channels/:id/messages', status: 404, times: 1 });
    const e404 = await apiError(rest.post(Routes.channelMessages(other), { body: { content: 'x' } }));
    expect([e404.status, e404.code]).toEqual([404, 10003]);

    const down = discord.injectFault({ route: /^POST \/channels\/\d+\/messages$/, status: 503 });
    const e503 = await rest.post(Routes.channelMessages(other), { body: { content: 'x' } }).catch((e: unknown) => e);
    expect(e503).toBeInstanceOf(HTTPError);
    expect((e503 as HTTPError).status).toBe(503);
    down.remove();

    discord.injectFault({ channelId: other, delayMs: 150, times: 1 });
    await rest.post(Routes.channelMessages(other), { body: { content: 'slow but fine' } });
    const slow = discord.requests.at(-1);
    expect(slow?.faulted).toBe(true);
    expect(slow?.status).toBe(200);
    expect(slow?.durationMs).toBeGreaterThanOrEqual(140);
    expect(discord.messagesIn(other).map((m) => m.content)).toEqual(['slow but fine']);
    discord.clearFaults();
  });

  it('records who a message really pings: allowed_mentions, mentionable roles and Mention Everyone decide', async () => {
    const rest = restFor(discord);
    const loud = discord.addGuild({ roles: [{ name: 'fans', mentionable: true }, { name: 'quiet' }] });
    const channel = loud.channelId('general');
    const fans = loud.roleId('fans');
    const quiet = loud.roleId('quiet');
    const content = `@everyone <@&${fans}> <@&${quiet}> <@${discord.defaultUser.id}>`;
    await rest.post(Routes.channelMessages(channel), { body: { content } });
    await rest.post(Routes.channelMessages(channel), { body: { content, allowed_mentions: { parse: [] } } });
    await rest.post(Routes.channelMessages(channel), { body: { content, allowed_mentions: { parse: ['everyone'], roles: [fans] } } });
    const [open, none, some] = await discord.waitForMessages(channel, 3);
    // The bot lacks Mention Everyone: @everyone and the non-mentionable role never ping.
    expect(open?.pings).toEqual({ everyone: false, roles: [fans], users: [discord.defaultUser.id] });
    expect(none?.pings).toEqual({ everyone: false, roles: [], users: [] });
    expect(some?.pings).toEqual({ everyone: false, roles: [fans], users: [] });
    const recorded = discord.requests.at(-1)?.response as { mention_roles: string[] };
    expect(recorded.mention_roles).toEqual([fans]);
  });

  it('edits, deletes and lists channel messages, and takes files as multipart', async () => {
    const rest = restFor(discord);
    const posted = (await rest.post(Routes.channelMessages(general), {
      body: { content: 'with a file' },
      files: [{ name: 'word.txt', data: Buffer.from('serendipity'), contentType: 'text/plain' }],
    })) as { id: string; attachments: { filename: string; size: number }[] };
    expect(posted.attachments).toMatchObject([{ filename: 'word.txt', size: 11 }]);
    const second = (await rest.post(Routes.channelMessages(general), { body: { content: 'draft' } })) as { id: string };
    const edited = (await rest.patch(Routes.channelMessage(general, second.id), { body: { content: 'final' } })) as { content: string; edited_timestamp: string | null };
    expect(edited.content).toBe('final');
    expect(edited.edited_timestamp).not.toBeNull();
    const listed = (await rest.get(Routes.channelMessages(general))) as { id: string }[];
    expect(listed.map((m) => m.id)).toEqual([second.id, posted.id]);
    await rest.delete(Routes.channelMessage(general, posted.id));
    expect(discord.messagesIn(general).map((m) => m.content)).toEqual(['final']);
    const gone = await apiError(rest.get(Routes.channelMessage(general, posted.id)));
    expect([gone.status, gone.code]).toEqual([404, 10008]);
    const tooLong = await apiError(rest.patch(Routes.channelMessage(general, second.id), { body: { content: 'x'.repeat(2001) } }));
    expect(tooLong.code).toBe(50035);
  });

  it('creates, upserts, edits and deletes single commands; unknown ids answer 10063', async () => {
    const rest = restFor(discord);
    const route = Routes.applicationGuildCommands(discord.applicationId, guild.id);
    const post = (description: string) =>
      fetch(`${discord.apiUrl}/v10${route}`, {
        method: 'POST',
        headers: { Authorization: `Bot ${discord.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'wotd', description }),
      });
    const created = await post('one');
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const again = await post('two');
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(id);
    const patched = (await rest.patch(Routes.applicationGuildCommand(discord.applicationId, guild.id, id), { body: { description: 'three' } })) as { description: string };
    expect(patched.description).toBe('three');
    expect(await rest.get(Routes.applicationGuildCommand(discord.applicationId, guild.id, id))).toMatchObject({ id, name: 'wotd', guild_id: guild.id });
    await rest.delete(Routes.applicationGuildCommand(discord.applicationId, guild.id, id));
    expect(discord.commands(guild.id)).toEqual([]);
    const missing = await apiError(rest.get(Routes.applicationGuildCommand(discord.applicationId, guild.id, id)));
    expect([missing.status, missing.code]).toEqual([404, 10063]);
  });

  it('validates message components: custom ids, link buttons, row sizes', async () => {
    const rest = restFor(discord);
    const button = (extra: Record<string, unknown>) => ({ type: 2, style: 1, label: 'Go', custom_id: 'go', ...extra });
    const post = (components: unknown) => apiError(rest.post(Routes.channelMessages(discord.addChannel(guild.id).id), { body: { content: 'x', components } }));
    const long = await post([{ type: 1, components: [button({ custom_id: 'x'.repeat(101) })] }]);
    expect(long.rawError).toMatchObject({ code: 50035, errors: { components: { 0: { components: { 0: { custom_id: {} } } } } } });
    const dup = await post([{ type: 1, components: [button({}), button({})] }]);
    expect(dup.rawError).toMatchObject({ errors: { components: { 0: { components: { 1: { custom_id: { _errors: [{ code: 'COMPONENT_CUSTOM_ID_DUPLICATED' }] } } } } } } });
    const link = await post([{ type: 1, components: [button({ style: 5, url: 'https://wotd.example' })] }]);
    expect(link.rawError).toMatchObject({ errors: { components: { 0: { components: { 0: { custom_id: {} } } } } } });
    const wide = await post([{ type: 1, components: Array.from({ length: 6 }, (_, i) => button({ custom_id: `b${i}` })) }]);
    expect(wide.code).toBe(50035);
    await rest.post(Routes.channelMessages(general), { body: { components: [{ type: 1, components: [button({}), button({ style: 5, custom_id: undefined, url: 'https://wotd.example' })] }] } });
    expect(discord.messagesIn(general)).toHaveLength(1);
  });
});
