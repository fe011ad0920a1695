/**
 * npm run bench:quiz — the daily quiz under load, the leaderboard at 100,000 members, and what the learning data
 * costs in the store. One line: `bench quiz: …`.
 *
 * Answering: a server of MEMBERS (100, then 1,000) members, one daily quiz post made by our bot (the real
 * startDiscordBot, the real router and /wotd-quiz's button, the learning store on a temp SQLite file, and the channel's
 * subscription with the quiz on in the same file, asked on each press as the bot asks it; QUIZ_STORE=postgres or
 * redis puts both in a PostgreSQL schema or under a Redis key prefix of their own instead), every member
 * pressing an answer within the same moment and then pressing again (a double press). The baseline is a bare
 * discord.js Client (the same createDiscordClient) answering every press with one constant private message, driven
 * by the same presses in the same run. As in bench:commands, the local Discord server and the presses run on the main
 * thread and each bot on a worker thread of its own (bench/bot-worker.ts), as it would run in a process of its own, so
 * the server's work does not queue in front of the bot's; only one bot is connected at a time, ours first. Each bot
 * first answers a warm-up round (another day's quiz, WARM_MEMBERS other members; not measured nor counted).
 *
 * Latency is what the local Discord server measures from INTERACTION_CREATE sent to the interaction callback
 * received: its median (`p50`) and 99th percentile (`p99`, and `ratio`, ours over the baseline's). `cpu_ms_per_press` is the bot thread's own CPU time over the measured round (Linux's schedstat; its
 * event-loop busy time off Linux) per press; `other_threads_cpu_ms_per_press` that of the process's threads that are
 * neither the main thread nor a bot's (libuv's pool, where node-sqlite3 runs our statements, and V8's helpers).
 * `lost` counts members whose answer is not stored, `doubled` answers counted twice (the quiz's `answered` above the
 * members, or right answers and streak records apart), both read from our bot's store after its round.
 *
 * Leaderboard: 100,000 members with streaks in one server, on SQLite, PostgreSQL and Redis (each skipped when its
 * server is not there): p99 of the top ten plus a random member's rank, as bench/board.ts measures it (whose
 * bench:leaderboard gives more of its figures). Storage: bytes per streak member and per saved word, from the
 * store's own size figures before and after.
 */
import { Writable } from 'node:stream';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
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
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import { startDiscordServer, type DiscordServer, type InteractionHandle } from '../test/support/discord/index.ts';
import { startCommandWorld } from '../test/commands/world.ts';
import { makeSubscription } from '../test/schedule/helpers.ts';
import { measureBoard, percentile } from './board.ts';
import { startBotWorker, threadId, threadSchedstat, type BotWorker } from './bot-worker.ts';
import { benchBackends, type BenchBackend } from './store-backends.ts';
import { threadCpu, threadCpuSince } from './thread-cpu.ts';

// Each bot thread makes its client here too, as bin/wotd-bot.js's process would.
hideChannelCacheWarning();
const LEVELS = (process.env.QUIZ_LEVELS ?? '100,1000').split(',').map(Number);
const SPREAD_MS_PER_MEMBER = 5;
const DAY = '2025-01-20';
/** The warm-up's own quiz day and members: a round of presses each bot answers first, not measured nor counted. */
const WARM_DAY = '2025-01-19';
const WARM_MEMBERS = 20;
const QUIZ_BACKEND = ((name) => {
  const found = benchBackends.find((backend) => backend.name === name);
  if (!found) throw new Error(`QUIZ_STORE=${name}: expected one of ${benchBackends.map((backend) => backend.name).join(', ')}`);
  return found;
})(process.env.QUIZ_STORE?.trim() || 'sqlite');
const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });

type BotKind = 'ours' | 'baseline';

interface BotData {
  kind: BotKind;
  apiUrl: string;
  token: string;
  guildId: string;
  channelId: string;
}

/** What our bot's store holds for the measured day after its round. */
interface Stored {
  answered: number;
  right: number;
  /** Members with a streak record: one per right answer. */
  streaks: number;
}

type ToBot =
  | { cmd: 'connect' }
  /** Ours only: the quiz posts of these days, as the daily poster makes them. */
  | { cmd: 'post'; days: string[] }
  | { cmd: 'usage' }
  /** Stops the bot; ours then reads what its store holds for these members. */
  | { cmd: 'disconnect'; members: string[] }
  | { cmd: 'close' };
