import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import type { Changes } from './wait.ts';

/**
 * The gateway: API v10, JSON encoding, no transport compression (frames are always text; @discordjs/ws reads text
 * frames even when it asked for zlib-stream). Sessions are kept per shard so RESUME can replay what was missed.
 */

export const GatewayOp = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
  RequestSoundboardSounds: 31,
} as const;

export const GatewayClose = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidSeq: 4007,
  RateLimited: 4008,
  SessionTimedOut: 4009,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

/** The close codes with which Discord refuses an IDENTIFY for good, which a test can make the gateway answer. */
export type IdentifyRefusalCode = 4004 | 4010 | 4011 | 4012 | 4013 | 4014;

/** Close codes after which Discord will not let the session resume. */
const NON_RESUMABLE = new Set<number>([4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014]);

export interface DispatchRecord {
  s: number;
  t: string;
  d: unknown;
  at: number;
}

export interface GatewaySession {
  id: string;
  /** [0, 1] when the IDENTIFY carried no `shard`: such a session receives every guild's events. */
  shard: [number, number];
  /** Whether the IDENTIFY carried `shard` (READY then carries it back). */
  sharded: boolean;
  intents: number;
  seq: number;
  /** The most recent dispatches (up to REPLAY_LIMIT), kept for RESUME replay. */
  dispatches: DispatchRecord[];
  resumable: boolean;
  connection: Connection | null;
  /** When the session lost its connection; it expires after `sessionTimeoutMs`. */
  disconnectedAt: number | null;
}

/** How many dispatches a session keeps for replay; a RESUME from further back is refused (op 9). */
const REPLAY_LIMIT = 2000;

/** What the gateway saw from clients and did to them, in order. */
export interface GatewayEvent {
  at: number;
  kind: 'open' | 'hello' | 'identify' | 'ready' | 'resume' | 'resumed' | 'invalid-session' | 'heartbeat' | 'close' | 'op';
  connectionId: number;
  sessionId?: string;
  /** The shard of the session involved, once there is one ([0, 1] for an unsharded session). */
  shard?: [number, number];
  code?: number;
  op?: number;
  detail?: unknown;
}

/** One dispatch the gateway produced, and the sessions it was queued for. */
export interface GatewayDispatch {
  at: number;
  t: string;
  /** The guild it belongs to; null for DMs and session events (READY, RESUMED). */
  guildId: string | null;
  /** The id of the object it carries (interaction, channel, message, guild…), when it has one. */
  objectId: string | null;
  /**
   * Each session it went to, with its sequence number there; `live` is false when that session was between
   * connections (it gets the dispatch on RESUME). Empty when no session held the shard owning the guild: as on
   * Discord, nobody gets it then.
   */
  to: { sessionId: string; shard: [number, number]; s: number; live: boolean }[];
}

/** A shard as the gateway sees it: every [id, count] any client identified with. */
export interface ShardState {
  shard: [number, number];
  /** connected: some session of it has a live connection; resumable: a session lost its connection and may still resume. */
  state: 'connected' | 'resumable' | 'closed';
  /** Live connections identified (or resumed) on it; more than one means two clients run the same shard. */
  connections: number;
  /** The connection ids of those. */
  connectionIds: number[];
  /** The newest session's id. */
  sessionId: string;
  identifies: number;
  resumes: number;
  /** Dispatches queued for its sessions, READY and its GUILD_CREATEs included. */
  dispatches: number;
  lastIdentifyAt: number;
  lastDispatchAt: number | null;
}

interface ShardTally {
  shard: [number, number];
  sessions: GatewaySession[];
  identifies: number;
  resumes: number;
  dispatches: number;
  lastIdentifyAt: number;
  lastDispatchAt: number | null;
}

