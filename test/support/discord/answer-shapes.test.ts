import { PermissionFlagsBits, Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT_PERMISSIONS, restFor, startDiscordServer, type DiscordServer, type GuildInfo } from './index.ts';
import { RawGateway } from './raw-gateway.ts';

type Json = Record<string, unknown>;

interface Schema {
  safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
}

// discord-api-spec ships its zod schemas without type declarations: loaded by a name TypeScript does not resolve.
const SPEC_SCHEMAS = 'discord-api-spec/zod';
const spec = (await import(SPEC_SCHEMAS)) as Record<string, Schema | undefined>;

/** The schema Discord's description gives for one of its objects, e.g. "MessageResponse". */
function schema(name: string): Schema {
  const found = spec[`${name}Schema`];
  if (!found) throw new Error(`discord-api-spec has no ${name}Schema`);
  return found;
}

/** The problems Discord's published description finds in `value` ("path: message"), none when it fits. */
function problems(against: Schema, value: unknown): string[] {
  const result = against.safeParse(value);
  return result.success ? [] : (result.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
}

/** The gateway-only fields Discord's documentation lists for GUILD_CREATE (discord-api-types' GatewayGuildCreateDispatchData). */
const GUILD_CREATE_EXTRAS = [
  'joined_at',
  'large',
  'unavailable',
  'member_count',
  'voice_states',
  'members',
  'channels',
  'threads',
  'presences',
  'stage_instances',
  'guild_scheduled_events',
  'soundboard_sounds',
];

describe('fake Discord answers carry what Discord’s description marks required', () => {
  let discord: DiscordServer;
  let guild: GuildInfo;
  let general: string;

  beforeEach(async () => {
    discord = await startDiscordServer();
    guild = discord.addGuild({ members: [{ id: '400000000000000001', username: 'reader' }], channels: [{ name: 'general' }] });
    general = guild.channelId('general');
  });
  afterEach(async () => {
    await discord.close();
  });

  it('users: flags, public_flags, primary_guild and the rest; the bot itself with its account fields; the application in full', async () => {
    const rest = restFor(discord);
    const me = (await rest.get(Routes.user('@me'))) as Json;
    expect(problems(schema('UserPIIResponse'), me)).toEqual([]);
    expect(me).toMatchObject({ id: discord.botUser.id, bot: true, flags: 0, public_flags: 0, mfa_enabled: false, locale: 'en-US' });
    const reader = (await rest.get(Routes.user('400000000000000001'))) as Json;
    expect(problems(schema('UserResponse'), reader)).toEqual([]);
    // Discord sends `bot` only for bots.
    expect(reader).not.toHaveProperty('bot');
    const application = (await rest.get(Routes.currentApplication())) as Json;
    expect(problems(schema('PrivateApplicationResponse'), application)).toEqual([]);
    expect(problems(schema('UserResponse'), application.owner)).toEqual([]);
  });

  it('messages: embeds of type "rich", fields with inline (false unless given), components with ids, full mentions, attachments with proxy_url', async () => {
    const rest = restFor(discord);
    const sent = (await rest.post(Routes.channelMessages(general), {
      body: {
        content: 'hello <@400000000000000001>',
        embeds: [{ title: 'word', timestamp: '2025-01-20T09:00:00.000Z', fields: [{ name: 'a', value: '1' }, { name: 'b', value: '2', inline: true }] }],
        components: [
          { type: 1, components: [{ type: 2, style: 1, custom_id: 'one', label: 'One' }, { type: 2, style: 2, custom_id: 'two', label: 'Two', id: 2 }] },
          { type: 1, components: [{ type: 3, custom_id: 'pick', options: [{ label: 'A', value: 'a' }] }] },
        ],
      },
      files: [{ name: 'notes.txt', data: Buffer.from('some notes') }],
    })) as Json;
    expect(problems(schema('MessageResponse'), sent)).toEqual([]);
    expect(sent.embeds).toEqual([
      {
        type: 'rich',
        title: 'word',
        timestamp: '2025-01-20T09:00:00.000Z',
        fields: [
          { name: 'a', value: '1', inline: false },
          { name: 'b', value: '2', inline: true },
        ],
      },
    ]);
    // Ids are assigned depth first from 1, skipping the one the sender gave (2).
    expect(sent.components).toEqual([
      { type: 1, id: 1, components: [{ type: 2, style: 1, custom_id: 'one', label: 'One', id: 3 }, { type: 2, style: 2, custom_id: 'two', label: 'Two', id: 2 }] },
      { type: 1, id: 4, components: [{ type: 3, id: 5, custom_id: 'pick', options: [{ label: 'A', value: 'a' }], min_values: 1, max_values: 1 }] },
    ]);
    expect(sent.mentions).toEqual([expect.objectContaining({ id: '400000000000000001', username: 'reader', flags: 0, public_flags: 0 })]);
    const [attachment] = sent.attachments as Json[];
    expect(attachment).toMatchObject({ filename: 'notes.txt', size: 10, proxy_url: expect.stringMatching(/^https:\/\/.+notes\.txt$/) });
    // What tests read back is what the bot sent; the additions are Discord's, on the wire.
    const [view] = discord.messagesIn(general);
    expect(view?.embeds[0]?.type).toBeUndefined();
    const read = (await rest.get(Routes.channelMessage(general, String(sent.id)))) as Json;
    expect(read.components).toEqual(sent.components);
  });

  it('GET /guilds/:id is the guild object in full; GUILD_CREATE adds every gateway field, with full roles, members and channels', async () => {
    const rest = restFor(discord);
    const fetched = (await rest.get(Routes.guild(guild.id))) as Json;
    expect(problems(schema('GuildWithCountsResponse'), fetched)).toEqual([]);
    const raw = new RawGateway(discord.gatewayUrl);
    try {
      await raw.send({ op: 2, d: { token: discord.token, intents: 1, properties: {}, shard: [0, 1] } });
      const created = (await raw.next((f) => f.t === 'GUILD_CREATE')).d as Json;
      expect(problems(schema('GuildResponse'), created)).toEqual([]);
      for (const key of GUILD_CREATE_EXTRAS) expect(created, key).toHaveProperty(key);
      // discord-api-types' APIGuild has these two beyond the description's guild object.
      expect(created).toMatchObject({ hub_type: null, incidents_data: null, member_count: 4 });
      for (const role of created.roles as Json[]) expect(problems(schema('GuildRoleResponse'), role)).toEqual([]);
      for (const member of created.members as Json[]) expect(problems(schema('GuildMemberResponse'), member)).toEqual([]);
      // GUILD_CREATE's channels leave out guild_id (it is the guild's own).
      for (const channel of created.channels as Json[]) {
        expect(channel).not.toHaveProperty('guild_id');
        expect(problems(schema('GuildChannelResponse'), { ...channel, guild_id: guild.id })).toEqual([]);
      }
    } finally {
      await raw.close(1000);
    }
  });

  it('a thread started from a message marks it: `thread` and HAS_THREAD (1 << 5) on later reads, edits and in MESSAGE_UPDATE', async () => {
    discord.updateRole(guild.id, guild.botRoleId ?? '', { permissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.CreatePublicThreads });
    const rest = restFor(discord);
    const raw = new RawGateway(discord.gatewayUrl);
    try {
      await raw.send({ op: 2, d: { token: discord.token, intents: 1 | (1 << 9), properties: {}, shard: [0, 1] } });
      await raw.next((f) => f.t === 'GUILD_CREATE');
      const posted = (await rest.post(Routes.channelMessages(general), { body: { content: 'daily word' } })) as Json;
      expect(posted).not.toHaveProperty('thread');
      expect(Number(posted.flags) & 32).toBe(0);
      const thread = (await rest.post(Routes.threads(general, String(posted.id)), { body: { name: 'Discuss' } })) as Json;
      expect(problems(schema('ThreadResponse'), thread)).toEqual([]);

      const update = (await raw.next((f) => f.t === 'MESSAGE_UPDATE' && (f.d as Json).id === posted.id)).d as Json;
      expect(update).toMatchObject({ flags: 32, thread: { id: thread.id, name: 'Discuss', parent_id: general } });
      const read = (await rest.get(Routes.channelMessage(general, String(posted.id)))) as Json;
      expect(problems(schema('MessageResponse'), read)).toEqual([]);
      expect(read).toMatchObject({ flags: 32, thread: { id: thread.id, type: 11 } });
      const [listed] = (await rest.get(Routes.channelMessages(general))) as Json[];
      expect(listed).toMatchObject({ id: posted.id, flags: 32, thread: { id: thread.id } });
      // An edit that sets flags keeps HAS_THREAD, as Discord does for flags a sender cannot set.
      const edited = (await rest.patch(Routes.channelMessage(general, String(posted.id)), { body: { content: 'daily word (edited)', flags: 4 } })) as Json;
      expect(edited).toMatchObject({ flags: 32 | 4, thread: { id: thread.id } });
      expect(discord.messagesIn(general)[0]).toMatchObject({ threadId: thread.id, flags: 32 | 4 });
    } finally {
      await raw.close(1000);
    }
  });
});