type FromBot =
  | { kind: 'ready'; tid: string | undefined }
  | { kind: 'connected' }
  | { kind: 'posted'; messageIds: string[] }
  /** The thread's CPU time and event-loop busy time so far, in ms. */
  | { kind: 'usage'; cpuMs: number; busyMs: number }
  | { kind: 'disconnected'; stored: Stored | null; internal: number[] }
  | { kind: 'closed' };

type QuizBot = BotWorker<BotKind, ToBot, FromBot>;

// ---------------------------------------------------------------------------------------------------------------
// The bots' side (worker threads)
// ---------------------------------------------------------------------------------------------------------------

async function connectBaseline(data: BotData): Promise<{ stop(): Promise<void> }> {
  const client: Client = createDiscordClient({ apiUrl: data.apiUrl });
  client.on(Events.InteractionCreate, (interaction) => {
    if (interaction.isButton()) void interaction.reply({ content: 'Right!', flags: MessageFlags.Ephemeral }).catch((error: unknown) => process.stderr.write(`baseline: ${String(error)}\n`));
  });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(data.token);
  await ready;
  return { stop: () => client.destroy() };
}

async function runBot(data: BotData, port: NonNullable<typeof parentPort>): Promise<void> {
  const logger = createLogger({ level: process.env.QUIZ_LOG ? 'debug' : 'silent', ...(process.env.QUIZ_LOG ? {} : { destination: quiet }) });
  const words = data.kind === 'ours' ? await startCommandWorld() : null;
  // QUIZ_STORE: the store our bot answers on (a temp SQLite file by default, or a PostgreSQL schema or Redis prefix).
  const backend = words ? QUIZ_BACKEND : null;
  const location = backend ? await backend.location() : null;
  if (backend && !location) throw new Error(`QUIZ_STORE=${backend.name}: its server is not there`);
  const store = location ? await openLearningStore(location) : null;
  // The channel's subscription, with the quiz on, in the same store: each press asks it as the bot's does.
  const subscriptions = location ? await SubscriptionStore.open(location) : null;
  await subscriptions?.upsert(data.guildId, data.channelId, 5, () => makeSubscription({ guildId: data.guildId, channelId: data.channelId, quiz: true }));
  const learning = store && words && subscriptions ? new LearningService(store, wordListOf(words.adapter), { quizChannel: subscriptions.quizOn }) : undefined;
  const env = { DISCORD_TOKEN: data.token, DISCORD_API_URL: data.apiUrl };
  let ourBot: Awaited<ReturnType<typeof startDiscordBot>> | null = null;
  let connected: { stop(): Promise<void> } | null = null;
  const send = (message: FromBot) => port.postMessage(message);
  // Our bot's own time per press, from the interaction's receipt to its first callback handed to discord.js.
  const internal: number[] = [];

  // The quiz post, as the daily poster makes it: our bot's message with the four buttons, recorded in the store.
  const postQuiz = async (day: string): Promise<string> => {
    if (!ourBot || !store || !words) throw new Error('only our bot, connected, posts quizzes');
    const post = (await ourBot.client.rest.post(`/channels/${data.channelId}/messages`, {
      body: { content: 'quiz', components: [{ type: 1, components: [0, 1, 2, 3].map((i) => ({ type: 2, style: 2, label: 'ABCD'[i], custom_id: `quiz:day:${day}:${i}` })) }] },
    })) as { id: string };
    await store.registerQuiz({ channelId: data.channelId, day, guildId: data.guildId, messageId: post.id, entryDate: day, correct: 1, closesAt: Date.now() + 3_600_000, language: null });
    await words.adapter.getEntry(day);
    return post.id;
  };

  const storedFor = async (members: string[]): Promise<Stored | null> => {
    if (!store) return null;
    const quiz = await store.getQuiz(data.channelId, DAY);
    const streaks = (await Promise.all(members.map((id) => store.streak(data.guildId, id)))).filter(Boolean).length;
    return { answered: quiz?.answered ?? 0, right: quiz?.right ?? 0, streaks };
  };

  port.on('message', (message: ToBot) => {
    void (async () => {
      if (message.cmd === 'connect') {
        if (words) {
          ourBot = await startDiscordBot({
            config: { ...env, DISCORD_APPLICATION_ID: undefined },
            commands,
            services: { ...words.services, logger, learning },
            logger,
            onInteractionDone: (timing) => {
              if (timing.firstSentAt !== null) internal.push(timing.firstSentAt - timing.receivedAt);
            },
          });
          connected = ourBot;
        } else connected = await connectBaseline(data);
        send({ kind: 'connected' });
      } else if (message.cmd === 'post') {
        const messageIds: string[] = [];
        for (const day of message.days) messageIds.push(await postQuiz(day));
        send({ kind: 'posted', messageIds });
      } else if (message.cmd === 'usage') {
        const { cpuMs } = threadSchedstat();
        const busyMs = performance.eventLoopUtilization().active;
        send({ kind: 'usage', cpuMs: Number.isNaN(cpuMs) ? busyMs : cpuMs, busyMs });
      } else if (message.cmd === 'disconnect') {
        await connected?.stop();
        connected = null;
        ourBot = null;
        send({ kind: 'disconnected', stored: await storedFor(message.members), internal: internal.splice(0) });
      } else {
        await store?.close();
        await subscriptions?.close();
        await words?.close();
        if (backend && location) await backend.drop(location);
        send({ kind: 'closed' });
      }
    })();
  });
  send({ kind: 'ready', tid: threadId() });
}

