import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { PermissionFlagsBits } from 'discord.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import type { InteractionDone } from '../../src/replies/interaction-outcome.ts';
import type { BotServices } from '../../src/replies/interactions.ts';
import { createLogger } from '../../src/config/logger.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { dmTarget } from '../../src/schedule/subscription.ts';
import { deliveryNonce } from '../../src/schedule/poster.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { seedOf, settings } from '../generated/generated.ts';
import { entryFor, makeSubscription } from '../schedule/helpers.ts';
import { startDiscordServer, type DiscordServer, type GuildInfo, type InteractionHandle, type RawAnswer } from '../support/discord/index.ts';
import { recordGenerated } from './tally.ts';

/**
 * Generated answers from Discord to every REST call the bot makes, through the REAL discord.js Client (startDiscordBot)
 * and the real scheduler and poster, against the local Discord-compatible server told to answer the next N requests
 * of one route with a generated status, body and rate-limit headers (injectFault({ answer })).
 *
 * Each property run is a batch of operations side by side, each meeting its own generated answer on its own route:
 *   reply      /wotd answered at once: POST /interactions/:id/:token/callback
 *   deferred   /wotd for a slow day (one batch in four): the deferral's edit and follow-up, /webhooks/:app/:token…
 *   post       a daily post: POST /channels/:id/messages (and the GET /channels/:id that checks a 404)
 *   confirm    a post after a crash between send and record: GET /channels/:id/messages
 *   extras     the post's thread and publication: POST …/messages/:id/threads and …/crosspost
 *   dm         a member's DM subscription: POST /users/@me/channels
 *   subscribe  /wotd-subscribe reading the channel: GET /channels/:id
 *   register   deploy-commands: PUT /applications/:id/commands
 * Properties: no unhandled rejection or uncaught exception; no subscription lost; never two posts of a channel's
 * day; once the server behaves again every owed post goes out exactly once; and after all runs a normal command
 * and a normal post still succeed.
 *
 * 401 is generated on the interaction and webhook routes and on registration, not on the bot's own token routes:
 * discord.js drops the bot's token for good on a 401 there (a revoked token), which no bot can recover from.
 */

const SEED = 2_020_008;
/** About 18 generated answers a run: 115 runs give over 2,000. */
const BATCHES = 115;
const DAY = '2026-06-15';
const SLOW_DAY = '2026-06-02';
const ADMIN_ID = '500000000000000001';
/** The world's bound on one rate limit's wait: a generated Retry-After of any size costs at most this. */
const MAX_WAIT_S = 0.01;
const SITE_URL = 'https://wotd.example';

const quiet = (): Writable => new Writable({ write: (_chunk, _encoding, callback) => callback() });

// ------------------------------------------------------------------------------------------- generated answers

const SNOWFLAKE = fc.bigInt({ min: 1n << 40n, max: (1n << 62n) - 1n }).map(String);
/** Header text as HTTP allows it (Node refuses control characters), including what Number() misreads. */
const GARBAGE_NUMBER = fc.oneof(
  fc.constantFrom('', ' ', 'abc', 'NaN', 'Infinity', '-Infinity', '1e400', '0x10', '1,5', '5 ', '--1', '1e3', '9'.repeat(400)),
  fc.string({ unit: fc.constantFrom(...'0123456789.-+eE xyz'.split('')), maxLength: 12 }),
);
/** Seconds: what a real Discord sends (short waits), and what nobody should (huge, negative, garbage). */
const WAIT = fc.oneof(
  { weight: 3, arbitrary: fc.double({ min: 0, max: MAX_WAIT_S, noNaN: true }).map((s) => s.toFixed(3)) },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(99_999_999_999, 1e15, 2 ** 31, 2 ** 53)).map(String) },
  { weight: 1, arbitrary: fc.double({ min: -1e12, max: -0.001, noNaN: true }).map(String) },
  { weight: 2, arbitrary: GARBAGE_NUMBER },
);

const rateLimitHeaders = fc.record(
  {
    'X-RateLimit-Limit': fc.oneof(fc.integer({ min: 0, max: 100 }).map(String), GARBAGE_NUMBER),
    'X-RateLimit-Remaining': fc.oneof(fc.integer({ min: 0, max: 5 }).map(String), GARBAGE_NUMBER),
    'X-RateLimit-Reset-After': WAIT,
    'X-RateLimit-Reset': fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }).map(String), GARBAGE_NUMBER),
    'X-RateLimit-Bucket': fc.stringMatching(/^[a-z0-9]{1,16}$/),
    'X-RateLimit-Scope': fc.constantFrom('user', 'global', 'shared', 'weird'),
  },
  { requiredKeys: [] },
);

