import { registeredCommands } from './command-routes.ts';
import type { RegisteredCommand } from './commands.ts';
import { Faults } from './faults.ts';
import type { Gateway, GatewayDispatch, GatewayEvent, IdentifyRefusalCode } from './gateway.ts';
import { httpListener, type HttpListener } from './http-listener.ts';
import { addChannelWebhook } from './channel-webhook-routes.ts';
import { autocomplete, interactionHandles, invokeCommand, pressButton, startAutocomplete, submitModal } from './interactions.ts';
import type { MessageView } from './messages.ts';
import type { ChannelSpec, Guild, GuildSpec, MemberSpec, OverwriteSpec, User } from './model.ts';
import type {
  AutocompleteSpec,
  DiscordServerOptions,
  FaultHandle,
  FaultSpec,
  GuildInfo,
  InteractionHandle,
  InvokeCommandSpec,
  InvokeUser,
  PressButtonSpec,
  SubmitModalSpec,
  RecordedCallback,
  RecordedRequest,
  ShardView,
} from './public-types.ts';
import { BucketLimiter, GlobalLimiter } from './ratelimit.ts';
import { allMessages, callbacks, messagesIn, Recorder, threadsIn, type StatsSummary } from './recording.ts';
import { RouteTable } from './route-table.ts';
import { defineRoutes } from './routes.ts';
import type { Changes } from './wait.ts';
import * as build from './world-building.ts';
import { World } from './world.ts';

/**
 * The local Discord: one HTTP server for REST (under /api/v10) and the gateway (WebSocket upgrade), over one World.
 * This class is the harness's face (index.ts documents the whole surface); the parts live beside it:
 *   world.ts (the state and its lookups), world-building.ts (what tests add and change), public-types.ts;
 *   http-listener.ts (the HTTP server, the front door), http-core.ts (each request: parse, route, auth, global limit,
 *   fault, bucket, handler, record),
 *   route-table.ts (the routes: method, template, auth, bucket), ratelimit.ts, faults.ts, recording.ts, api-error.ts;
 *   routes.ts (all of them), by resource: identity-routes.ts, command-routes.ts, channel-routes.ts, message-routes.ts,
 *   webhook-routes.ts (interaction callbacks and the interaction webhook);
 *   spec-check.ts (every request, answer and dispatch against discord-api-spec: spec-routes.ts, spec-gateway.ts,
 *   spec-schemas.ts, the allow-list spec-deviations.ts);
 *   interactions.ts, interaction-places.ts, interaction-dispatch.ts, interaction-state.ts (invoking as Discord's client);
 *   gateway.ts (sessions, shards, dispatches).
 */
export class DiscordServer {
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: User;
  /** The member used for interactions when no `user` is given; added to every guild with no extra roles. */
  readonly defaultUser: User;
  /** Every REST request, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Bugs inside the harness itself (answered 500); tests may assert this stays empty. */
  readonly internalErrors: Error[] = [];
  apiUrl = '';
  gatewayUrl = '';

  private readonly world: World;
  private readonly changes: Changes;
  private readonly gateway: Gateway;
  private readonly http: HttpListener;
  private readonly routes = new RouteTable();
  private readonly faults = new Faults();
  private readonly recorder = new Recorder();
  private closed = false;

  constructor(options: DiscordServerOptions = {}) {
    this.world = new World(options);
    this.token = this.world.token;
    this.applicationId = this.world.applicationId;
    this.botUser = this.world.botUser;
    this.defaultUser = this.world.defaultUser;
    this.changes = this.world.changes;
    this.gateway = this.world.gateway;
    this.requests = this.recorder.requests;
    this.recorder.applicationId = this.applicationId;
    defineRoutes(this.routes, this.world);
    const deps = {
      world: this.world,
      routes: this.routes,
      faults: this.faults,
      recorder: this.recorder,
      globalLimiter: new GlobalLimiter(this.world.options.globalLimitPerSecond),
      buckets: new BucketLimiter(),
      internalErrors: this.internalErrors,
    };
    this.http = httpListener(deps, this.gateway);
  }

  /**
   * Called when POST /channels/:id/messages has created a message, before the answer is sent: a harness that kills
   * the bot here leaves a post Discord made and the bot never heard of.
   */
  get onMessageCreated(): ((message: MessageView) => void) | null {
    return this.world.onMessageCreated;
  }

  set onMessageCreated(hook: ((message: MessageView) => void) | null) {
    this.world.onMessageCreated = hook;
  }

  /**
   * Test-only: rewrites what routes answer ("POST /channels/:channel_id/messages", status, body) before it is sent,
   * so a test can prove the spec check catches an answer Discord would never give. Null to stop.
   */
  get rewriteResponse(): ((route: string, status: number, body: unknown) => unknown) | null {
    return this.world.rewriteResponse;
  }