// ---------------------------------------------------------------------------------------------------------------
// The harness's side (main thread)
// ---------------------------------------------------------------------------------------------------------------

interface Round {
  users: string[];
  day: string;
  messageId: string;
}

/** A round's latencies (Infinity for a press never acknowledged) and the CPU it cost, per press. */
interface RoundResult {
  latencies: number[];
  cpuMsPerPress: number;
  otherThreadsCpuMsPerPress: number;
}

/**
 * Every member presses within SPREAD_MS_PER_MEMBER × members (0.5 s at 100, 5 s at 1,000), and presses again
 * (another letter) right after: the double press.
 */
async function press(discord: DiscordServer, channelId: string, round: Round): Promise<InteractionHandle[]> {
  const handles: InteractionHandle[] = [];
  const started = performance.now();
  for (const [index, user] of round.users.entries()) {
    const due = started + index * SPREAD_MS_PER_MEMBER;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    handles.push(discord.pressButton({ customId: `quiz:day:${round.day}:${index % 4}`, channelId, user, messageId: round.messageId }));
    handles.push(discord.pressButton({ customId: `quiz:day:${round.day}:${(index + 1) % 4}`, channelId, user, messageId: round.messageId }));
  }
  await Promise.all(handles.map((handle) => handle.waitForCallback(30_000).catch(() => undefined)));
  return handles;
}

/**
 * A warm-up round first (compiled code, prepared statements, connections, as a bot that has answered before has
 * them), then the measured one: the steady state, for both bots alike.
 */
async function measure(bot: QuizBot, discord: DiscordServer, channelId: string, warmUp: Round, measured: Round, botTids: string[]): Promise<RoundResult> {
  await press(discord, channelId, warmUp);
  process.stderr.write(`bench quiz: ${measured.users.length} members, ${bot.kind === 'ours' ? 'our bot' : 'the baseline'}\n`);
  const before = await bot.ask({ cmd: 'usage' }, 'usage');
  const othersBefore = threadCpu(botTids);
  const handles = await press(discord, channelId, measured);
  const others = threadCpuSince(othersBefore, botTids).others;
  const after = await bot.ask({ cmd: 'usage' }, 'usage');
  return {
    latencies: handles.map((handle) => (handle.callback ? handle.callback.at - handle.sentAt : Infinity)),
    cpuMsPerPress: (after.cpuMs - before.cpuMs) / handles.length,
    otherThreadsCpuMsPerPress: others / handles.length,
  };
}