interface Connection {
  id: number;
  socket: WebSocket;
  session: GatewaySession | null;
  heartbeatTimer: NodeJS.Timeout | null;
  lastHeartbeatSeq: number | null;
  /** Discord allows 120 gateway sends per 60 s per connection. */
  sendWindow: { startedAt: number; count: number };
}

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** The READY `d` for a new session (without session-specific fields). */
  readyPayload: (session: GatewaySession) => Record<string, unknown>;
  /** GUILD_CREATE payloads for the guilds on a shard, sent after READY. */
  guildCreates: (shard: [number, number]) => Record<string, unknown>[];
  /** How many guilds the bot is in, for 4011 Sharding Required. */
  guildCount: () => number;
  /** Discord closes an IDENTIFY with 4011 when its shards would each average more guilds than this (2500). */
  maxGuildsPerShard: number;
  changes: Changes;
  /** How long a disconnected session stays resumable. */
  sessionTimeoutMs: number;
  /** Sees every dispatch once, as it is made (the spec check). */
  checkDispatch?: (t: string, d: unknown) => void;
}

const GUILDS_INTENT = 1 << 0;
/** Discord's session start limit resets a day after the first session of the window started. */
const SESSION_START_WINDOW_MS = 86_400_000;

export class Gateway {
  readonly events: GatewayEvent[] = [];
  readonly sessions = new Map<string, GatewaySession>();
  readonly dispatches: GatewayDispatch[] = [];
  /** Sessions started (IDENTIFYs that got READY) in the current session-start window, for session_start_limit. */
  private started = { count: 0, windowStart: null as number | null };
  private readonly shards = new Map<string, ShardTally>();
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 1;
  /** While held, new connections wait here unanswered: completed on release, destroyed on close. */
  private held: Array<{ request: IncomingMessage; socket: import('node:stream').Duplex; head: Buffer }> | null = null;
  /** Set by refuseIdentify(): every IDENTIFY with the right token is closed with this code until it is cleared. */
  private identifyRefusal: { code: IdentifyRefusalCode; reason: string } | null = null;
  url = '';

  constructor(private readonly options: GatewayOptions) {
    this.wss = new WebSocketServer({ noServer: true });
  }

  handleUpgrade(request: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void {
    if (this.held) {
      this.held.push({ request, socket, head });
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request));
  }

  /** New connections wait (the client sees a handshake that does not finish) until release(). */
  hold(): void {
    this.held ??= [];
  }