  set rewriteResponse(hook: ((route: string, status: number, body: unknown) => unknown) | null) {
    this.world.rewriteResponse = hook;
  }

  async listen(): Promise<void> {
    ({ apiUrl: this.apiUrl, gatewayUrl: this.gatewayUrl } = await this.http.listen());
    this.gateway.url = this.gatewayUrl;
  }

  /** The front door's process id while it runs (frontDoorSpares), else undefined. */
  get frontDoorPid(): number | undefined {
    return this.http.frontDoorPid;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.http.close();
  }

  // ------------------------------------------------------------------------------------------- world (world-building.ts)

  addGuild(spec: GuildSpec = {}): GuildInfo {
    return build.addGuild(this.world, spec);
  }

  addGuilds(count: number, spec: GuildSpec | ((index: number) => GuildSpec) = {}): GuildInfo[] {
    return build.addGuilds(this.world, count, spec);
  }

  guildInfo(guildOrId: Guild | string): GuildInfo {
    return build.guildInfo(this.world, guildOrId);
  }

  addChannel(guildId: string, spec: ChannelSpec = {}): { id: string; name: string; type: number } {
    return build.addChannel(this.world, guildId, spec);
  }

  updateChannel(channelId: string, patch: { name?: string; topic?: string; permissionOverwrites?: OverwriteSpec[] }): void {
    build.updateChannel(this.world, channelId, patch);
  }

  deleteChannel(channelId: string): void {
    build.deleteChannel(this.world, channelId);
  }

  removeGuild(guildId: string): void {
    build.removeGuild(this.world, guildId);
  }

  addMember(guildId: string, spec: MemberSpec): { id: string; username: string } {
    return build.addMember(this.world, guildId, spec);
  }

  setMemberRoles(guildId: string, userId: string, roles: string[]): void {
    build.setMemberRoles(this.world, guildId, userId, roles);
  }

  /** A webhook of the bot's in the channel, as if it had created it on an earlier day (channel-webhook-routes.ts). */
  addChannelWebhook(channelId: string, name: string): void {
    addChannelWebhook(this.world, channelId, name);
  }

  updateRole(guildId: string, role: string, patch: { name?: string; permissions?: bigint | string; mentionable?: boolean }): void {
    build.updateRole(this.world, guildId, role, patch);
  }

  setGuildAvailable(guildId: string, available: boolean): void {
    build.setGuildAvailable(this.world, guildId, available);
  }

  installApp(userId: string): void {
    build.installApp(this.world, userId);
  }

  uninstallApp(userId: string): void {
    build.uninstallApp(this.world, userId);
  }

  setDmsOpen(userId: string, open: boolean): void {
    build.setDmsOpen(this.world, userId, open);
  }

  addPrivateChannel(recipients: (string | InvokeUser)[], options: { group?: boolean } = {}): string {
    return build.addPrivateChannel(this.world, recipients, options);
  }

  botPermissions(channelId: string): bigint {
    return this.world.botPermissions(channelId);
  }

  dmChannelOf(userId: string): string {
    return this.world.dmChannelOf(userId);
  }

  // ------------------------------------------------------------------------------------------- interactions (interactions.ts)

  invokeCommand(spec: InvokeCommandSpec): InteractionHandle {
    return invokeCommand(this.world, spec);
  }

  autocomplete(spec: AutocompleteSpec): Promise<{ name: string; value: string | number }[]> {
    return autocomplete(this.world, spec);
  }

  startAutocomplete(spec: AutocompleteSpec): InteractionHandle {
    return startAutocomplete(this.world, spec);
  }

  pressButton(spec: PressButtonSpec): InteractionHandle {
    return pressButton(this.world, spec);
  }

  submitModal(spec: SubmitModalSpec): InteractionHandle {
    return submitModal(this.world, spec);
  }

  interactionHandles(): InteractionHandle[] {
    return interactionHandles(this.world);
  }

  commands(guildId?: string): RegisteredCommand[] {
    return registeredCommands(this.world, guildId);
  }

  // ------------------------------------------------------------------------------------------- faults (faults.ts)

