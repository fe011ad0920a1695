/**
 * npm run bench:quiz — the daily quiz under load, the leaderboard at 100,000 members, and what the learning data
 * costs in the store. One line: `bench quiz: …`.
 *
 * Answering: a server of MEMBERS (100, then 1,000) members, one daily quiz post made by our bot (the real
 * startDiscordBot, the real router and /wotd-quiz's button, the learning store on a temp SQLite file), every member
 * pressing an answer within the same moment and then pressing again (a double press). Latency is what the local
 * Discord server measures from INTERACTION_CREATE sent to the interaction callback received. The baseline is a bare
 * discord.js Client (the same createDiscordClient) answering every press with one constant private message, driven
 * by the same presses in the same run; only one bot is connected at a time. `lost` counts members whose answer is
 * not stored, `doubled` answers counted twice (the quiz's `answered` above the members).
 *
 * Leaderboard: 100,000 members with streaks in one server, on SQLite, PostgreSQL and Redis (each skipped when its
 * server is not there): p99 of the top ten plus a random member's rank, over 300 reads. Storage: bytes per streak
 * member and per saved word, from the store's own size figures before and after.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Events, MessageFlags, type Client } from 'discord.js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { commands } from '../commands/index.ts';
import { hideChannelCacheWarning } from '../src/cli/process-warnings.ts';
import { createLogger } from '../src/config/logger.ts';
import { startDiscordBot } from '../src/discord/bot.ts';
import { createDiscordClient } from '../src/discord/client.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { LearningService } from '../src/learning/learning-service.ts';
import { openLearningStore } from '../src/learning/open-learning-store.ts';
import { wordListOf } from '../src/learning/word-list.ts';
import type { StoreLocation } from '../src/store/open-store.ts';
import { startDiscordServer, type InteractionHandle } from '../test/support/discord/index.ts';
import { startCommandWorld } from '../test/commands/world.ts';

hideChannelCacheWarning();
const LEVELS = (process.env.QUIZ_LEVELS ?? '100,1000').split(',').map(Number);
const BOARD_MEMBERS = 100_000;
const BOARD_READS = 300;
const SAVED_WORDS = 10_000;
const SPREAD_MS_PER_MEMBER = 5;
const DAY = '2025-01-20';
const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const logger = createLogger({ level: process.env.QUIZ_LOG ? 'debug' : 'silent', ...(process.env.QUIZ_LOG ? {} : { destination: quiet }) });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

async function answering(members: number): Promise<Record<string, string | number>> {
  const discord = await startDiscordServer();
  const ids = Array.from({ length: members }, (_, i) => String(600_000_000_000_000_000n + BigInt(i)));
  const guild = discord.addGuild({ name: 'Quiz', members: ids.map((id, i) => ({ id, username: `m${i}` })), channels: [{ name: 'daily' }] });
  const channel = guild.channelId('daily');
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  await runDeployCommands([], { env, stdout: quiet, stderr: quiet, commands });
  const words = await startCommandWorld();
  const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-quiz-'));
  const store = await openLearningStore({ url: `sqlite://${join(dir, 'store.sqlite')}` });
  const learning = new LearningService(store, wordListOf(words.adapter));
  try {
    const bot = await startDiscordBot({ config: { ...env, DISCORD_APPLICATION_ID: undefined }, commands, services: { ...words.services, logger, learning }, logger });
    // The quiz post, as the daily poster makes it: our bot's message with the four buttons, recorded in the store.
    const post = (await bot.client.rest.post(`/channels/${channel}/messages`, {
      body: { content: 'quiz', components: [{ type: 1, components: [0, 1, 2, 3].map((i) => ({ type: 2, style: 2, label: 'ABCD'[i], custom_id: `quiz:day:${DAY}:${i}` })) }] },
    })) as { id: string };
    await store.registerQuiz({ channelId: channel, day: DAY, guildId: guild.id, messageId: post.id, entryDate: DAY, correct: 1, closesAt: Date.now() + 3_600_000, language: null });
    await words.adapter.getEntry(DAY);
    // Every member presses within SPREAD_MS_PER_MEMBER × members (0.5 s at 100, 5 s at 1,000), and presses again
    // (another letter) right after: the double press.
    const press = async (): Promise<number[]> => {
      const handles: InteractionHandle[] = [];
      const started = performance.now();
      for (const [index, user] of ids.entries()) {
        const due = started + index * SPREAD_MS_PER_MEMBER;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        handles.push(discord.pressButton({ customId: `quiz:day:${DAY}:${index % 4}`, channelId: channel, user, messageId: post.id }));
        handles.push(discord.pressButton({ customId: `quiz:day:${DAY}:${(index + 1) % 4}`, channelId: channel, user, messageId: post.id }));
      }
      await Promise.all(handles.map((handle) => handle.waitForCallback(30_000).catch(() => undefined)));
      return handles.map((handle) => (handle.callback ? handle.callback.at - handle.sentAt : Infinity));
    };
    process.stderr.write(`bench quiz: ${members} members, our bot\n`);
    const ours = await press();
    await bot.stop();
    const quiz = await store.getQuiz(channel, DAY);
    const stored = (await Promise.all(ids.map((id) => store.streak(guild.id, id)))).filter(Boolean).length;
    const client: Client = createDiscordClient({ apiUrl: discord.apiUrl });
    client.on(Events.InteractionCreate, (interaction) => {
      if (process.env.QUIZ_LOG) process.stderr.write(`baseline got ${interaction.type}\n`);
      if (interaction.isButton()) void interaction.reply({ content: 'Right!', flags: MessageFlags.Ephemeral }).then(() => process.env.QUIZ_LOG && process.stderr.write('replied\n')).catch((error: unknown) => process.stderr.write(`baseline: ${String(error)}\n`));
    });
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(discord.token);
    await ready;
    // The baseline's presses go to a quiz day the store does not know; only the callbacks' timing is read.
    process.stderr.write(`bench quiz: ${members} members, the baseline\n`);
    const baseline = await press();
    await client.destroy();
    return {
      [`m${members}_p99_ms`]: Math.round(percentile(ours, 0.99)),
      [`m${members}_baseline_p99_ms`]: Math.round(percentile(baseline, 0.99)),
      [`m${members}_ratio`]: (percentile(ours, 0.99) / percentile(baseline, 0.99)).toFixed(2),
      [`m${members}_unanswered`]: ours.filter((latency) => latency === Infinity).length,
      [`m${members}_baseline_unanswered`]: baseline.filter((latency) => latency === Infinity).length,
      // Every member's first press is the one stored: one answer each, and one streak record per right answer.
      [`m${members}_lost`]: Math.max(0, members - (quiz?.answered ?? 0)),
      [`m${members}_doubled`]: Math.max(0, (quiz?.answered ?? 0) - members) + Math.abs((quiz?.right ?? 0) - stored),
    };
  } finally {
    await store.close();
    await words.close();
    await discord.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Backend {
  name: string;
  location(): Promise<StoreLocation | null>;
  bytes(location: StoreLocation): Promise<number>;
  drop(location: StoreLocation): Promise<void>;
}

const postgresUrl = process.env.POSTGRES_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

const backends: Backend[] = [
  {
    name: 'sqlite',
    async location() {
      return { url: `sqlite://${join(mkdtempSync(join(tmpdir(), 'wotd-bench-board-')), 'store.sqlite')}` };
    },
    async bytes(location) {
      const file = location.url.slice('sqlite://'.length);
      const size = (path: string) => {
        try {
          return statSync(path).size;
        } catch {
          return 0;
        }
      };
      return size(file) + size(`${file}-wal`);
    },
    async drop(location) {
      rmSync(join(location.url.slice('sqlite://'.length), '..'), { recursive: true, force: true });
    },
  },
  {
    name: 'postgres',
    async location() {
      const schema = `wotd_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      const client = new pg.Client({ connectionString: postgresUrl });
      try {
        await client.connect();
        await client.query(`CREATE SCHEMA ${schema}`);
      } catch {
        return null;
      } finally {
        await client.end().catch(() => undefined);
      }
      return { url: `${postgresUrl}?options=-c%20search_path%3D${schema}`, keyPrefix: schema };
    },
    async bytes(location) {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      const result = await client.query<{ bytes: string }>(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'wotd_learning_%'`,
        [location.keyPrefix],
      );
      await client.end();
      return Number(result.rows[0]?.bytes ?? 0);
    },
    async drop(location) {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA ${location.keyPrefix} CASCADE`);
      await client.end();
    },
  },
  {
    name: 'redis',
    async location() {
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
      } catch {
        return null;
      } finally {
        redis.disconnect();
      }
      return { url: redisUrl, keyPrefix: `wotd-bench:${randomUUID()}:` };
    },
    async bytes(location) {
      const redis = new Redis(redisUrl);
      let total = 0;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${location.keyPrefix}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) total += (await redis.memory('USAGE', key)) ?? 0;
      } while (cursor !== '0');
      redis.disconnect();
      return total;
    },
    async drop(location) {
      const redis = new Redis(redisUrl);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${location.keyPrefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      redis.disconnect();
    },
  },
];

/** A streak per member, written in bulk beside the store's own records (the answer path is measured above). */
function streakOf(i: number, guildId: string) {
  const userId = String(700_000_000_000_000_000n + BigInt(i));
  const current = i % 40;
  return { guildId, userId, run: current, current, best: current + (i % 7), total: current + (i % 90), lastDay: '2025-01-20' };
}

