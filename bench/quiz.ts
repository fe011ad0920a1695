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
 * server is not there): p99 of the top ten plus a random member's rank, as bench/board.ts measures it (whose
 * bench:leaderboard gives more of its figures). Storage: bytes per streak member and per saved word, from the
 * store's own size figures before and after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Events, MessageFlags, type Client } from 'discord.js';
import { commands } from '../commands/index.ts';
import { hideChannelCacheWarning } from '../src/cli/process-warnings.ts';
import { createLogger } from '../src/config/logger.ts';
import { startDiscordBot } from '../src/discord/bot.ts';
import { createDiscordClient } from '../src/discord/client.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { LearningService } from '../src/learning/learning-service.ts';
import { openLearningStore } from '../src/learning/open-learning-store.ts';
import { wordListOf } from '../src/learning/word-list.ts';
import { startDiscordServer, type InteractionHandle } from '../test/support/discord/index.ts';
import { startCommandWorld } from '../test/commands/world.ts';
import { measureBoard, percentile } from './board.ts';
import { benchBackends, type BenchBackend } from './store-backends.ts';

hideChannelCacheWarning();
const LEVELS = (process.env.QUIZ_LEVELS ?? '100,1000').split(',').map(Number);
const SPREAD_MS_PER_MEMBER = 5;
const DAY = '2025-01-20';
/** The warm-up's own quiz day and members: a round of presses each bot answers first, not measured nor counted. */
const WARM_DAY = '2025-01-19';
const WARM_MEMBERS = 20;
const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const logger = createLogger({ level: process.env.QUIZ_LOG ? 'debug' : 'silent', ...(process.env.QUIZ_LOG ? {} : { destination: quiet }) });

/** Presses in a round: every member presses twice. */
const handlesPer = (members: number): number => members * 2;

async function answering(members: number): Promise<Record<string, string | number>> {
  const discord = await startDiscordServer();
  const ids = Array.from({ length: members }, (_, i) => String(600_000_000_000_000_000n + BigInt(i)));
  const warmIds = Array.from({ length: WARM_MEMBERS }, (_, i) => String(700_000_000_000_000_000n + BigInt(i)));
  const guild = discord.addGuild({ name: 'Quiz', members: [...ids, ...warmIds].map((id, i) => ({ id, username: `m${i}` })), channels: [{ name: 'daily' }] });
  const channel = guild.channelId('daily');
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  await runDeployCommands([], { env, stdout: quiet, stderr: quiet, commands });
  const words = await startCommandWorld();
  const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-quiz-'));
  const store = await openLearningStore({ url: `sqlite://${join(dir, 'store.sqlite')}` });
  const learning = new LearningService(store, wordListOf(words.adapter));
  try {
    const bot = await startDiscordBot({ config: { ...env, DISCORD_APPLICATION_ID: undefined }, commands, services: { ...words.services, logger, learning }, logger });
    // The quiz posts, as the daily poster makes them: our bot's message with the four buttons, recorded in the store
    // (the measured day's, and the warm-up's).
    const postQuiz = async (day: string): Promise<string> => {
      const post = (await bot.client.rest.post(`/channels/${channel}/messages`, {
        body: { content: 'quiz', components: [{ type: 1, components: [0, 1, 2, 3].map((i) => ({ type: 2, style: 2, label: 'ABCD'[i], custom_id: `quiz:day:${day}:${i}` })) }] },
      })) as { id: string };
      await store.registerQuiz({ channelId: channel, day, guildId: guild.id, messageId: post.id, entryDate: day, correct: 1, closesAt: Date.now() + 3_600_000, language: null });
      await words.adapter.getEntry(day);
      return post.id;
    };
    const post = { id: await postQuiz(DAY) };
    const warmPost = await postQuiz(WARM_DAY);
    // Every member presses within SPREAD_MS_PER_MEMBER × members (0.5 s at 100, 5 s at 1,000), and presses again
    // (another letter) right after: the double press.
    // The process's CPU time (user + system) over a round of presses, per press: the local server's share is the
    // same for both bots, so the difference is the bot's own work, and a loaded machine changes it less than latency.
    const cpu = { ms: 0 };
    const press = async (round = { users: ids, day: DAY, messageId: post.id }): Promise<number[]> => {
      const handles: InteractionHandle[] = [];
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      for (const [index, user] of round.users.entries()) {
        const due = started + index * SPREAD_MS_PER_MEMBER;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
        handles.push(discord.pressButton({ customId: `quiz:day:${round.day}:${index % 4}`, channelId: channel, user, messageId: round.messageId }));
        handles.push(discord.pressButton({ customId: `quiz:day:${round.day}:${(index + 1) % 4}`, channelId: channel, user, messageId: round.messageId }));
      }
      await Promise.all(handles.map((handle) => handle.waitForCallback(30_000).catch(() => undefined)));
      const used = process.cpuUsage(cpuBefore);
      cpu.ms = (used.user + used.system) / 1000;
      return handles.map((handle) => (handle.callback ? handle.callback.at - handle.sentAt : Infinity));
    };
    // A first round warms each bot up (compiled code, prepared statements, connections), as a bot that has answered
    // before has it: the measured round is the steady state, for both bots alike.
    const warmUp = { users: warmIds, day: WARM_DAY, messageId: warmPost };
    await press(warmUp);
    process.stderr.write(`bench quiz: ${members} members, our bot\n`);
    const ours = await press();
    const oursCpu = cpu.ms / handlesPer(members);
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
    await press(warmUp);
    process.stderr.write(`bench quiz: ${members} members, the baseline\n`);
    const baseline = await press();
    const baselineCpu = cpu.ms / handlesPer(members);
    await client.destroy();
    return {
      [`m${members}_p99_ms`]: Math.round(percentile(ours, 0.99)),
      [`m${members}_baseline_p99_ms`]: Math.round(percentile(baseline, 0.99)),
      [`m${members}_ratio`]: (percentile(ours, 0.99) / percentile(baseline, 0.99)).toFixed(2),
      [`m${members}_cpu_ms_per_press`]: oursCpu.toFixed(2),
      [`m${members}_baseline_cpu_ms_per_press`]: baselineCpu.toFixed(2),
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

async function board(backend: BenchBackend): Promise<Record<string, string | number>> {
  const figures = await measureBoard(backend, { savedWords: true });
  if (!figures) return { [`board_${backend.name}`]: 'skipped' };
  return {
    [`board_${backend.name}_p99_ms`]: figures.p99,
    [`${backend.name}_bytes_per_member`]: figures.bytesPerMember,
    [`${backend.name}_bytes_per_saved_word`]: figures.bytesPerSavedWord ?? NaN,
  };
}

const fields: Record<string, string | number> = {};
for (const members of LEVELS) Object.assign(fields, await answering(members));
// QUIZ_BOARD=off: the answering only, for quick turns.
if (process.env.QUIZ_BOARD !== 'off') for (const backend of benchBackends) Object.assign(fields, await board(backend));
process.stdout.write(`bench quiz: ${Object.entries(fields).map(([key, value]) => `${key}=${value}`).join(' ')}\n`);
process.exit(0);