  /** Closes every later IDENTIFY with `code`, as Discord does for an app whose settings refuse it; null accepts again. */
  refuseIdentify(refusal: { code: IdentifyRefusalCode; reason: string } | null): void {
    this.identifyRefusal = refusal;
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const { request, socket, head } of held) if (!socket.destroyed) this.handleUpgrade(request, socket, head);
  }

  /**
   * Sends a dispatch to every session on the shard that owns `guildId` (shard 0 for DMs and other non-guild
   * events); sessions between connections queue it for RESUME. Returns the record of where it went.
   */
  dispatch(t: string, d: unknown, guildId?: string, requiredIntent?: number): GatewayDispatch {
    const now = Date.now();
    const record = this.recordDispatch(t, d, guildId ?? null, now);
    const guild = guildId === undefined ? undefined : BigInt(guildId) >> 22n;
    for (const [id, session] of this.sessions) {
      if (session.disconnectedAt !== null && now - session.disconnectedAt > this.options.sessionTimeoutMs) session.resumable = false;
      if (!session.resumable) {
        if (!session.connection) this.sessions.delete(id);
        continue;
      }
      if (requiredIntent !== undefined && (session.intents & requiredIntent) === 0) continue;
      const [shardId, shardCount] = session.shard;
      const target = guild === undefined ? 0 : Number(guild % BigInt(shardCount));
      if (target !== shardId) continue;
      this.pushDispatch(session, t, d, record);
    }
    return record;
  }

  /** Sessions started in the current window and ms until the window resets, as Discord's session_start_limit counts them. */
  sessionStarts(now = Date.now()): { used: number; resetAfter: number } {
    const { count, windowStart } = this.started;
    if (windowStart === null || now - windowStart >= SESSION_START_WINDOW_MS) return { used: 0, resetAfter: SESSION_START_WINDOW_MS };
    return { used: count, resetAfter: SESSION_START_WINDOW_MS - (now - windowStart) };
  }

  /** Every shard any client identified with, by count, then id. */
  shardStates(): ShardState[] {
    const now = Date.now();
    const alive = (s: GatewaySession): boolean =>
      s.resumable && (s.disconnectedAt === null || now - s.disconnectedAt <= this.options.sessionTimeoutMs);
    return [...this.shards.values()]
      .sort((a, b) => a.shard[1] - b.shard[1] || a.shard[0] - b.shard[0])
      .map((tally) => {
        const live = tally.sessions.filter((s) => s.connection !== null);
        const state = live.length > 0 ? 'connected' : tally.sessions.some(alive) ? 'resumable' : 'closed';
        return {
          shard: [...tally.shard],
          state,
          connections: live.length,
          connectionIds: live.map((s) => s.connection?.id ?? 0),
          sessionId: tally.sessions[tally.sessions.length - 1]?.id ?? '',
          identifies: tally.identifies,
          resumes: tally.resumes,
          dispatches: tally.dispatches,
          lastIdentifyAt: tally.lastIdentifyAt,
          lastDispatchAt: tally.lastDispatchAt,
        };
      });
  }

  /** Live (identified, connected) sessions. */
  get connectedSessions(): GatewaySession[] {
    return [...this.sessions.values()].filter((s) => s.connection !== null);
  }

  /**
   * Closes every connection (or only those identified on shard `shardId`) with `code`; 4000-style codes leave the
   * session resumable, 4009 and friends do not.
   */
  closeAll(code: number, reason = '', shardId?: number): void {
    for (const connection of this.selected(shardId)) {
      if (connection.session && NON_RESUMABLE.has(code)) connection.session.resumable = false;
      connection.socket.close(code, reason);
    }
  }

  /** Drops every connection (or those on shard `shardId`) without a close frame: the client sees 1006. */
  dropAll(shardId?: number): void {
    for (const connection of this.selected(shardId)) connection.socket.terminate();
  }

  private selected(shardId: number | undefined): Connection[] {
    return [...this.connections].filter((c) => shardId === undefined || c.session?.shard[0] === shardId);
  }

  /** Asks connected clients to reconnect and resume (op 7). */
  requestReconnect(): void {
    for (const connection of this.connections) this.send(connection, { op: GatewayOp.Reconnect, d: null });
  }

  requestHeartbeat(): void {
    for (const connection of this.connections) this.send(connection, { op: GatewayOp.Heartbeat, d: null });
  }

  /** Invalidates every session (op 9); `resumable` tells the client whether RESUME may follow. */
  invalidateSessions(resumable: boolean): void {
    for (const connection of this.connections) {
      if (!connection.session) continue;
      if (!resumable) connection.session.resumable = false;
      this.send(connection, { op: GatewayOp.InvalidSession, d: resumable });
      this.record({ kind: 'invalid-session', connectionId: connection.id, sessionId: connection.session.id, detail: resumable });
    }
  }

  async close(): Promise<void> {
    for (const { socket } of this.held ?? []) socket.destroy();
    this.held = null;
    for (const connection of this.connections) {
      if (connection.heartbeatTimer) clearTimeout(connection.heartbeatTimer);
      connection.socket.terminate();
    }
    this.connections.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(socket: WebSocket, request: IncomingMessage): void {
    const connection: Connection = {
      id: this.nextConnectionId++,
      socket,
      session: null,
      heartbeatTimer: null,
      lastHeartbeatSeq: null,
      sendWindow: { startedAt: Date.now(), count: 0 },
    };
    this.connections.add(connection);
    this.record({ kind: 'open', connectionId: connection.id, detail: request.url });
    socket.on('close', (code) => this.onClose(connection, code));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => this.onMessage(connection, data, isBinary));

    const query = new URL(request.url ?? '/', 'http://gateway').searchParams;
    const version = query.get('v');
    if (version !== null && version !== '10') {
      socket.close(GatewayClose.InvalidApiVersion, 'Invalid API version');
      return;
    }
    const encoding = query.get('encoding');
    if (encoding !== null && encoding !== 'json') {
      socket.close(GatewayClose.DecodeError, 'Only JSON encoding is supported');
      return;
    }
    this.send(connection, { op: GatewayOp.Hello, d: { heartbeat_interval: this.options.heartbeatIntervalMs, _trace: ['wotd-fake-gateway'] } });
    this.record({ kind: 'hello', connectionId: connection.id });
    this.armHeartbeatTimeout(connection);
  }

  /** Discord drops a connection that misses heartbeats; allow 1.5 intervals plus slack. */
  private armHeartbeatTimeout(connection: Connection): void {
    if (connection.heartbeatTimer) clearTimeout(connection.heartbeatTimer);
    connection.heartbeatTimer = setTimeout(() => {
      connection.socket.close(GatewayClose.SessionTimedOut, 'Heartbeat timed out');
    }, this.options.heartbeatIntervalMs * 1.5 + 1000);
    connection.heartbeatTimer.unref();
  }

  private onClose(connection: Connection, code: number): void {
    if (connection.heartbeatTimer) clearTimeout(connection.heartbeatTimer);
    this.connections.delete(connection);
    const session = connection.session;
    if (session && session.connection === connection) {
      session.connection = null;
      session.disconnectedAt = Date.now();
      // A client that closes with 1000 or 1001 ends its session; Discord will not let it resume.
      if (code === 1000 || code === 1001) session.resumable = false;
    }
    this.record({ kind: 'close', connectionId: connection.id, code, sessionId: connection.session?.id, ...(connection.session ? { shard: connection.session.shard } : {}) });
  }

  private onMessage(connection: Connection, data: import('ws').RawData, isBinary: boolean): void {
    if (isBinary) {
      connection.socket.close(GatewayClose.DecodeError, 'Binary frames are not supported');
      return;
    }
    const now = Date.now();
    if (now - connection.sendWindow.startedAt >= 60_000) connection.sendWindow = { startedAt: now, count: 0 };
    connection.sendWindow.count += 1;
    if (connection.sendWindow.count > 120) {
      connection.socket.close(GatewayClose.RateLimited, 'You are being rate limited.');
      return;
    }
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(String(data)) as { op?: unknown; d?: unknown };
    } catch {
      connection.socket.close(GatewayClose.DecodeError, 'Error while decoding payload');
      return;
    }
    const op = payload.op;
    const d = payload.d;
    switch (op) {
      case GatewayOp.Heartbeat:
        connection.lastHeartbeatSeq = typeof d === 'number' ? d : null;
        this.armHeartbeatTimeout(connection);
        this.send(connection, { op: GatewayOp.HeartbeatAck });
        this.record({ kind: 'heartbeat', connectionId: connection.id, detail: d });
        return;
      case GatewayOp.Identify:
        this.identify(connection, d);
        return;
      case GatewayOp.Resume:
        this.resume(connection, d);
        return;
      case GatewayOp.PresenceUpdate:
      case GatewayOp.VoiceStateUpdate:
      case GatewayOp.RequestGuildMembers:
      case GatewayOp.RequestSoundboardSounds:
        if (!connection.session) {
          connection.socket.close(GatewayClose.NotAuthenticated, 'Not authenticated');
          return;
        }
        this.record({ kind: 'op', connectionId: connection.id, op, detail: d });
        return;
      default:
        connection.socket.close(GatewayClose.UnknownOpcode, 'Unknown opcode');
    }
  }

  private identify(connection: Connection, d: unknown): void {
    if (connection.session) {
      connection.socket.close(GatewayClose.AlreadyAuthenticated, 'Already authenticated');
      return;
    }
    const data = (typeof d === 'object' && d !== null ? d : {}) as { token?: unknown; intents?: unknown; shard?: unknown };
    this.record({ kind: 'identify', connectionId: connection.id, detail: { intents: data.intents, shard: data.shard } });
    if (data.token !== this.options.token) {
      connection.socket.close(GatewayClose.AuthenticationFailed, 'Authentication failed');
      return;
    }
    if (this.identifyRefusal) {
      connection.socket.close(this.identifyRefusal.code, this.identifyRefusal.reason);
      return;
    }
    if (typeof data.intents !== 'number' || !Number.isInteger(data.intents) || data.intents < 0) {
      connection.socket.close(GatewayClose.InvalidIntents, 'Invalid intent(s)');
      return;
    }
    let shard: [number, number] = [0, 1];
    if (data.shard !== undefined) {
      const s: unknown = data.shard;
      if (!Array.isArray(s) || s.length !== 2 || !Number.isInteger(s[0]) || !Number.isInteger(s[1])) {
        connection.socket.close(GatewayClose.InvalidShard, 'Invalid shard');
        return;
      }
      const [id, count] = s as [number, number];
      if (id < 0 || count < 1 || id >= count) {
        connection.socket.close(GatewayClose.InvalidShard, 'Invalid shard');
        return;
      }
      shard = [id, count];
    }
    if (this.options.guildCount() > this.options.maxGuildsPerShard * shard[1]) {
      connection.socket.close(GatewayClose.ShardingRequired, 'Sharding required');
      return;
    }
    const now = Date.now();
    if (this.started.windowStart === null || now - this.started.windowStart >= SESSION_START_WINDOW_MS) this.started = { count: 0, windowStart: now };
    this.started.count += 1;
    // Like Discord, a second IDENTIFY for the same shard opens a second session: both receive events.
    const session: GatewaySession = {
      id: randomBytes(16).toString('hex'),
      shard,
      sharded: data.shard !== undefined,
      intents: data.intents,
      seq: 0,
      dispatches: [],
      resumable: true,
      connection,
      disconnectedAt: null,
    };
    this.sessions.set(session.id, session);
    connection.session = session;
    const tally = this.tallyFor(shard);
    tally.sessions = tally.sessions.filter((s) => this.sessions.has(s.id));
    tally.sessions.push(session);
    tally.identifies += 1;
    tally.lastIdentifyAt = now;
    this.sendTo(session, 'READY', {
      v: 10,
      ...this.options.readyPayload(session),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.url,
      ...(session.sharded ? { shard } : {}),
    });
    this.record({ kind: 'ready', connectionId: connection.id, sessionId: session.id, shard });
    if ((session.intents & GUILDS_INTENT) !== 0) {
      for (const guild of this.options.guildCreates(shard)) this.sendTo(session, 'GUILD_CREATE', guild, String(guild.id));
    }
  }

  private resume(connection: Connection, d: unknown): void {
    if (connection.session) {
      connection.socket.close(GatewayClose.AlreadyAuthenticated, 'Already authenticated');
      return;
    }
    const data = (typeof d === 'object' && d !== null ? d : {}) as { token?: unknown; session_id?: unknown; seq?: unknown };
    const known = typeof data.session_id === 'string' ? this.sessions.get(data.session_id) : undefined;
    this.record({ kind: 'resume', connectionId: connection.id, sessionId: String(data.session_id), ...(known ? { shard: known.shard } : {}), detail: { seq: data.seq } });
    if (data.token !== this.options.token) {
      connection.socket.close(GatewayClose.AuthenticationFailed, 'Authentication failed');
      return;
    }
    const session = known;
    if (session && session.disconnectedAt !== null && Date.now() - session.disconnectedAt > this.options.sessionTimeoutMs) session.resumable = false;
    if (!session || !session.resumable) {
      this.send(connection, { op: GatewayOp.InvalidSession, d: false });
      this.record({ kind: 'invalid-session', connectionId: connection.id, detail: false });
      return;
    }
    const seq = typeof data.seq === 'number' ? data.seq : 0;
    if (seq > session.seq) {
      connection.socket.close(GatewayClose.InvalidSeq, 'Invalid seq');
      return;
    }
    const oldest = session.dispatches[0]?.s ?? session.seq + 1;
    if (seq < oldest - 1) {
      // Too far behind to replay: the client has to start over.
      session.resumable = false;
      this.send(connection, { op: GatewayOp.InvalidSession, d: false });
      this.record({ kind: 'invalid-session', connectionId: connection.id, sessionId: session.id, detail: false });
      return;
    }
    if (session.connection && session.connection !== connection) session.connection.socket.close(GatewayClose.UnknownError, 'Session resumed elsewhere');
    session.connection = connection;
    session.disconnectedAt = null;
    this.tallyFor(session.shard).resumes += 1;
    connection.session = session;
    for (const missed of session.dispatches) {
      if (missed.s > seq) this.send(connection, { op: GatewayOp.Dispatch, t: missed.t, s: missed.s, d: missed.d });
    }
    this.sendTo(session, 'RESUMED', { _trace: ['wotd-fake-gateway'] });
    this.record({ kind: 'resumed', connectionId: connection.id, sessionId: session.id, shard: session.shard, detail: { replayedFrom: seq } });
  }

  private tallyFor(shard: [number, number]): ShardTally {
    const key = `${shard[0]}/${shard[1]}`;
    let tally = this.shards.get(key);
    if (!tally) {
      tally = { shard, sessions: [], identifies: 0, resumes: 0, dispatches: 0, lastIdentifyAt: 0, lastDispatchAt: null };
      this.shards.set(key, tally);
    }
    return tally;
  }

  private recordDispatch(t: string, d: unknown, guildId: string | null, at: number): GatewayDispatch {
    this.options.checkDispatch?.(t, d);
    const id = typeof d === 'object' && d !== null && 'id' in d && typeof d.id === 'string' ? d.id : null;
    const record: GatewayDispatch = { at, t, guildId, objectId: id, to: [] };
    this.dispatches.push(record);
    return record;
  }

  /** A dispatch for one session only (READY, its GUILD_CREATEs, RESUMED). */
  private sendTo(session: GatewaySession, t: string, d: unknown, guildId?: string): void {
    this.pushDispatch(session, t, d, this.recordDispatch(t, d, guildId ?? null, Date.now()));
  }

  private pushDispatch(session: GatewaySession, t: string, d: unknown, log: GatewayDispatch): void {
    session.seq += 1;
    const record: DispatchRecord = { s: session.seq, t, d, at: log.at };
    session.dispatches.push(record);
    if (session.dispatches.length > REPLAY_LIMIT) session.dispatches.splice(0, session.dispatches.length - REPLAY_LIMIT);
    const live = session.connection !== null;
    log.to.push({ sessionId: session.id, shard: session.shard, s: record.s, live });
    const tally = this.tallyFor(session.shard);
    tally.dispatches += 1;
    tally.lastDispatchAt = log.at;
    if (session.connection) this.send(session.connection, { op: GatewayOp.Dispatch, t, s: record.s, d });
    this.options.changes.notify();
  }

  private send(connection: Connection, payload: Record<string, unknown>): void {
    if (connection.socket.readyState === WebSocket.OPEN) connection.socket.send(JSON.stringify(payload));
  }

  private record(event: Omit<GatewayEvent, 'at'>): void {
    this.events.push({ at: Date.now(), ...event });
    this.options.changes.notify();
  }
}
