import { OAuth2Scopes, PermissionFlagsBits, PermissionsBitField } from 'discord.js';

/**
 * What the bot needs in a channel and nothing more: to see it, post in it, and have its embeds shown.
 * View Channel (1024) + Send Messages (2048) + Embed Links (16384) = 19456.
 */
export const BOT_PERMISSIONS = new PermissionsBitField([
  PermissionFlagsBits.ViewChannel,
  PermissionFlagsBits.SendMessages,
  PermissionFlagsBits.EmbedLinks,
]).bitfield;

export const INVITE_SCOPES = [OAuth2Scopes.Bot, OAuth2Scopes.ApplicationsCommands] as const;

/** The link a server admin opens to add the bot (always on discord.com, whatever API base the bot talks to). */
export function inviteUrl(applicationId: string): string {
  const params = new URLSearchParams({
    client_id: applicationId,
    scope: INVITE_SCOPES.join(' '),
    permissions: BOT_PERMISSIONS.toString(),
  });
  return `https://discord.com/oauth2/authorize?${params.toString()}`;
}
