import { PermissionFlagsBits, Routes } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { restFor, type DiscordServer, type GuildInfo } from './index.ts';
import { apiError, eachTestDiscordServer } from './suite-helpers.ts';

type Json = Record<string, unknown>;

const EMBED = { title: 'serendipity', description: 'a happy accident' };

describe('fake Discord without Embed Links: the message is taken, its embeds are dropped', () => {
  let discord: DiscordServer;
  let guild: GuildInfo;
  let plain: string;

  eachTestDiscordServer((server) => {
    discord = server;
    guild = discord.addGuild({
      channels: [{ name: 'general' }, { name: 'plain', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.EmbedLinks }] }],
    });
    plain = guild.channelId('plain');
  });

  it('posts the content without the embeds; an embed-only post is empty (50006); where it may embed, the embeds stay', async () => {
    const rest = restFor(discord);
    const sent = (await rest.post(Routes.channelMessages(plain), { body: { content: '<@&1> today’s word', embeds: [EMBED] } })) as Json;
    expect(sent).toMatchObject({ content: '<@&1> today’s word', embeds: [] });
    expect(discord.messagesIn(plain)).toMatchObject([{ content: '<@&1> today’s word', embeds: [] }]);
    const read = (await rest.get(Routes.channelMessage(plain, String(sent.id)))) as Json;
    expect(read.embeds).toEqual([]);

    const embedOnly = await apiError(rest.post(Routes.channelMessages(plain), { body: { embeds: [EMBED] } }));
    expect([embedOnly.status, embedOnly.code, embedOnly.message]).toEqual([400, 50006, 'Cannot send an empty message']);
    expect(discord.messagesIn(plain)).toHaveLength(1);

    const general = guild.channelId('general');
    expect(await rest.post(Routes.channelMessages(general), { body: { embeds: [EMBED] } })).toMatchObject({ embeds: [{ type: 'rich', ...EMBED }] });
  });

  it('drops embeds an edit adds, and refuses an edit that would leave the message empty', async () => {
    const rest = restFor(discord);
    const sent = (await rest.post(Routes.channelMessages(plain), { body: { content: 'word' } })) as Json;
    const edited = (await rest.patch(Routes.channelMessage(plain, String(sent.id)), { body: { content: 'word, again', embeds: [EMBED] } })) as Json;
    expect(edited).toMatchObject({ content: 'word, again', embeds: [] });
    const emptied = await apiError(rest.patch(Routes.channelMessage(plain, String(sent.id)), { body: { content: '', embeds: [EMBED] } }));
    expect([emptied.status, emptied.code]).toEqual([400, 50006]);
    expect(discord.messagesIn(plain)[0]).toMatchObject({ content: 'word, again', embeds: [] });
  });

  it('leaves interaction replies alone: they show their embeds whatever the bot’s channel permissions', async () => {
    await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: [{ name: 'wotd', description: 'Word of the day' }] });
    const ix = discord.invokeCommand({ name: 'wotd', channelId: plain });
    const callback = await fetch(`${discord.apiUrl}/v10/interactions/${ix.id}/${ix.token}/callback`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 4, data: { embeds: [EMBED] } }),
    });
    expect(callback.status).toBe(204);
    expect((await ix.waitForResponse()).embeds).toEqual([EMBED]);
  });
});