  injectFault(spec: FaultSpec): FaultHandle {
    return this.faults.inject(spec);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  // ------------------------------------------------------------------------------------------- recording (recording.ts)

  messagesIn(channelId: string): MessageView[] {
    return messagesIn(this.world, channelId);
  }

  /** Waits until a channel shows at least `count` messages; resolves with them. */
  waitForMessages(channelId: string, count = 1, timeoutMs = 5000): Promise<MessageView[]> {
    return this.changes.until(
      () => {
        const list = this.messagesIn(channelId);
        return list.length >= count ? list : undefined;
      },
      `${count} message(s) in channel ${channelId}`,
      timeoutMs,
    );
  }

  allMessages(): MessageView[] {
    return allMessages(this.world);
  }

  threadsIn(channelId: string): { id: string; name: string; type: number; parentId: string; autoArchiveDuration: number }[] {
    return threadsIn(this.world, channelId);
  }

  posts(channelId?: string): RecordedRequest[] {
    return this.recorder.posts(channelId);
  }

  callbacks(): RecordedCallback[] {
    return callbacks(this.world);
  }

  stats(): StatsSummary {
    return this.recorder.stats();
  }

  /** Resolves when `probe` returns something other than undefined, re-checked on every harness change. */
  waitFor<T>(probe: () => T | undefined, description: string, timeoutMs = 5000): Promise<T> {
    return this.changes.until(probe, description, timeoutMs);
  }

  // ------------------------------------------------------------------------------------------- gateway control

  /** Gateway happenings (connections, IDENTIFY, READY, RESUME, closes…), in order. */
  get gatewayEvents(): GatewayEvent[] {
    return this.gateway.events;
  }

  /** Closes every gateway connection, or those of one shard id, with a close code (4000 resumable, 4009 forces a new session). */
  closeGateway(code = 4000, reason = 'closed by the test harness', only: { shard?: number } = {}): void {
    this.gateway.closeAll(code, reason, only.shard);
  }

  /**
   * From now on, closes every IDENTIFY with a code after which Discord never lets that login in (4014 Disallowed
   * intents for privileged intents the app was not granted, say); `null` accepts them again.
   */
  refuseIdentify(code: IdentifyRefusalCode | null, reason = 'refused by the test harness'): void {
    this.gateway.refuseIdentify(code === null ? null : { code, reason });
  }

  /** Drops every gateway connection, or those of one shard id, without a close frame (the client sees 1006). */
  dropGateway(only: { shard?: number } = {}): void {
    this.gateway.dropAll(only.shard);
  }

  /** Leaves new gateway connections waiting, unanswered, until releaseGateway(): the gateway stays down. */
  holdGateway(): void {
    this.gateway.hold();
  }

  /** Lets the held gateway connections (and new ones) through. */
  releaseGateway(): void {
    this.gateway.release();
  }

  /** Sends op 7 Reconnect. */
  requestReconnect(): void {
    this.gateway.requestReconnect();
  }

  /** Asks connected clients for an immediate heartbeat (op 1). */
  requestHeartbeat(): void {
    this.gateway.requestHeartbeat();
  }

  /** Sends op 9 Invalid Session. */
  invalidateSession(resumable = false): void {
    this.gateway.invalidateSessions(resumable);
  }

  /** Resolves once `count` gateway events of `kind` have happened in total. */
  waitForGateway(kind: GatewayEvent['kind'], count = 1, timeoutMs = 10_000): Promise<GatewayEvent> {
    return this.changes.until(
      () => this.gateway.events.filter((e) => e.kind === kind)[count - 1],
      `gateway event "${kind}" #${count}`,
      timeoutMs,
    );
  }

  waitForIdentify(count = 1, timeoutMs?: number): Promise<GatewayEvent> {
    return this.waitForGateway('identify', count, timeoutMs);
  }

  waitForReady(count = 1, timeoutMs?: number): Promise<GatewayEvent> {
    return this.waitForGateway('ready', count, timeoutMs);
  }

  waitForResume(count = 1, timeoutMs?: number): Promise<GatewayEvent> {
    return this.waitForGateway('resumed', count, timeoutMs);
  }

  /** True when some session is identified and connected. */
  get connected(): boolean {
    return this.gateway.connectedSessions.length > 0;
  }

  /** What GET /gateway/bot recommends now: the `shards` option, or one shard per 1,000 guilds (at least 1). */
  get shardCount(): number {
    return this.world.shardCount;
  }

  /** Every shard a client identified with ([0, 1] for unsharded sessions), with its state and the guilds it owns now. */
  shards(): ShardView[] {
    return this.gateway.shardStates().map((state) => ({ ...state, guilds: this.world.guildsOnShard(state.shard).length }));
  }

  /** Every dispatch so far (READY and GUILD_CREATEs included) and the sessions and shards it went to, oldest first. */
  get gatewayDispatches(): GatewayDispatch[] {
    return this.gateway.dispatches;
  }

  /** Guild ids on shard `shardId` of `shardCount`. */
  guildIdsOnShard(shardId: number, shardCount: number): string[] {
    return this.world.guildsOnShard([shardId, shardCount]).map((g) => g.id);
  }
}
