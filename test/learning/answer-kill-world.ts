import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startWotdService } from '../../src/service/server.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { addDays, utcDateOf } from '../../src/wotd/dates.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { postgresAdmin } from '../support/postgres.ts';
import { storeEnv } from '../support/store-backends.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * Real `wotd-bot start` processes on one store, for answer-kill.test.ts: servers whose channels each hold a daily
 * quiz, one per server so each server's streak shows one answer; bot processes with the answer-hold hook preloaded;
 * and the quizzes' records, with a right answer the day before for the member (a streak of one to build on).
 */

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');
const WORDS = resolve(import.meta.dirname, '../../data/words.sqlite');
const HOOK = pathToFileURL(resolve(import.meta.dirname, 'answer-hold-hook.mjs')).href;
export const MEMBER = '500000000000000002';
/** Four members who press one letter each on the probe's quiz: one of them answers right. */
export const PROBES = ['500000000000000011', '500000000000000012', '500000000000000013', '500000000000000014'];

export interface BotProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

export interface QuizPlace {
  guildId: string;
  channelId: string;
  messageId: string;
  correct: number;
}

export type AnswerWorld = Awaited<ReturnType<typeof answerWorld>>;

/** `servers` servers of one quiz channel each, subscribed with the quiz on, owed today's post from the first pass. */
export async function answerWorld(location: StoreLocation, servers: number, cleanups: Array<() => Promise<void> | void>) {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const service = await startWotdService({ dbPath: WORDS, variant: 'A', port: 0, rateLimitPerMinute: 0 });
  cleanups.push(() => service.close());
  const members = [MEMBER, ...PROBES].map((id, i) => ({ id, username: `member${i}` }));
  const guilds = Array.from({ length: servers }, (_, i) => discord.addGuild({ name: `words-${i}`, members, channels: [{ name: 'quiz' }] }));
  const subscriptions = await SubscriptionStore.open(location);
  for (const guild of guilds) {
    const channelId = guild.channelId('quiz');
    await subscriptions.upsert(guild.id, channelId, 100, () => makeSubscription({ guildId: guild.id, channelId, time: '00:00', quiz: true }));
  }
  await subscriptions.close();
  const env = childEnv({
    ...storeEnv(location),
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    WOTD_API_URL: service.url,
    WOTD_API_VARIANT: 'A',
    WOTD_MIRROR: 'off',
    WOTD_RATE_LIMIT: '600',
    LOG_LEVEL: 'warn',
  }, ['NODE_OPTIONS']);
  const today = utcDateOf(new Date());
  let readies = 0;
  const running = new Set<BotProcess>();
  cleanups.push(() => {
    for (const bot of running) bot.child.kill('SIGKILL');
  });

  /** A bot process, connected; `hook` sets WOTD_TEST_ANSWER_HOLD / _TRACE (see answer-hold-hook.mjs). */
  async function start(hook: Record<string, string> = {}): Promise<BotProcess> {
    const child = spawn(process.execPath, ['--import', HOOK, BIN, 'start'], { env: { ...env, ...hook }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, signal) => done({ code, signal })));
    const bot = { child, exited, stderr: () => stderr };
    running.add(bot);
    void exited.then(() => running.delete(bot));
    readies += 1;
    await Promise.race([discord.waitForReady(readies, 30_000), exited.then(() => Promise.reject(new Error(`the bot stopped at start:\n${stderr}`)))]);
    return bot;
  }

  /** SIGKILL, and on PostgreSQL until the server has ended the dead process's sessions (its store lock with them). */
  async function kill(bot: BotProcess): Promise<void> {
    const pid = bot.child.pid;
    bot.child.kill('SIGKILL');
    expect((await bot.exited).signal).toBe('SIGKILL');
    if (!location.url.startsWith('postgres')) return;
    await expect
      .poll(async () => (await postgresAdmin().query('SELECT 1 FROM pg_stat_activity WHERE application_name LIKE $1', [`%pid ${pid}`])).rowCount, { timeout: 30_000, interval: 100 })
      .toBe(0);
  }

  async function stop(bot: BotProcess): Promise<void> {
    bot.child.kill('SIGTERM');
    expect(await bot.exited, bot.stderr()).toMatchObject({ code: 0 });
  }

  /** Every channel's quiz as recorded, and for the member a right answer the day before in each server. */
  async function quizzes(): Promise<QuizPlace[]> {
    const store = await openLearningStore(location);
    try {
      const places: QuizPlace[] = [];
      for (const guild of guilds) {
        const channelId = guild.channelId('quiz');
        const quiz = await store.getQuiz(channelId, today);
        expect(quiz?.messageId).toBe(discord.messagesIn(channelId)[0]?.id);
        if (!quiz) throw new Error(`no quiz in ${channelId}`);
        places.push({ guildId: guild.id, channelId, messageId: quiz.messageId, correct: quiz.correct });
        const yesterday = addDays(today, -1);
        await store.registerQuiz({ channelId, day: yesterday, guildId: guild.id, messageId: `m-${yesterday}`, entryDate: yesterday, correct: 0, closesAt: Date.now() + 7 * 86_400_000, language: null });
        await store.answerQuiz({ channelId, day: yesterday, guildId: guild.id, userId: MEMBER, choice: 0, correct: true, answeredAt: Date.now() });
      }
      return places;
    } finally {
      await store.close();
    }
  }

  const press = (place: QuizPlace, choice: number, user = MEMBER) =>
    discord.pressButton({ customId: `quiz:day:${today}:${choice}`, channelId: place.channelId, user, messageId: place.messageId });

  return { discord: discord as DiscordServer, guilds, today, start, kill, stop, quizzes, press };
}

/** The lines the hook wrote naming the steps of `channelId`'s answers. */
export function stepsTraced(stderr: string, channelId: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith(`answer-hold: step `) && line.includes(` of ${channelId}: `));
}