async function answering(members: number): Promise<Record<string, string | number>> {
  const discord = await startDiscordServer();
  const ids = Array.from({ length: members }, (_, i) => String(600_000_000_000_000_000n + BigInt(i)));
  const warmIds = Array.from({ length: WARM_MEMBERS }, (_, i) => String(700_000_000_000_000_000n + BigInt(i)));
  const guild = discord.addGuild({ name: 'Quiz', members: [...ids, ...warmIds].map((id, i) => ({ id, username: `m${i}` })), channels: [{ name: 'daily' }] });
  const channelId = guild.channelId('daily');
  await runDeployCommands([], { env: { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl }, stdout: quiet, stderr: quiet, commands });
  const start = (kind: BotKind): QuizBot =>
    startBotWorker<BotKind, ToBot, FromBot>(import.meta.url, { kind, apiUrl: discord.apiUrl, token: discord.token, guildId: guild.id, channelId });
  const ours = start('ours');
  const baseline = start('baseline');
  try {
    const ready = await Promise.all([ours.ask(null, 'ready'), baseline.ask(null, 'ready')]);
    const botTids = ready.flatMap((reply) => (reply.tid ? [reply.tid] : []));
    await ours.ask({ cmd: 'connect' }, 'connected');
    const { messageIds } = await ours.ask({ cmd: 'post', days: [DAY, WARM_DAY] }, 'posted');
    const [postId, warmPostId] = messageIds;
    if (!postId || !warmPostId) throw new Error('our bot made no quiz post');
    // The baseline's presses go to the same posts; it reads nothing from them, only the callbacks' timing counts.
    const measured: Round = { users: ids, day: DAY, messageId: postId };
    const warmUp: Round = { users: warmIds, day: WARM_DAY, messageId: warmPostId };
    const oursResult = await measure(ours, discord, channelId, warmUp, measured, botTids);
    const { stored, internal } = await ours.ask({ cmd: 'disconnect', members: ids }, 'disconnected');
    // The measured round's presses are the last ones our bot handled (the warm-up's came first).
    const own = internal.slice(-oursResult.latencies.length).sort((a, b) => a - b);
    await baseline.ask({ cmd: 'connect' }, 'connected');
    const baselineResult = await measure(baseline, discord, channelId, warmUp, measured, botTids);
    await baseline.ask({ cmd: 'disconnect', members: [] }, 'disconnected');
    await Promise.all([ours.ask({ cmd: 'close' }, 'closed'), baseline.ask({ cmd: 'close' }, 'closed')]);
    const [p99, baselineP99] = [percentile(oursResult.latencies, 0.99), percentile(baselineResult.latencies, 0.99)];
    const answered = stored?.answered ?? 0;
    return {
      [`m${members}_p50_ms`]: Math.round(percentile(oursResult.latencies, 0.5)),
      [`m${members}_baseline_p50_ms`]: Math.round(percentile(baselineResult.latencies, 0.5)),
      [`m${members}_p99_ms`]: Math.round(p99),
      [`m${members}_baseline_p99_ms`]: Math.round(baselineP99),
      [`m${members}_ratio`]: (p99 / baselineP99).toFixed(2),
      [`m${members}_internal_p50_ms`]: percentile(own, 0.5).toFixed(1),
      [`m${members}_internal_p99_ms`]: percentile(own, 0.99).toFixed(1),
      [`m${members}_cpu_ms_per_press`]: oursResult.cpuMsPerPress.toFixed(2),
      [`m${members}_baseline_cpu_ms_per_press`]: baselineResult.cpuMsPerPress.toFixed(2),
      [`m${members}_other_threads_cpu_ms_per_press`]: oursResult.otherThreadsCpuMsPerPress.toFixed(2),
      [`m${members}_baseline_other_threads_cpu_ms_per_press`]: baselineResult.otherThreadsCpuMsPerPress.toFixed(2),
      [`m${members}_unanswered`]: oursResult.latencies.filter((latency) => latency === Infinity).length,
      [`m${members}_baseline_unanswered`]: baselineResult.latencies.filter((latency) => latency === Infinity).length,
      // Every member's first press is the one stored: one answer each, and one streak record per right answer.
      [`m${members}_lost`]: Math.max(0, members - answered),
      [`m${members}_doubled`]: Math.max(0, answered - members) + Math.abs((stored?.right ?? 0) - (stored?.streaks ?? 0)),
    };
  } finally {
    await Promise.all([ours.worker.terminate(), baseline.worker.terminate()]);
    await discord.close();
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

async function main(): Promise<void> {
  const fields: Record<string, string | number> = { store: QUIZ_BACKEND.name };
  for (const members of LEVELS) Object.assign(fields, await answering(members));
  // QUIZ_BOARD=off: the answering only, for quick turns.
  if (process.env.QUIZ_BOARD !== 'off') for (const backend of benchBackends) Object.assign(fields, await board(backend));
  process.stdout.write(`bench quiz: ${Object.entries(fields).map(([key, value]) => `${key}=${value}`).join(' ')}\n`);
  process.exit(0);
}

if (isMainThread) await main();
else if (parentPort) await runBot(workerData as BotData, parentPort);
