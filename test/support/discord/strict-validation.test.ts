import { Routes } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { restFor, type DiscordServer, type GuildInfo } from './index.ts';
import { apiError, eachTestDiscordServer } from './suite-helpers.ts';

type Json = Record<string, unknown>;

describe('fake Discord refuses what Discord refuses: select menus, message references, repeated mentions, command counts', () => {
  let discord: DiscordServer;
  let guild: GuildInfo;

  eachTestDiscordServer((server) => {
    discord = server;
    guild = discord.addGuild();
  });

  /** Posts to a fresh channel (the 5-per-5-s message bucket stays out of the way): the created message, or the error. */
  const post = (body: Json) => restFor(discord).post(Routes.channelMessages(discord.addChannel(guild.id).id), { body }) as Promise<Json>;
  const refused = async (body: Json) => (await apiError(post(body))).rawError;
  const row = (...components: Json[]) => ({ type: 1, components });
  const option = (value: string, extra: Json = {}) => ({ label: value.toUpperCase(), value, ...extra });

  it('validates select menus of every kind, and accepts well-formed ones', async () => {
    const fine = await post({
      content: 'choose',
      components: [
        row({ type: 3, custom_id: 'word', placeholder: 'A word', min_values: 1, max_values: 2, options: [option('a', { default: true }), option('b', { description: 'bee' })] }),
        row({ type: 5, custom_id: 'who', default_values: [{ id: discord.botUser.id, type: 'user' }] }),
        row({ type: 6, custom_id: 'role', min_values: 0 }),
        row({ type: 7, custom_id: 'any', max_values: 3, default_values: [{ id: guild.id, type: 'role' }, { id: discord.botUser.id, type: 'user' }] }),
        row({ type: 8, custom_id: 'where', channel_types: [0, 5] }),
      ],
    });
    expect((fine.components as Json[]).map((r) => (r.components as Json[])[0]?.custom_id)).toEqual(['word', 'who', 'role', 'any', 'where']);

    expect(await refused({ components: [row({ type: 3, options: [option('a')] })] })).toMatchObject({
      code: 50035,
      errors: { components: { 0: { components: { 0: { custom_id: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } } } } } },
    });
    const noOptions = await refused({ components: [row({ type: 3, custom_id: 's', options: [] })] });
    expect(noOptions).toMatchObject({ errors: { components: { 0: { components: { 0: { options: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH' }] } } } } } } });
    const manyOptions = await refused({ components: [row({ type: 3, custom_id: 's', options: Array.from({ length: 26 }, (_, i) => option(`o${i}`)) })] });
    expect(manyOptions).toMatchObject({ errors: { components: { 0: { components: { 0: { options: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH' }] } } } } } } });

    const bad = await refused({
      components: [
        row({
          type: 3,
          custom_id: 's',
          placeholder: 'p'.repeat(151),
          min_values: 3,
          max_values: 26,
          options: [option('a', { default: true }), option('a', { default: true, description: 'd'.repeat(101) }), { label: '', value: 'v'.repeat(101) }],
        }),
      ],
    });
    expect(bad).toMatchObject({
      errors: {
        components: {
          0: {
            components: {
              0: {
                placeholder: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] },
                max_values: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] },
                options: {
                  1: { value: { _errors: [{ code: 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED' }] }, description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
                  2: { label: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] }, value: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
                },
              },
            },
          },
        },
      },
    });
    // min_values above max_values (1 by default), and more defaults than may be picked.
    const counts = await refused({ components: [row({ type: 3, custom_id: 's', min_values: 2, options: [option('a', { default: true }), option('b', { default: true })] })] });
    expect(counts).toMatchObject({
      errors: {
        components: {
          0: {
            components: {
              0: {
                min_values: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] },
                options: { _errors: [{ code: 'SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES' }] },
              },
            },
          },
        },
      },
    });

    const auto = await refused({
      components: [
        row({ type: 5, custom_id: 'u', default_values: [{ id: 'me', type: 'user' }, { id: guild.id, type: 'role' }], max_values: 2 }),
        row({ type: 8, custom_id: 'c', channel_types: [0, 99] }),
        row({ type: 6, custom_id: 'r', min_values: -1 }),
      ],
    });
    expect(auto).toMatchObject({
      errors: {
        components: {
          0: { components: { 0: { default_values: { 0: { id: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } }, 1: { type: { _errors: [{ code: 'BASE_TYPE_CHOICES' }] } } } } } },
          1: { components: { 0: { channel_types: { 1: { _errors: [{ code: 'BASE_TYPE_CHOICES' }] } } } } },
          2: { components: { 0: { min_values: { _errors: [{ code: 'NUMBER_TYPE_MIN' }] } } } },
        },
      },
    });
    const tooManyDefaults = await refused({ components: [row({ type: 6, custom_id: 'r', default_values: [{ id: guild.id, type: 'role' }, { id: '1', type: 'role' }] })] });
    expect(tooManyDefaults).toMatchObject({
      errors: { components: { 0: { components: { 0: { default_values: { _errors: [{ code: 'SELECT_COMPONENT_TOO_MANY_DEFAULT_VALUES' }] } } } } } },
    });

    // A select fills its row; custom ids are unique across buttons and selects; unknown kinds are refused.
    const shared = await refused({
      components: [
        row({ type: 2, style: 1, label: 'Go', custom_id: 'go' }, { type: 3, custom_id: 'go', options: [option('a')] }),
        row({ type: 4, custom_id: 'text' }),
      ],
    });
    expect(shared).toMatchObject({
      errors: {
        components: {
          0: { components: { _errors: [{ code: 'COMPONENT_LAYOUT_WIDTH_EXCEEDED' }], 1: { custom_id: { _errors: [{ code: 'COMPONENT_CUSTOM_ID_DUPLICATED' }] } } } },
          1: { components: { 0: { type: { _errors: [{ code: 'BASE_TYPE_CHOICES' }] } } } },
        },
      },
    });
  });

  it('takes message_reference.message_id only as a snowflake', async () => {
    const target = await post({ content: 'the original' });
    expect(await post({ content: 'a reply', message_reference: { message_id: target.id, fail_if_not_exists: false } })).toMatchObject({ content: 'a reply' });
    expect(await refused({ content: 'x', message_reference: { message_id: 'latest' } })).toMatchObject({
      code: 50035,
      errors: { message_reference: { message_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } } },
    });
    expect(await refused({ content: 'x', message_reference: { message_id: 12345 } })).toMatchObject({
      errors: { message_reference: { message_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] } } },
    });
    expect(await refused({ content: 'x', message_reference: { channel_id: 'general', type: 7 } })).toMatchObject({
      errors: {
        message_reference: {
          message_id: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] },
          channel_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE' }] },
          type: { _errors: [{ code: 'BASE_TYPE_CHOICES' }] },
        },
      },
    });
    expect(await refused({ content: 'x', message_reference: 'latest' })).toMatchObject({ errors: { message_reference: { _errors: [{ code: 'MODEL_TYPE_CONVERT' }] } } });
  });

  it('refuses an id (or parse type) named twice in allowed_mentions, at the repeat', async () => {
    const user = '400000000000000001';
    const role = guild.everyoneRoleId;
    expect(await refused({ content: `<@${user}>`, allowed_mentions: { users: [user, user], roles: [role, '1', role] } })).toMatchObject({
      code: 50035,
      errors: {
        allowed_mentions: {
          users: { 1: { _errors: [{ code: 'SET_TYPE_ALREADY_CONTAINS_VALUE' }] } },
          roles: { 2: { _errors: [{ code: 'SET_TYPE_ALREADY_CONTAINS_VALUE' }] } },
        },
      },
    });
    expect(await refused({ content: 'x', allowed_mentions: { parse: ['users', 'users'] } })).toMatchObject({
      errors: { allowed_mentions: { parse: { 1: { _errors: [{ code: 'SET_TYPE_ALREADY_CONTAINS_VALUE' }] } } } },
    });
    expect(await post({ content: `<@${user}>`, allowed_mentions: { users: [user], roles: [role] } })).toMatchObject({ content: `<@${user}>` });
  });

  it('keeps Discord’s command counts: 100 chat input, 15 user, 15 message per scope; 400 30032 beyond, a form error past 130 listed', async () => {
    const rest = restFor(discord);
    const chat = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, description: 'x' }));
    const context = (type: 2 | 3, n: number) => Array.from({ length: n }, (_, i) => ({ name: `${type === 2 ? 'User' : 'Message'} ${i}`, type }));
    const global = Routes.applicationCommands(discord.applicationId);
    const guildScope = Routes.applicationGuildCommands(discord.applicationId, guild.id);

    const full = (await rest.put(global, { body: [...chat(100), ...context(2, 15), ...context(3, 15)] })) as Json[];
    expect(full).toHaveLength(130);
    for (const [body, limit] of [
      [chat(101), 100],
      [[...chat(1), ...context(2, 16)], 15],
      [context(3, 16), 15],
    ] as const) {
      const error = await apiError(rest.put(guildScope, { body }));
      expect([error.status, error.code, error.message]).toEqual([400, 30032, `Maximum number of application commands reached (${limit})`]);
    }
    const listed = await apiError(rest.put(guildScope, { body: chat(131) }));
    expect(listed.rawError).toMatchObject({ code: 50035, errors: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 130 or fewer in length.' }] } });
    expect(discord.commands(guild.id)).toEqual([]);

    // One more of a full kind is refused; another kind, or an update of one there, is not.
    const more = await apiError(rest.post(global, { body: { name: 'c100', description: 'x' } }));
    expect([more.status, more.code]).toEqual([400, 30032]);
    expect(await rest.post(global, { body: { name: 'c0', description: 'changed' } })).toMatchObject({ name: 'c0', description: 'changed' });
    await rest.put(global, { body: chat(100) });
    expect(await rest.post(global, { body: { name: 'User 0', type: 2 } })).toMatchObject({ name: 'User 0', type: 2 });
  });
});
