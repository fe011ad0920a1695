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
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
} as const;

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
  shard: [number, number];
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
  code?: number;
  op?: number;
  detail?: unknown;
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
  changes: Changes;
  /** How long a disconnected session stays resumable. */
  sessionTimeoutMs: number;
}

const GUILDS_INTENT = 1 << 0;

export class Gateway {
  readonly events: GatewayEvent[] = [];
  readonly sessions = new Map<string, GatewaySession>();
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 1;
  url = '';

  constructor(private readonly options: GatewayOptions) {
    this.wss = new WebSocketServer({ noServer: true });
  }

  handleUpgrade(request: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void {
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request));
  }

  /** Sends a dispatch to every live session on the shard that owns `guildId` (shard 0 for non-guild events). */
  dispatch(t: string, d: unknown, guildId?: string, requiredIntent?: number): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (session.disconnectedAt !== null && now - session.disconnectedAt > this.options.sessionTimeoutMs) session.resumable = false;
      if (!session.resumable) {
        if (!session.connection) this.sessions.delete(id);
        continue;
      }
      if (requiredIntent !== undefined && (session.intents & requiredIntent) === 0) continue;
      const [shardId, shardCount] = session.shard;
      const target = guildId ? Number((BigInt(guildId) >> 22n) % BigInt(shardCount)) : 0;
      if (target !== shardId) continue;
      this.pushDispatch(session, t, d);
    }
  }

  /** Live (identified, connected) sessions. */
  get connectedSessions(): GatewaySession[] {
    return [...this.sessions.values()].filter((s) => s.connection !== null);
  }

  /** Closes every connection with `code`; 4000-style codes leave the session resumable, 4009 and friends do not. */
  closeAll(code: number, reason = ''): void {
    for (const connection of this.connections) {
      if (connection.session && NON_RESUMABLE.has(code)) connection.session.resumable = false;
      connection.socket.close(code, reason);
    }
  }

  /** Drops every connection without a close frame: the client sees 1006. */
  dropAll(): void {
    for (const connection of this.connections) connection.socket.terminate();
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
    this.record({ kind: 'close', connectionId: connection.id, code, sessionId: connection.session?.id });
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
    if (typeof data.intents !== 'number' || !Number.isInteger(data.intents) || data.intents < 0) {
      connection.socket.close(GatewayClose.InvalidIntents, 'Invalid intent(s)');
      return;
    }
    let shard: [number, number] = [0, 1];
    if (data.shard !== undefined) {
      const s = data.shard;
      if (!Array.isArray(s) || s.length !== 2 || typeof s[0] !== 'number' || typeof s[1] !== 'number' || s[0] < 0 || s[1] < 1 || s[0] >= s[1]) {
        connection.socket.close(GatewayClose.InvalidShard, 'Invalid shard');
        return;
      }
      shard = [s[0], s[1]];
    }
    // Like Discord, a second IDENTIFY for the same shard opens a second session: both receive events.
    const session: GatewaySession = {
      id: randomBytes(16).toString('hex'),
      shard,
      intents: data.intents,
      seq: 0,
      dispatches: [],
      resumable: true,
      connection,
      disconnectedAt: null,
    };
    this.sessions.set(session.id, session);
    connection.session = session;
    this.pushDispatch(session, 'READY', {
      v: 10,
      ...this.options.readyPayload(session),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.url,
      shard,
    });
    this.record({ kind: 'ready', connectionId: connection.id, sessionId: session.id });
    if ((session.intents & GUILDS_INTENT) !== 0) {
      for (const guild of this.options.guildCreates(shard)) this.pushDispatch(session, 'GUILD_CREATE', guild);
    }
  }

  private resume(connection: Connection, d: unknown): void {
    if (connection.session) {
      connection.socket.close(GatewayClose.AlreadyAuthenticated, 'Already authenticated');
      return;
    }
    const data = (typeof d === 'object' && d !== null ? d : {}) as { token?: unknown; session_id?: unknown; seq?: unknown };
    this.record({ kind: 'resume', connectionId: connection.id, sessionId: String(data.session_id), detail: { seq: data.seq } });
    if (data.token !== this.options.token) {
      connection.socket.close(GatewayClose.AuthenticationFailed, 'Authentication failed');
      return;
    }
    const session = typeof data.session_id === 'string' ? this.sessions.get(data.session_id) : undefined;
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
    connection.session = session;
    for (const missed of session.dispatches) {
      if (missed.s > seq) this.send(connection, { op: GatewayOp.Dispatch, t: missed.t, s: missed.s, d: missed.d });
    }
    this.pushDispatch(session, 'RESUMED', { _trace: ['wotd-fake-gateway'] });
    this.record({ kind: 'resumed', connectionId: connection.id, sessionId: session.id, detail: { replayedFrom: seq } });
  }

  private pushDispatch(session: GatewaySession, t: string, d: unknown): void {
    session.seq += 1;
    const record: DispatchRecord = { s: session.seq, t, d, at: Date.now() };
    session.dispatches.push(record);
    if (session.dispatches.length > REPLAY_LIMIT) session.dispatches.splice(0, session.dispatches.length - REPLAY_LIMIT);
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
