import { ChannelType, MessageFlags, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { restApiBase } from '../../src/discord/client.ts';
import { channelKind } from '../../src/discord/command-options.ts';
import { buttonRows, newMessagePayload, replacementPayload } from '../../src/discord/interaction-payloads.ts';
import { dailyButtonRows } from '../../src/discord/daily-post-edit.ts';
import { parseDeployArgs } from '../../src/discord/deploy-commands.ts';
import { BOT_PERMISSIONS, inviteUrl } from '../../src/discord/invite.ts';
import { buttonPrefix } from '../../src/replies/interactions.ts';

describe('invite URL', () => {
  it('asks for bot + applications.commands and only View Channel, Send Messages, Embed Links and Read Message History', () => {
    expect(BOT_PERMISSIONS).toBe(
      PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.ReadMessageHistory,
    );
    expect(BOT_PERMISSIONS).toBe(84992n);
    const url = new URL(inviteUrl('123456789012345678'));
    expect(url.origin + url.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(url.searchParams.get('client_id')).toBe('123456789012345678');
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(url.searchParams.get('permissions')).toBe('84992');
  });
});

describe('DISCORD_API_URL', () => {
  it('drops a version suffix, which discord.js adds itself', () => {
    expect(restApiBase('https://discord.com/api')).toBe('https://discord.com/api');
    expect(restApiBase('https://proxy.internal/api/v10/')).toBe('https://proxy.internal/api');
    expect(restApiBase('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });
});

describe('deploy-commands arguments', () => {
  it('reads --guild in both spellings and nothing else', () => {
    expect(parseDeployArgs([])).toEqual({ help: false, guildId: null });
    expect(parseDeployArgs(['--guild', '123456789012345678'])).toEqual({ help: false, guildId: '123456789012345678' });
    expect(parseDeployArgs(['--guild=123456789012345678'])).toEqual({ help: false, guildId: '123456789012345678' });
    expect(parseDeployArgs(['--help'])).toEqual({ help: true });
    expect(parseDeployArgs(['--guild'])).toEqual({ error: expect.stringContaining('needs a server id') });
    expect(parseDeployArgs(['--guild', 'my-server'])).toEqual({ error: expect.stringContaining('is not a server id') });
    expect(parseDeployArgs(['--global'])).toEqual({ error: 'unknown argument "--global"' });
  });
});

describe('message payloads', () => {
  it('a new message carries only what it has, never pings, and is ephemeral by flag', () => {
    expect(newMessagePayload({ content: 'hi' })).toEqual({ content: 'hi', allowedMentions: { parse: [], roles: [] } });
    const payload = newMessagePayload({ content: 'x', ephemeral: true, mentionRoleIds: ['42'] });
    expect(payload.flags).toBe(MessageFlags.Ephemeral);
    expect(payload.allowedMentions).toEqual({ parse: [], roles: ['42'] });
  });

  it('a replacement clears whatever the new message lacks', () => {
    expect(replacementPayload({ embeds: [{ title: 't' }] })).toEqual({
      content: '',
      embeds: [{ title: 't' }],
      components: [],
      allowedMentions: { parse: [], roles: [] },
    });
  });

  it('buttons become action rows of at most five', () => {
    const specs = Array.from({ length: 7 }, (_, index) => ({ customId: `p:${index}`, label: `B${index}` }));
    const rows = buttonRows([...specs, { customId: 'q', label: 'Go', style: 'primary' as const, disabled: true }]).map((row) => row.toJSON());
    expect(rows).toHaveLength(2);
    expect(rows[0]?.components).toHaveLength(5);
    expect(rows[1]?.components.at(-1)).toEqual({ type: 2, custom_id: 'q', label: 'Go', style: 1, disabled: true });
    expect(rows[0]?.components[0]).toEqual({ type: 2, custom_id: 'p:0', label: 'B0', style: 2, disabled: false });
  });

  it('routes buttons by the custom id before the first colon and maps channel types', () => {
    expect(buttonPrefix('hist:2025-01-14:3')).toBe('hist');
    expect(buttonPrefix('plain')).toBe('plain');
    expect(channelKind(ChannelType.GuildText)).toBe('text');
    expect(channelKind(ChannelType.GuildAnnouncement)).toBe('announcement');
    expect(channelKind(ChannelType.GuildForum)).toBe('forum');
    expect(channelKind(ChannelType.GuildMedia)).toBe('media');
    expect(channelKind(ChannelType.GuildVoice)).toBe('other');
  });
});

describe('daily post buttons', () => {
  const buttons = (count: number) => Array.from({ length: count }, (_, index) => ({ customId: `b${index}`, label: `B${index}` }));
  const shape = (rows: ReturnType<typeof dailyButtonRows>) => rows.map((row) => row.components.map((button) => button.custom_id));

  it('puts a button that asks for a new row (Save under the quiz) on its own, five to a row, at most five rows', () => {
    expect(dailyButtonRows([])).toEqual([]);
    expect(shape(dailyButtonRows([...buttons(4), { customId: 'save', label: 'Save', newRow: true }]))).toEqual([['b0', 'b1', 'b2', 'b3'], ['save']]);
    expect(shape(dailyButtonRows([{ customId: 'save', label: 'Save', newRow: false }]))).toEqual([['save']]);
    expect(shape(dailyButtonRows(buttons(12))).map((row) => row.length)).toEqual([5, 5, 2]);
    expect(shape(dailyButtonRows(buttons(30))).flat()).toEqual(buttons(25).map((button) => button.customId));
  });
});
