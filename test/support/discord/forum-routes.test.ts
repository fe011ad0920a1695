import { PermissionFlagsBits, Routes } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { restFor, type DiscordServer, type GuildInfo } from './index.ts';
import { apiError, eachTestDiscordServer } from './suite-helpers.ts';

describe('fake Discord forum posts, active threads and pins', () => {
  let discord: DiscordServer;
  let guild: GuildInfo;

  eachTestDiscordServer((server) => {
    discord = server;
    guild = discord.addGuild({
      channels: [
        { name: 'general' },
        { name: 'forum', type: 15, availableTags: ['Words'], requireTag: true },
        { name: 'closed', type: 15, permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.SendMessages }] },
      ],
    });
  });

  it('creates a forum post whose starter message has the thread id, with the tags and permissions Discord checks', async () => {
    const rest = restFor(discord);
    const forum = guild.channelId('forum');
    const { available_tags: tags } = (await rest.get(Routes.channel(forum))) as { available_tags: Array<{ id: string; name: string }> };
    const tagId = tags[0]?.id ?? '';
    const post = (name: string, channel: string, applied: string[]) =>
      rest.post(Routes.threads(channel), { body: { name, applied_tags: applied, message: { content: 'hello' } } });
    expect(await apiError(post('untagged', forum, []))).toMatchObject({ status: 400, code: 40067 });
    expect(await apiError(post('unknown tag', forum, ['123456789012345678']))).toMatchObject({ status: 400, code: 50035 });
    expect(await apiError(post('no send', guild.channelId('closed'), []))).toMatchObject({ status: 403, code: 50013 });
    expect(await apiError(post('text channel', guild.channelId('general'), []))).toMatchObject({ status: 400, code: 50024 });
    const thread = (await post('Today', forum, [tagId])) as { id: string; parent_id: string; applied_tags: string[] };
    expect(thread).toMatchObject({ parent_id: forum, applied_tags: [tagId], type: 11 });
    expect(await rest.get(Routes.channelMessage(thread.id, thread.id))).toMatchObject({ id: thread.id, content: 'hello' });
    expect(await rest.get(Routes.guildActiveThreads(guild.id))).toMatchObject({ threads: [{ id: thread.id, name: 'Today' }], has_more: false });
  });

  it('pins and unpins with Pin Messages, and answers 50013 without it', async () => {
    const rest = restFor(discord);
    const general = guild.channelId('general');
    const message = (await rest.post(Routes.channelMessages(general), { body: { content: 'pin me' } })) as { id: string };
    expect(await apiError(rest.put(Routes.channelMessagesPin(general, message.id)))).toMatchObject({ status: 403, code: 50013 });
    discord.updateRole(guild.id, guild.botRoleId ?? '', { permissions: PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.PinMessages });
    await rest.put(Routes.channelMessagesPin(general, message.id));
    expect(discord.messagesIn(general)[0]?.pinned).toBe(true);
    await rest.delete(Routes.channelMessagesPin(general, message.id));
    expect(discord.messagesIn(general)[0]?.pinned).toBe(false);
    expect(await apiError(rest.put(Routes.channelMessagesPin(general, '123456789012345678')))).toMatchObject({ status: 404, code: 10008 });
  });
});
