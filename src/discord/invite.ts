import { OAuth2Scopes, PermissionsBitField } from 'discord.js';
import { REQUIRED_PERMISSIONS } from '../replies/admin-replies.ts';
import { CHANNEL_PERMISSION_FLAGS } from './bot-permissions.ts';

/**
 * What the bot needs in a channel and nothing more, the same permissions it checks before posting: to see it, post
 * in it, have its embeds shown, and read back its own recent posts (to tell whether a post it could not confirm got
 * through). View Channel (1024) + Send Messages (2048) + Embed Links (16384) + Read Message History (65536) = 84992.
 * (A thread on each post needs Create Public Threads too; admins who want that grant it in the channel.)
 */
export const BOT_PERMISSIONS = new PermissionsBitField(REQUIRED_PERMISSIONS.map((permission) => CHANNEL_PERMISSION_FLAGS[permission])).bitfield;

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

/**
 * The link a member opens to install the app to their own account (Discord's user install): the commands that
 * support it then work in DMs, group DMs and servers the bot is not in. Needs "User Install" enabled on the
 * application's Installation page.
 */
export function userInstallUrl(applicationId: string): string {
  const params = new URLSearchParams({ client_id: applicationId, integration_type: '1', scope: OAuth2Scopes.ApplicationsCommands });
  return `https://discord.com/oauth2/authorize?${params.toString()}`;
}
