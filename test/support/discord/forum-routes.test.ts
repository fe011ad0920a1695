import { PermissionFlagsBits, Routes } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { MAX_PINS } from './forum-routes.ts';
import { restFor, startDiscordServer, type DiscordServer, type GuildInfo } from './index.ts';
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
        { name: 'clips', type: 16, availableTags: ['Daily'], requireTag: true },
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

  it('takes a post in a media channel as in a forum: its tags, a required tag, and an embed without any attachment', async () => {
    const rest = restFor(discord);
    const media = guild.channelId('clips');
    const channel = (await rest.get(Routes.channel(media))) as { type: number; flags: number; available_tags: Array<{ id: string; name: string }> };
    expect(channel).toMatchObject({ type: 16, flags: 1 << 4, available_tags: [{ name: 'Daily' }] });
    const tagId = channel.available_tags[0]?.id ?? '';
    const post = (applied: string[]) => rest.post(Routes.threads(media), { body: { name: 'word', applied_tags: applied, message: { embeds: [{ title: 'word' }] } } });
    expect(await apiError(post([]))).toMatchObject({ status: 400, code: 40067 });
    const thread = (await post([tagId])) as { id: string; parent_id: string; type: number };
    expect(thread).toMatchObject({ parent_id: media, type: 11 });
    expect(await rest.get(Routes.channelMessage(thread.id, thread.id))).toMatchObject({ id: thread.id, embeds: [{ title: 'word' }], attachments: [] });
    expect(discord.threadsIn(media)).toMatchObject([{ id: thread.id, parentId: media }]);
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

  it(`refuses a pin past Discord's ${MAX_PINS} in a channel with 30003, and takes it once one is unpinned`, async () => {
    // One channel's fifty messages, posted faster than Discord's five per five seconds would allow.
    const server = await startDiscordServer({ perChannelMessages: { limit: MAX_PINS + 1, windowMs: 5000 } });
    try {
      const pinning = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.PinMessages;
      const place = server.addGuild({ channels: [{ name: 'general' }], roles: [{ name: 'pinning', permissions: pinning }], botMember: { roles: ['pinning'] } });
      const rest = restFor(server);
      const general = place.channelId('general');
      const ids: string[] = [];
      for (let i = 0; i <= MAX_PINS; i += 1) ids.push(((await rest.post(Routes.channelMessages(general), { body: { content: `message ${i}` } })) as { id: string }).id);
      const [first, ...others] = ids;
      const last = others.pop() ?? '';
      for (const id of [first ?? '', ...others]) await rest.put(Routes.channelMessagesPin(general, id));
      expect(await apiError(rest.put(Routes.channelMessagesPin(general, last)))).toMatchObject({ status: 400, code: 30003 });
      // Pinning one already pinned changes nothing, so it is no pin past the limit.
      await rest.put(Routes.channelMessagesPin(general, first ?? ''));
      await rest.delete(Routes.channelMessagesPin(general, first ?? ''));
      await rest.put(Routes.channelMessagesPin(general, last));
      expect(server.messagesIn(general).filter((message) => message.pinned)).toHaveLength(MAX_PINS);
    } finally {
      await server.close();
    }
  });
});
