/**
 * What tests read back: every REST request with its answer, per-second counters (the global limiter's windows), and
 * views of the messages, threads and interaction callbacks the world holds.
 */
import { MessageFlag, viewMessage, type MessageView } from './messages.ts';
import type { RecordedCallback, RecordedRequest, SecondStats } from './public-types.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

/** A forum post: a thread in a forum with its starter message (the only threads this server makes by this route). */
const FORUM_POST = 'POST /channels/:channel_id/threads';

export interface StatsSummary {
  perSecond: SecondStats[];
  total: number;
  global429: number;
  bucket429: number;
  /** 429s answered to channel webhook executions (their own per-webhook buckets), counted in bucket429 too. */
  webhook429: number;
  /** Forum posts made (POST /channels/:id/threads in a forum), counted in the posts too. */
  forumPosts: number;
  /** Messages pinned (PUT /channels/:id/messages/pins/:id answered 204). */
  pins: number;
  invalid: number;
  maxAcceptedPerSecond: number;
  maxPostsPerSecond: number;
}

export class Recorder {
  /** Every REST request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  private readonly perSecond = new Map<number, SecondStats>();
  private seq = 0;
  private webhook429 = 0;
  private forumPosts = 0;
  private pins = 0;
  /** The application's id: its webhook is the interactions', every other one a channel webhook whose executions are posts. */
  applicationId = '';

  /** The next request's sequence number. */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Keeps an answered request and counts it in its second. */
  add(r: RecordedRequest): void {
    this.requests.push(r);
    this.count(r);
  }

  private count(r: RecordedRequest): void {
    const second = Math.floor(r.at / 1000);
    let s = this.perSecond.get(second);
    if (!s) {
      s = { second, requests: 0, accepted: 0, exempt: 0, posts: 0, global429: 0, bucket429: 0, invalid: 0 };
      this.perSecond.set(second, s);
    }
    s.requests += 1;
    if (r.limited === 'global') s.global429 += 1;
    else if (r.countedGlobally) s.accepted += 1;
    else s.exempt += 1;
    if (r.limited === 'bucket') s.bucket429 += 1;
    const shared = r.responseHeaders['X-RateLimit-Scope'] === 'shared';
    if (r.status === 401 || r.status === 403 || (r.status === 429 && !shared)) s.invalid += 1;
    if (r.route === 'POST /channels/:channel_id/messages' && r.status < 300) s.posts += 1;
    if (this.isWebhookPost(r) && r.status < 300) s.posts += 1;
    if (r.route === FORUM_POST && r.status < 300) {
      s.posts += 1;
      this.forumPosts += 1;
    }
    if (r.route === 'PUT /channels/:channel_id/messages/pins/:message_id' && r.status < 300) this.pins += 1;
    if (this.isWebhookPost(r) && r.limited === 'bucket') this.webhook429 += 1;
  }

  /** An execution of a channel webhook (not the application's interaction webhook). */
  private isWebhookPost(r: RecordedRequest): boolean {
    return r.route === 'POST /webhooks/:webhook_id/:webhook_token' && r.path.split('/')[2] !== this.applicationId;
  }

  /** The channel a successful post went to: its path's, or for a webhook execution, its message's. */
  private postedIn(r: RecordedRequest): string | undefined {
    if (!this.isWebhookPost(r)) return r.path.split('/')[2];
    const response = r.response as { channel_id?: unknown } | null;
    return typeof response?.channel_id === 'string' ? response.channel_id : undefined;
  }

  /**
   * Successful POST /channels/:id/messages requests, channel webhook executions and forum posts (in the forum's
   * channel; optionally for one channel).
   */
  posts(channelId?: string): RecordedRequest[] {
    return this.requests.filter(
      (r) =>
        (r.route === 'POST /channels/:channel_id/messages' || r.route === FORUM_POST || this.isWebhookPost(r)) &&
        r.status < 300 &&
        (channelId === undefined || this.postedIn(r) === channelId),
    );
  }

  /** Per-second counters (epoch seconds, the same windows the global limiter uses). */
  stats(): StatsSummary {
    const perSecond = [...this.perSecond.values()].sort((a, b) => a.second - b.second);
    return {
      perSecond,
      total: this.requests.length,
      global429: perSecond.reduce((n, s) => n + s.global429, 0),
      bucket429: perSecond.reduce((n, s) => n + s.bucket429, 0),
      webhook429: this.webhook429,
      forumPosts: this.forumPosts,
      pins: this.pins,
      invalid: perSecond.reduce((n, s) => n + s.invalid, 0),
      maxAcceptedPerSecond: perSecond.reduce((n, s) => Math.max(n, s.accepted), 0),
      maxPostsPerSecond: perSecond.reduce((n, s) => Math.max(n, s.posts), 0),
    };
  }
}

/** Messages visible in a channel now (not ephemeral, not deleted), oldest first. */
export function messagesIn(world: World, channelId: string): MessageView[] {
  return (world.messagesByChannel.get(channelId) ?? [])
    .filter((m) => m.deletedAt === null && (m.flags & MessageFlag.Ephemeral) === 0)
    .map(viewMessage);
}

/** Every message ever created (deleted and ephemeral included), oldest first. */
export function allMessages(world: World): MessageView[] {
  return [...world.messages.values()].map(viewMessage);
}

/** Threads started from messages in a channel (THREAD_CREATE payloads), oldest first. */
export function threadsIn(world: World, channelId: string): { id: string; name: string; type: number; parentId: string; autoArchiveDuration: number }[] {
  return [...world.threads.values()]
    .filter((t) => t.parent_id === channelId)
    .map((t) => ({
      id: String(t.id),
      name: String(t.name),
      type: Number(t.type),
      parentId: String(t.parent_id),
      autoArchiveDuration: Number((t.thread_metadata as Json).auto_archive_duration),
    }));
}

/** Every interaction callback attempt, in arrival order. */
export function callbacks(world: World): RecordedCallback[] {
  return [...world.interactions.values()].flatMap((i) => i.callbacks).sort((a, b) => a.at - b.at);
}