type Shape = 'valid' | 'missing' | 'wrong types' | 'truncated' | 'html' | 'empty';

interface Generated {
  status: number;
  code: number;
  shape: Shape;
  headers: Record<string, string>;
  retryAfter: string;
  global: boolean;
  times: number;
}

const ERROR_CODES: Record<number, number[]> = {
  400: [50035, 50006, 50109, 50008, 0],
  401: [0, 50027],
  403: [50013, 50001, 50007, 40333, 0],
  404: [10003, 10008, 10015, 10062, 10013, 0],
  429: [0],
  500: [0],
  502: [0],
  503: [0],
};

function answerArb(statuses: number[]): fc.Arbitrary<Generated> {
  return fc
    .record({
      status: fc.constantFrom(...statuses),
      pick: fc.nat(),
      shape: fc.constantFrom<Shape>('valid', 'valid', 'missing', 'wrong types', 'truncated', 'html', 'empty'),
      headers: rateLimitHeaders,
      retryAfter: WAIT,
      global: fc.boolean().chain((global) => (global ? fc.boolean() : fc.constant(false))),
      times: fc.integer({ min: 1, max: 4 }),
    })
    .map(({ status, pick, ...rest }) => {
      const codes = ERROR_CODES[status] ?? [0];
      return { status, code: codes[pick % codes.length] ?? 0, ...rest };
    });
}

const BOT_STATUSES = [200, 201, 204, 400, 403, 404, 429, 429, 500, 502, 503];
const OPEN_STATUSES = [...BOT_STATUSES, 401];

/** The bytes of one generated answer; `valid` is a body the route could really have (`ok`) or Discord's error JSON. */
function rawAnswer(generated: Generated, ok: () => unknown): RawAnswer {
  const { status, code, shape } = generated;
  const headers: Record<string, string> = { ...generated.headers };
  let json: unknown;
  if (status === 429) {
    headers['Retry-After'] = generated.retryAfter;
    if (generated.global) headers['X-RateLimit-Global'] = 'true';
    json = { message: 'You are being rate limited.', retry_after: Number(generated.retryAfter) || generated.retryAfter, global: generated.global };
  } else if (status < 300) json = ok();
  else json = { message: `${status}: generated`, code };
  let body: string;
  switch (shape) {
    case 'valid':
      body = JSON.stringify(json);
      break;
    case 'missing':
      body = status < 300 ? '{}' : JSON.stringify({ message: 'x' });
      break;
    case 'wrong types':
      body = JSON.stringify({ id: 12, code: 'fifty', message: 5, retry_after: 'soon', channel_id: [], embeds: 'none', author: 7, global: 'yes' });
      break;
    case 'truncated': {
      const full = JSON.stringify(json);
      body = full.slice(0, Math.max(1, Math.floor(full.length / 2)));
      break;
    }
    case 'html':
      body = `<html><body><h1>${status}</h1>upstream said no</body></html>`;
      break;
    case 'empty':
      body = '';
      break;
  }
  if (status === 204) body = '';
  headers['Content-Type'] = shape === 'html' ? 'text/html' : 'application/json';
  return { status, headers, body };
}

// ------------------------------------------------------------------------------------------- the world

class QuickLookup implements WotdLookup {
  today(): string {
    return DAY;
  }
  async getEntry(date?: string) {
    if (date === SLOW_DAY) await new Promise((resolve) => setTimeout(resolve, 200));
    return { value: entryFor(date ?? DAY), stale: false, fromCache: false };
  }
  async getPrevious(): Promise<never> {
    throw new Error('not used here');
  }
  async findWord(): Promise<never> {
    throw new Error('not used here');
  }
  async suggestWords(): Promise<string[]> {
    return [];
  }
}

let discord: DiscordServer;
let guild: GuildInfo;
let bot: DiscordBot;
let store: SubscriptionStore;
let scheduler: DailyScheduler;
let dir: string;
const env = (): NodeJS.ProcessEnv => ({ DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl });
const finished = new Map<string, (done: InteractionDone) => void>();
let crashes = 0;
const onCrash = (): void => {
  crashes += 1;
};

