/**
 * A local Discord-compatible server for end-to-end tests and benchmarks. The real discord.js Client and REST talk to
 * it over loopback: REST API v10 under `apiUrl` (pass it as `rest: { api }` / DISCORD_API_URL), JSON gateway from
 * `GET /gateway/bot`. Tests for the harness itself live next to it (*.test.ts).
 *
 *   const discord = await startDiscordServer({ interactionDeadlineMs: 3000 });
 *   const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
 *   const client = await loginClient(discord);              // or new Client({ rest: { api: discord.apiUrl } })
 *   await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: commands });
 *   const ix = discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-01' }, channelId: guild.channelId('general') });
 *   const shown = await ix.waitForResponse();               // the reply, or the edit of a deferral
 *   await discord.close();
 *
 * Options: globalLimitPerSecond (50), perChannelMessages ({ limit: 5, windowMs: 5000 }), interactionDeadlineMs (3000),
 *   interactionTokenTtlMs (15 min), nonceWindowMs (5 min), heartbeatIntervalMs (41250), sessionTimeoutMs (2 min),
 *   shards (the count GET /gateway/bot recommends; default one per 1,000 guilds, at least 1), maxConcurrency (1),
 *   sessionStartLimit (1000), maxGuildsPerShard (2500), keepAliveTimeoutMs (5000; Discord's is 400 s), specCheck (true;
 *   benchmarks only turn it off), frontDoorSpares (none; a benchmark whose harness is saturated serves REST through a
 *   child process that accepts at once, front-door.ts), applicationId, botUserId, botUsername, token.
 * Identity: apiUrl, gatewayUrl, token, applicationId, botUser, defaultUser (the member who invokes when no `user`).
 * World: addGuild(spec) → GuildInfo { id, everyoneRoleId, botRoleId, channels, roles, channelId(name), roleId(name) };
 *   addGuilds(count, spec | (index) => spec) → GuildInfo[] for large worlds (2,000 guilds with 10 channels each take
 *   0.1–0.3 s; `npx tsx test/support/discord/world-bench.ts` measures building and connecting one); default guild ids
 *   are one millisecond apart, so consecutive guilds land on consecutive shards;
 *   addChannel, updateChannel (CHANNEL_UPDATE), deleteChannel (CHANNEL_DELETE), removeGuild (GUILD_DELETE),
 *   setGuildAvailable (outage), addMember, setMemberRoles, updateRole, botPermissions(channelId), dmChannelOf(userId);
 *   addGuild({ withoutBot: true }) for a server the bot is not in (no gateway events, REST Missing Access);
 *   installApp(userId) / uninstallApp (a user install); addPrivateChannel(users, { group? }) → a group DM (or a DM
 *   between two users) to invoke in, where REST answers 50001; setDmsOpen(userId, false): posts to the user's DM
 *   answer 403 50007, as do (50278) those to a user who shares no server with the bot and has no user install.
 *   Permissions resolve from roles and overwrites (overwrite ids may be '@everyone', '@bot' or a role name); the bot
 *   gets a managed role with View, Send, Embed Links, Read History unless `botMember.roles` says otherwise; REST
 *   answers 50001/50013 from them. Without Embed Links a channel post or edit is taken with its embeds dropped (and
 *   answered 50006 when nothing else is left); interaction replies keep theirs.
 * Interactions (each returns an InteractionHandle: id, token, sentAt, payload, deliveredTo, callbacks, callback,
 *   original, followUps, choices, waitForCallback, waitForResponse, waitForOriginal, waitForFollowUp):
 *   invokeCommand({ name, options, subcommand?, channelId | dm: true, user?, memberPermissions?, appPermissions? })
 *     — options are checked against the registered command as Discord's client would (register first), and so are
 *     where it may be used: its `contexts` (0 guild, 1 the bot's DM, 2 group DMs and DMs between users; default all)
 *     and `integration_types` (0 guild install, 1 user install; default [0]). A command is offered only where an
 *     installation authorizes it: the guild install in the bot's servers and DM, the user install (installApp) anywhere.
 *     The payload carries `context` and `authorizing_integration_owners` ({"0": guild id or "0", "1": user id}).
 *     In a server without the bot (addGuild({ withoutBot: true })) `app_permissions` are @everyone's in the channel,
 *     every response is made ephemeral when the member lacks Use External Apps there, and an interaction that only
 *     the user install authorized may create at most 5 follow-ups (40094), as on Discord;
 *   pressButton({ customId, channelId, messageId? }) — the button must be on a message the bot sent;
 *   submitModal({ interactionId, values, user?, memberPermissions?, forged? }) — submits the form (modal, callback 9)
 *     the bot answered that interaction with, as a type 5 interaction, within its inputs' lengths unless `forged`;
 *   autocomplete({ name, options, focused, channelId }) → choices; startAutocomplete → handle; interactionHandles().
 * Recording: requests (every REST request with time, route, body, status, response, headers, limited, faulted),
 *   messagesIn(channelId), waitForMessages(channelId, n), allMessages() (MessageView with content, embeds and
 *   components as sent (answers add what Discord does: embed `type`, field `inline`, component ids), files (uploaded
 *   attachments, with their text), flags, ephemeral, loading, pings, revisions, threadId),
 *   threadsIn(channelId), posts(channelId?), callbacks(), commands(guildId?),
 *   stats() (per epoch second: accepted against the global limit, exempt, posts, global429, bucket429, invalid),
 *   internalErrors, waitFor(probe, description).
 * Faults: injectFault({ route?: 'POST /channels/:id/messages' | RegExp, channelId?, status?, code?, delayMs?, times?, answer?: a raw status, headers and body,
 *  rateLimit?: { global, retryAfterMs, scope?: 'user' | 'shared' } (with status 429: a global, per-route or shared-resource 429) })
 *   → { hits, remove() }; clearFaults().
 * Spec check: every routed request, every answer (not a raw `answer` fault's bytes, nor a 5xx) and every gateway
 *   dispatch is checked against discord-api-spec (spec-check.ts); a violation fails the test it happened in
 *   (test/support/process-setup.ts). takeSpecViolations() (test/support/spec-ledger.ts) takes them for a test that
 *   provokes them on purpose; rewriteResponse = (route, status, body) => body changes what routes answer (test-only).
 * Shards: GET /gateway/bot answers { url, shards: shardCount, session_start_limit: { total, remaining (counts
 *   IDENTIFYs in a day), reset_after, max_concurrency } }; the server enforces neither (discord.js itself will not
 *   start more shards than `remaining`, and paces IDENTIFYs by max_concurrency within one process). An IDENTIFY with
 *   `shard: [id, count]` is closed with 4010 when malformed or id >= count, and with 4011 when guilds >
 *   maxGuildsPerShard × count (no `shard` counts as [0, 1]); READY carries the shard and lists only its guilds, and
 *   only their GUILD_CREATEs follow. Every later guild event (GUILD_CREATE, CHANNEL_*, GUILD_DELETE,
 *   INTERACTION_CREATE, MESSAGE_*…) goes only to the sessions of shard shardOf(guildId, count) =
 *   (guild_id >> 22) % count; DMs and other non-guild events to shard 0; a session without `shard` gets everything.
 *   RESUME keeps the shard. Clients of any number of processes may connect, each with its own shards; two sessions
 *   on one shard both get its events (as on Discord).
 *   Observe: shards() → ShardView per [id, count] ({ state: connected | resumable | closed, connections,
 *   connectionIds, identifies, resumes, dispatches, guilds, … }); gatewayDispatches (each dispatch: t, guildId,
 *   objectId, and `to`: the sessions and shards it went to, empty when no session held the shard); an
 *   InteractionHandle's deliveredTo; guildIdsOnShard(id, count); shardOf (exported); gateway events carry `shard`.
 * Gateway: closeGateway(code = 4000, reason?, { shard }?) (4009 forces a new session), dropGateway({ shard }?)
 *   (1006), holdGateway() / releaseGateway() (new connections wait unanswered until released: the gateway stays
 *   down), requestReconnect() (op 7), invalidateSession(resumable), requestHeartbeat(), gatewayEvents, connected,
 *   waitForIdentify / waitForReady / waitForResume / waitForGateway(kind, n). RESUME replays missed dispatches. Wait for the Client's own
 *   ShardReady/ShardResume before destroying it: discord.js reconnects if destroyed while it awaits READY.
 * Discord's rules it keeps: 401 without `Bot <token>`; global limit per token in fixed one-second windows, counted
 *   over every REST client and process that uses the token, interaction routes exempt; per-route buckets with
 *   X-RateLimit-* headers; 429s as Discord sends them (message, retry_after, global, code; Retry-After,
 *   X-RateLimit-Scope); 3 s deadline (404 10062) and single acknowledgement (400 40060); follow-ups answer 200 with
 *   the message (`wait` is always true for them); nonce + enforce_nonce dedupe; 50035 validation (content, embeds,
 *   allowed_mentions with no repeated id, components: buttons and every select menu, message_reference, commands);
 *   command counts per scope (100 chat input, 15 user, 15 message: 30032); 50006 empty message;
 *   10003/10004/10008/10062/10063 unknowns. Threads from a message (POST /channels/:id/messages/:mid/threads: Create
 *   Public Threads, text or announcement channels, one per message (160004), the thread takes the message's id, and
 *   the message carries `thread` and HAS_THREAD from then on) and crossposts (POST …/crosspost: announcement channels
 *   only (50024), once (40033), the bot's own messages with Send Messages, 10 per channel per hour). Forum (15) and
 *   media (16) channels (addChannel({ type, availableTags, requireTag })): a post is POST /channels/:id/threads with
 *   its starter message (Send Messages; 40067 without a tag where one is required; no attachment needed in either);
 *   GET /guilds/:id/threads/active. Pins (PUT/DELETE /channels/:id/messages/pins/:mid): Pin Messages, at most 50 a
 *   channel (400 30003).
 */
import type { DiscordServerOptions } from './public-types.ts';
import { DiscordServer } from './server.ts';

export { DiscordServer } from './server.ts';
export type {
  AutocompleteSpec,
  DiscordServerOptions,
  FaultHandle,
  FaultSpec,
  RawAnswer,
  GuildInfo,
  InteractionHandle,
  InvokeCommandSpec,
  InvokeUser,
  PressButtonSpec,
  SubmitModalSpec,
  RecordedCallback,
  RecordedRequest,
  SecondStats,
  ShardView,
} from './public-types.ts';
export type { MessageView } from './messages.ts';
export type { GatewayDispatch, GatewayEvent, IdentifyRefusalCode, ShardState } from './gateway.ts';
export { shardOf } from './snowflake.ts';
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
