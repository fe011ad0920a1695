/**
 * A local Discord-compatible server for end-to-end tests and benchmarks: the real discord.js Client and REST talk to
 * it over loopback (API v10 REST under `apiUrl`, JSON gateway from `GET /gateway/bot`).
 *
 *   const discord = await startDiscordServer({ interactionDeadlineMs: 3000 });
 *   const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: discord.apiUrl } });
 *   const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });  // GUILD_CREATE after READY
 *   await client.login(discord.token);
 *   const ix = discord.invokeCommand({ name: 'wotd', options: { date: '2024-01-01' }, channelId: guild.channelId('general') });
 *   const reply = await ix.waitForResponse();            // what the user finally sees (reply, or the edit of a deferral)
 *   discord.injectFault({ channelId, status: 403, code: 50001, times: 1 });
 *   discord.messagesIn(channelId); discord.posts(); discord.requests; discord.stats();   // the recording
 *   discord.closeGateway(4000); await discord.waitForResume();
 *   await discord.close();
 *
 * World: addGuild / addChannel / updateChannel / deleteChannel (CHANNEL_DELETE) / removeGuild (GUILD_DELETE) /
 *   addMember / setMemberRoles; permissions resolve from roles and overwrites like Discord's (the bot gets a managed
 *   role with View, Send, Embed Links, Read History unless `botMember.roles` says otherwise), and REST answers
 *   50001/50013 from them.
 * Interactions: invokeCommand (in a guild channel, or `dm: true`; options checked against the registered command:
 *   register first via PUT
 *   /applications/:id/commands), pressButton (the button must be on a message), autocomplete (→ choices),
 *   each returning an InteractionHandle (callbacks, original, followUps, waitFor…).
 * Discord's rules: 50/s global limit per token (fixed one-second windows; interaction routes exempt), per-route buckets
 *   with X-RateLimit-* headers (5 per 5 s per channel for messages), 3 s deadline (10062) and single ack (40060),
 *   `nonce` + `enforce_nonce` dedupe, 50035 validation (embeds, content, allowed_mentions, components), 10003 for
 *   unknown channels, 401 without `Bot <token>`.
 * Gateway: closeGateway(code) / dropGateway() (1006) / requestReconnect() (op 7) / invalidateSession(); RESUME
 *   replays missed dispatches; waitForIdentify / waitForReady / waitForResume / gatewayEvents.
 */
import { DiscordServer, type DiscordServerOptions } from './server.ts';

export { DiscordServer } from './server.ts';
export type {
  AutocompleteSpec,
  DiscordServerOptions,
  FaultHandle,
  FaultSpec,
  GuildInfo,
  InteractionHandle,
  InvokeCommandSpec,
  InvokeUser,
  PressButtonSpec,
  RecordedCallback,
  RecordedRequest,
  SecondStats,
} from './server.ts';
export type { MessageView } from './messages.ts';
export type { GatewayEvent } from './gateway.ts';
export type { ChannelSpec, GuildSpec, MemberSpec, OverwriteSpec, RoleSpec } from './model.ts';
export type { OptionValues, RegisteredCommand } from './commands.ts';
export { DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS } from './model.ts';

/** Starts the server on an ephemeral loopback port. Always `await discord.close()` when done. */
export async function startDiscordServer(options: DiscordServerOptions = {}): Promise<DiscordServer> {
  const server = new DiscordServer(options);
  await server.listen();
  return server;
}
export { loginClient, restFor } from './client.ts';