beforeAll(async () => {
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtExceptionMonitor', onCrash);
  dir = await mkdtemp(join(tmpdir(), 'wotd-discord-responses-'));
  discord = await startDiscordServer({ globalLimitPerSecond: 100_000, perChannelMessages: { limit: 1_000, windowMs: 1_000 } });
  guild = discord.addGuild({
    name: 'Words',
    roles: [{ name: 'admins', permissions: PermissionFlagsBits.ManageChannels }],
    members: [{ id: ADMIN_ID, username: 'admin', roles: ['admins'] }],
    channels: [{ name: 'general' }, { name: 'daily' }],
  });
  const deployed = await runDeployCommands([], { env: env(), stdout: quiet(), stderr: quiet(), commands });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);
  const logger = createLogger({ level: 'fatal', destination: quiet() });
  // Removals are dated by the store's clock, a day per run, so no one day's list of removed channels grows long.
  store = await SubscriptionStore.open(`sqlite://${join(dir, 'store.sqlite')}`, undefined, { now: () => new Date(Date.parse(`${DAY}T00:00:00Z`) + batchNumber * 86_400_000) });
  const lookup = new QuickLookup();
  const services: BotServices = { lookup, siteUrl: SITE_URL, logger, subscriptions: createSubscriptionService({ store, limit: 1_000 }) };
  bot = await startDiscordBot({
    // The server allows as much: discord.js's own queue at 50 a second would make every run wait for its next second.
    config: { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_APPLICATION_ID: undefined, DISCORD_GLOBAL_RATE_LIMIT: 100_000 },
    commands,
    services,
    logger,
    maxRateLimitWaitS: MAX_WAIT_S,
    onInteractionDone: (done) => finished.get(done.interactionId)?.(done),
  });
  // discord.js adds 50 ms to every rate limit's wait by default, against clock skew; the loopback server has none.
  Object.assign(bot.client.rest.options, { offset: 0 });
  scheduler = new DailyScheduler({
    store,
    lookup,
    poster: createChannelPoster(bot.client.rest, { logger, postsPerSecond: 0 }),
    render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
    logger,
    concurrency: 8,
  });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await store?.close();
  await discord?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  process.off('unhandledRejection', onCrash);
  process.off('uncaughtExceptionMonitor', onCrash);
});