async function fillBoard(backend: Backend, location: StoreLocation, guildId: string): Promise<void> {
  const batch = 500;
  if (backend.name === 'redis') {
    const redis = new Redis(location.url);
    for (let start = 0; start < BOARD_MEMBERS; start += batch) {
      const pipeline = redis.pipeline();
      for (let i = start; i < Math.min(BOARD_MEMBERS, start + batch); i += 1) {
        const streak = streakOf(i, guildId);
        pipeline.hset(`${location.keyPrefix}learning:streaks:${guildId}`, streak.userId, JSON.stringify(streak));
        pipeline.zadd(`${location.keyPrefix}learning:board:${guildId}`, streak.current * 10_000_000 + streak.total, streak.userId);
        pipeline.sadd(`${location.keyPrefix}learning:guilds:${streak.userId}`, guildId);
      }
      await pipeline.exec();
    }
    redis.disconnect();
    return;
  }
  const driver =
    backend.name === 'sqlite'
      ? await (await import('../src/learning/sqlite-learning-driver.ts')).openSqliteLearningDriver(location.url)
      : await (await import('../src/learning/postgres-learning-driver.ts')).openPostgresLearningDriver(location.url);
  try {
    for (let start = 0; start < BOARD_MEMBERS; start += batch) {
      const rows: Array<string | number> = [];
      const values: string[] = [];
      for (let i = start; i < Math.min(BOARD_MEMBERS, start + batch); i += 1) {
        const s = streakOf(i, guildId);
        const n = rows.length;
        values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7})`);
        rows.push(s.guildId, s.userId, s.run, s.current, s.best, s.total, s.lastDay);
      }
      await driver.query(`INSERT INTO ${driver.table('wotd_learning_streaks')} (guild_id, user_id, run, current, best, total, last_day) VALUES ${values.join(', ')}`, rows);
    }
  } finally {
    await driver.close();
  }
}

async function board(backend: Backend): Promise<Record<string, string | number>> {
  const location = await backend.location();
  if (!location) return { [`board_${backend.name}`]: 'skipped' };
  const store = await openLearningStore(location);
  try {
    const before = await backend.bytes(location);
    await fillBoard(backend, location, 'g1');
    const afterBoard = await backend.bytes(location);
    const timings: number[] = [];
    for (let read = 0; read < BOARD_READS; read += 1) {
      const member = String(700_000_000_000_000_000n + BigInt(Math.floor(Math.random() * BOARD_MEMBERS)));
      const started = performance.now();
      await store.leaderboard('g1', 0, 10);
      await store.rankOf('g1', member);
      timings.push(performance.now() - started);
    }
    for (let i = 0; i < SAVED_WORDS; i += 500) {
      await Promise.all(Array.from({ length: 500 }, (_, j) => store.saveWord(`u${(i + j) % 100}`, { date: `2024-${String(((i + j) % 12) + 1).padStart(2, '0')}-${String(((i + j) % 28) + 1).padStart(2, '0')}-${i + j}`, word: 'serendipity', pos: 'noun' }, i + j)));
    }
    const afterWords = await backend.bytes(location);
    return {
      [`board_${backend.name}_p99_ms`]: percentile(timings, 0.99).toFixed(1),
      [`${backend.name}_bytes_per_member`]: Math.round((afterBoard - before) / BOARD_MEMBERS),
      [`${backend.name}_bytes_per_saved_word`]: Math.round((afterWords - afterBoard) / SAVED_WORDS),
    };
  } finally {
    await store.close();
    await backend.drop(location);
  }
}

const fields: Record<string, string | number> = {};
for (const members of LEVELS) Object.assign(fields, await answering(members));
for (const backend of backends) Object.assign(fields, await board(backend));
process.stdout.write(`bench quiz: ${Object.entries(fields).map(([key, value]) => `${key}=${value}`).join(' ')}\n`);
process.exit(0);