// ------------------------------------------------------------------------------------------- operations

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Invokes a command and waits until the bot has finished with it (answered, apologised or given up). */
async function command(name: string, options: Record<string, string>, fault?: (handle: InteractionHandle) => void): Promise<InteractionHandle> {
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  const handle = discord.invokeCommand({ name, options, channelId: guild.channelId('general'), user: ADMIN_ID });
  finished.set(handle.id, () => resolve());
  // The bot cannot answer before this returns: the fault is in place for its first request.
  if (fault) fault(handle);
  await withTimeout(done, 20_000, `/${name} to finish`);
  finished.delete(handle.id);
  return handle;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function inject(route: RegExp, generated: Generated, ok: () => unknown): void {
  discord.injectFault({ route, times: generated.times, answer: rawAnswer(generated, ok) });
}

const messageBody = (channelId: string) => () => ({
  id: String(BigInt(Date.now() - 1_420_070_400_000) << 22n),
  channel_id: channelId,
  type: 0,
  content: '',
  embeds: [],
  attachments: [],
  mentions: [],
  mention_roles: [],
  pinned: false,
  tts: false,
  mention_everyone: false,
  flags: 0,
  components: [],
  timestamp: new Date().toISOString(),
  edited_timestamp: null,
  author: { id: discord.botUser.id, username: 'bot', discriminator: '0', avatar: null, bot: true },
});

interface Batch {
  replies: Generated[];
  deferred: Generated[];
  posts: Generated[];
  confirms: Array<{ answer: Generated; posted: boolean }>;
  extras: Generated[];
  dms: Generated[];
  subscribes: Generated[];
  register: Generated;
}

const several = (arbitrary: fc.Arbitrary<Generated>, count: number) => fc.array(arbitrary, { minLength: count, maxLength: count });

const batchArb: fc.Arbitrary<Batch> = fc.record({
  replies: several(answerArb(OPEN_STATUSES), 4),
  // A deferral costs the slow lookup's 200 ms: one run in four has one.
  deferred: fc.oneof({ weight: 3, arbitrary: fc.constant<Generated[]>([]) }, { weight: 1, arbitrary: several(answerArb(OPEN_STATUSES), 1) }),
  posts: several(answerArb(BOT_STATUSES), 4),
  confirms: fc.array(fc.record({ answer: answerArb(BOT_STATUSES), posted: fc.boolean() }), { minLength: 3, maxLength: 3 }),
  extras: several(answerArb(BOT_STATUSES), 3),
  // One: DM opens share a route, and a generated 2xx names the channel of the member it was made for.
  dms: several(answerArb(BOT_STATUSES), 1),
  subscribes: several(answerArb(BOT_STATUSES), 2),
  register: answerArb(OPEN_STATUSES),
});

let batchNumber = 0;
let generatedAnswers = 0;
let channelNumber = 0;

/** A subscription a run made, and where its posts land (a DM's in the bot's DM channel with the member). */
interface Posting {
  channelId: string;
  guildId: string;
  where: () => string | undefined;
}

const ENABLED_AT = '2026-06-01T00:00:00.000Z';

/** Daily-post targets of one run, each with its own generated answer on its own route (DM opens share theirs). */
async function postTargets(batch: Batch): Promise<Posting[]> {
  const postings: Posting[] = [];
  const subscriptions = [];
  const fresh = (prefix: string, type?: number) => discord.addChannel(guild.id, { name: `${prefix}-${(channelNumber += 1)}`, ...(type ? { type } : {}) }).id;
  for (const generated of batch.posts) {
    const id = fresh('post');
    postings.push({ channelId: id, guildId: guild.id, where: () => id });
    subscriptions.push(makeSubscription({ guildId: guild.id, channelId: id, enabledAt: ENABLED_AT }));
    // The post, and the GET /channels/:id that checks a 404 before switching the subscription off.
    inject(new RegExp(`^(POST /channels/${id}/messages|GET /channels/${id})$`), generated, messageBody(id));
  }
  for (const { answer, posted } of batch.confirms) {
    const id = fresh('confirm');
    postings.push({ channelId: id, guildId: guild.id, where: () => id });
    subscriptions.push(makeSubscription({ guildId: guild.id, channelId: id, enabledAt: ENABLED_AT }));
    // As a crash between the post and its record leaves it, with or without the post made.
    const at = `${DAY}T08:59:00.000Z`;
    await store.putDelivery({ channelId: id, day: DAY, state: 'sending', nonce: deliveryNonce(id, DAY), attempts: 1, attemptStartedAt: at, updatedAt: at });
    if (posted) {
      const body = { embeds: [entryEmbed(entryFor(DAY), { siteUrl: SITE_URL })], nonce: deliveryNonce(id, DAY), enforce_nonce: true };
      await bot.client.rest.post(`/channels/${id}/messages`, { body });
    }
    inject(new RegExp(`^GET /channels/${id}/messages$`), answer, () => []);
  }
  for (const generated of batch.extras) {
    const id = fresh('extras', 5);
    postings.push({ channelId: id, guildId: guild.id, where: () => id });
    subscriptions.push(makeSubscription({ guildId: guild.id, channelId: id, enabledAt: ENABLED_AT, openThread: true, publish: true }));
    inject(new RegExp(`^POST /channels/${id}/messages/\\d+/(threads|crosspost)$`), generated, messageBody(id));
  }
  await store.putMany(subscriptions);
  for (const generated of batch.dms) {
    const member = `7${String((channelNumber += 1)).padStart(17, '0')}`;
    discord.addMember(guild.id, { id: member, username: `member-${channelNumber}` });
    const dm = dmTarget(member);
    postings.push({ channelId: dm.channelId, guildId: dm.guildId, where: () => discord.dmChannelOf(member) });
    await store.upsert(dm.guildId, dm.channelId, 10_000, () => makeSubscription({ guildId: dm.guildId, channelId: dm.channelId, enabledAt: ENABLED_AT }));
    inject(/^POST \/users\/@me\/channels$/, generated, () => ({ id: discord.dmChannelOf(member), type: 1, recipients: [] }));
  }
  return postings;
}

async function runBatch(batch: Batch): Promise<void> {
  batchNumber += 1;
  const title = entryFor(DAY).word;
  const posts = (channelId: string | undefined) =>
    channelId === undefined ? [] : discord.messagesIn(channelId).filter((message) => message.embeds[0]?.title === title);

  const postings = await postTargets(batch);
  const subscribed: string[] = [];
  const operations: Array<Promise<unknown>> = [
    ...batch.replies.map((generated) =>
      command('wotd', { date: '2026-06-01' }, (handle) => inject(new RegExp(`^POST /interactions/${handle.id}/`), generated, () => ({}))),
    ),
    ...batch.deferred.map((generated) =>
      command('wotd', { date: SLOW_DAY }, (handle) =>
        inject(new RegExp(`^(PATCH|POST) /webhooks/\\d+/${escape(encodeURIComponent(handle.token))}`), generated, messageBody(guild.channelId('general'))),
      ),
    ),
    ...batch.subscribes.map((generated) => {
      const target = discord.addChannel(guild.id, { name: `subscribe-${(channelNumber += 1)}` }).id;
      subscribed.push(target);
      return command('wotd-subscribe', { channel: target, time: '23:30' }, () =>
        inject(new RegExp(`^GET /channels/${target}$`), generated, () => ({ id: target, type: 0, guild_id: guild.id, name: 'x', permission_overwrites: [] })),
      );
    }),
    (async () => {
      inject(/^PUT \/applications\/\d+\/commands$/, batch.register, () => []);
      const code = await runDeployCommands([], { env: env(), stdout: quiet(), stderr: quiet(), commands, maxRateLimitWaitS: MAX_WAIT_S });
      expect([0, 1]).toContain(code);
    })(),
    scheduler.tick(new Date(`${DAY}T09:00:00Z`)),
  ];
  generatedAnswers +=
    batch.replies.length + batch.deferred.length + batch.posts.length + batch.confirms.length + batch.extras.length + batch.dms.length + batch.subscribes.length + 1;
  // A request discord.js holds for good (a rate limit it will never see the end of) fails the run here.
  await withTimeout(Promise.all(operations), 30_000, "the run's operations");

  // Never two posts of a day, whatever Discord said.
  for (const posting of postings) expect(posts(posting.where()).length, `posts in ${posting.channelId}`).toBeLessThanOrEqual(1);

  // The server behaves again: whatever is still owed today goes out, once.
  discord.clearFaults();
  await withTimeout(scheduler.tick(new Date(`${DAY}T12:00:00Z`)), 30_000, 'the first pass after the faults');
  await withTimeout(scheduler.tick(new Date(`${DAY}T15:00:00Z`)), 30_000, 'the second pass after the faults');
  for (const posting of postings) {
    const subscription = await store.get(posting.channelId);
    expect(subscription, `the subscription of ${posting.channelId}`).not.toBeNull();
    const record = await store.getDelivery(posting.channelId, DAY);
    const found = posts(posting.where());
    expect(found.length, `posts in ${posting.channelId}`).toBeLessThanOrEqual(1);
    if (subscription?.status.state !== 'disabled' && record?.state !== 'failed') {
      expect(record?.state, `the day's record of ${posting.channelId}`).toBe('sent');
      // A generated 2xx may have claimed a post the server never made; otherwise it is the one in the channel.
      if (found.length === 1) expect(record).toMatchObject({ messageId: found[0]?.id });
    }
  }
  // Tidy: this run's subscriptions go, so each tick lists only the next run's.
  for (const posting of postings) await store.remove(posting.guildId, posting.channelId);
  for (const target of subscribed) await store.remove(guild.id, target);
  expect(crashes, 'unhandled rejections and uncaught exceptions').toBe(0);
}

describe('generated answers from Discord to every REST call the bot makes', () => {
  it(`${BATCHES} runs of side-by-side operations, each meeting its own generated answer`, async ({ task }) => {
    await fc.assert(fc.asyncProperty(batchArb, runBatch), settings(SEED, BATCHES));
    recordGenerated(task, { runs: generatedAnswers, seed: seedOf(SEED), replay: `FC_SEED=${seedOf(SEED)} npx vitest run test/faults/discord-responses.test.ts` });
    expect(generatedAnswers).toBeGreaterThanOrEqual(2_000);

    // Healthy afterwards: a normal command is answered and a normal post goes out.
    discord.clearFaults();
    const handle = await command('wotd', { date: '2026-06-03' });
    expect(handle.callback?.status).toBeLessThan(300);
    expect((await handle.waitForResponse()).embeds[0]?.title).toBe(entryFor('2026-06-03').word);
    const daily = guild.channelId('daily');
    await store.upsert(guild.id, daily, 10_000, () => makeSubscription({ guildId: guild.id, channelId: daily }));
    expect(await scheduler.tick(new Date('2026-06-16T09:00:00Z'))).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(daily)).toHaveLength(1);
    expect(crashes).toBe(0);
  }, 600_000);
});
