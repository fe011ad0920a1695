/**
 * npm run bench:commands — our bot beside a minimal discord.js bot, in the same run, against the same local
 * Discord-compatible server, driven by the same load generator.
 *
 * An absolute latency on a shared two-core machine says as much about the machine as about the bot; a ratio to a
 * baseline measured in the same minutes does not. The local Discord server and the load generator run on the main
 * thread; each bot runs on a worker thread of its own, as it would run in a process of its own:
 *
 * - ours: startDiscordBot (the real discord.js Client) with the real adapter in front of our own Word-of-the-Day
 *   service (temp SQLite word list, temp SQLite cache), the cache warmed first, and the subscription service on a
 *   temp SQLite store (every command asks it whether the member is owed a DM notice, as in production);
 * - baseline: a discord.js Client made by the same createDiscordClient (so the same Guilds intent, cache limits,
 *   allowed mentions and REST settings, which are what shape discord.js's cost) that answers every command and
 *   button with one constant embed and every autocomplete with one constant choice.
 *
 * Only one bot is connected at a time. In each round both run, in the order baseline-ours, then ours-baseline in
 * the next round, so drift in the machine's load (and in the fake server's growing record of everything) hits both
 * alike. Each run warms up with 300 interactions (not counted), then sends COMMANDS_INTERACTIONS at concurrency 100
 * and as many at concurrency 10: /wotd for a date (40%), /wotd-history (20%), /wotd-find (20%), "Older" presses
 * (10%) and autocomplete (10%). Latency is what the server measures from INTERACTION_CREATE sent to the interaction
 * callback received; "late" counts interactions not acknowledged within Discord's 3 s. Our bot also reports, through
 * the router's onInteractionDone, its own time from receiving the interaction to handing its first callback to discord.js.
 * Figures are medians over the rounds; the ratio is ours_p99 / baseline_p99 at each concurrency.
 *
 * Options (environment): COMMANDS_ROUNDS (7), COMMANDS_INTERACTIONS (2000), COMMANDS_LOCALE (a Discord locale such as
 * `de`: every interaction comes from a member with that client language, in a server with it as preferred locale,
 * so ours answers from that catalog; unset, en-US as the harness sends by default), COMMANDS_CPU_PROFILE (a folder: each
 * bot's thread writes a V8 CPU profile of each of its runs there, warm-up included, e.g. ours-round1.cpuprofile;
 * `npx tsx bench/cpuprofile-top.ts FILE` lists where the time went), COMMANDS_HEAP_PROFILE (a folder: the same for
 * allocations, as .heapprofile files, which cpuprofile-top.ts also reads), COMMANDS_BESIDE_TICKS (a store that
 * `npm run bench:tick -- --states sent --keep` seeded, as the JSON location its `--reuse` line prints: the two bots are
 * then ours alone and ours with the daily scheduler of that store ticking in its thread, four ticks a second; see
 * bench/ticking-scheduler.ts. The line's `baseline_` figures are then the idle bot's, and it adds the ticks' count).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Events, type APIEmbed, type Client, type Interaction } from 'discord.js';
import { commands } from '../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../src/discord/bot.ts';
import { createDiscordClient } from '../src/discord/client.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { createLogger } from '../src/config/logger.ts';
import { createSubscriptionService } from '../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { StoreLocation } from '../src/store/open-store.ts';
import { hideChannelCacheWarning } from '../src/cli/process-warnings.ts';
import { startDiscordServer, type DiscordServer, type InteractionHandle } from '../test/support/discord/index.ts';
import { sampleEntries, SITE_URL, startWotdWorld, TODAY } from '../test/discord/world.ts';
import { startBotWorker, threadSchedstat, type BotWorker } from './bot-worker.ts';
import { openTickingScheduler } from './ticking-scheduler.ts';

// Each bot thread makes its client here, as bin/wotd-bot.js's process would.
hideChannelCacheWarning();

const ROUNDS = positiveSetting('COMMANDS_ROUNDS', 7);
const LOCALE = process.env.COMMANDS_LOCALE?.trim() || undefined;
const localized = LOCALE ? { locale: LOCALE } : {};
const INTERACTIONS = positiveSetting('COMMANDS_INTERACTIONS', 2_000);
const LEVELS = [100, 10] as const;
const WARM_UP = 300;
const WARM_UP_CONCURRENCY = 100;
const DEADLINE_MS = 3_000;
/** Interaction callback types of a deferral. */
const DEFERRED_REPLY = 5;
const DEFERRED_UPDATE = 6;

type BotKind = 'ours' | 'baseline' | 'ticking';

/** Garbage collections on the bot's thread while connected: how many, their total and their longest pause. */
interface GcTally {
  count: number;
  /** Of them, full (mark-compact) collections: the long pauses, whose length grows with what the heap keeps. */
  major: number;
  totalMs: number;
  maxMs: number;
}

interface BotData {
  apiUrl: string;
  token: string;
  kind: BotKind;
  /** For 'ticking': the store whose scheduler ticks beside the bot. */
  ticksStore?: StoreLocation;
}

type ToBot = { cmd: 'connect'; profileAs?: string } | { cmd: 'disconnect' } | { cmd: 'close' };
type FromBot =
  | { kind: 'ready' }
  | { kind: 'connected' }
  /** Our bot's own time per interaction (receipt to first callback accepted), by interaction id. */
  | { kind: 'disconnected'; internal: Array<[string, number]>; busyMs: number; cpuMs: number; runQueueMs: number; gc: GcTally; ticks: { ticks: number; busy: number; maxWallMs: number } | null }
  | { kind: 'closed'; upstreamRequests: number };

function positiveSetting(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name}=${JSON.stringify(raw)}: expected a whole number of at least 1`);
  return value;
}

/** COMMANDS_BESIDE_TICKS: ours with a kept store's scheduler ticking, against ours alone. */
const TICKS_STORE = ((raw) => (raw ? (JSON.parse(raw) as StoreLocation) : undefined))(process.env.COMMANDS_BESIDE_TICKS?.trim());
const MEASURED: BotKind = TICKS_STORE ? 'ticking' : 'ours';
const REFERENCE: BotKind = TICKS_STORE ? 'ours' : 'baseline';

const entries = sampleEntries().filter((entry) => entry.date.startsWith('2025-'));
const dates = entries.map((entry) => entry.date);
const words = [...new Set(entries.map((entry) => entry.word))];

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

// ---------------------------------------------------------------------------------------------------------------
// The bots' side (worker threads)
// ---------------------------------------------------------------------------------------------------------------

/** What the baseline answers: one embed of about the size of a /wotd answer, built once. */
const CONSTANT_EMBED: APIEmbed = {
  title: 'serendipity',
  url: `${SITE_URL}/2025-01-14`,
  description: '*noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/*\n\nThe faculty of finding valuable or agreeable things not sought for.',
  footer: { text: `Word of the day for 14 January 2025 · ${SITE_URL}` },
  color: 0x5865f2,
};

function answerConstantly(interaction: Interaction): Promise<unknown> {
  if (interaction.isAutocomplete()) return interaction.respond([{ name: 'serendipity', value: 'serendipity' }]);
  if (interaction.isRepliable()) return interaction.reply({ embeds: [CONSTANT_EMBED] });
  return Promise.resolve();
}

async function connectBaseline(data: BotData): Promise<{ stop(): Promise<void> }> {
  const client: Client = createDiscordClient({ apiUrl: data.apiUrl });
  client.on(Events.InteractionCreate, (interaction) => {
    answerConstantly(interaction).catch((error: unknown) => process.stderr.write(`baseline: could not answer: ${String(error)}\n`));
  });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(data.token);
  await ready;
  return { stop: () => client.destroy() };
}

/**
 * Profiles this thread between start() and stop(): its CPU time when COMMANDS_CPU_PROFILE names a folder, its
 * allocations (V8's sampling heap profiler) when COMMANDS_HEAP_PROFILE does.
 */
function threadProfiler(): { start(name: string | undefined): Promise<void>; stop(): Promise<void> } {
  const cpuDir = process.env.COMMANDS_CPU_PROFILE?.trim();
  const heapDir = process.env.COMMANDS_HEAP_PROFILE?.trim();
  if (!cpuDir && !heapDir) return { start: () => Promise.resolve(), stop: () => Promise.resolve() };
  for (const dir of [cpuDir, heapDir]) if (dir) mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  let current: string | undefined;
  return {
    async start(name) {
      current = name;
      if (!name) return;
      if (cpuDir) {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      }
      if (heapDir) {
        await session.post('HeapProfiler.enable');
        // Samples kept even after the object is collected: what was allocated, not what was left.
        await session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      }
    },
    async stop() {
      if (!current) return;
      if (cpuDir) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(join(cpuDir, `${current}.cpuprofile`), JSON.stringify(profile));
      }
      if (heapDir) {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        writeFileSync(join(heapDir, `${current}.heapprofile`), JSON.stringify(profile));
      }
      current = undefined;
    },
  };
}

async function runBot(data: BotData, port: NonNullable<typeof parentPort>): Promise<void> {
  // Warnings and errors stay visible: a failing interaction must not pass unnoticed.
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const wotd = data.kind === 'baseline' ? null : await startWotdWorld();
  const ticking = data.kind === 'ticking' && data.ticksStore ? await openTickingScheduler(data.ticksStore, logger) : null;
  // As in production, every command of ours also asks the subscription store (a SQLite file) whether the member is
  // owed a notice that their DM subscription was switched off.
  const storeDir = wotd ? mkdtempSync(join(tmpdir(), 'wotd-bench-commands-')) : null;
  const store = storeDir ? await SubscriptionStore.open(`sqlite://${join(storeDir, 'subscriptions.sqlite')}`, logger) : null;
  const subscriptions = store ? createSubscriptionService({ store, limit: 50 }) : undefined;
  if (wotd) {
    for (const date of dates) await wotd.adapter.getEntry(date);
    for (const date of [TODAY, ...dates]) await wotd.adapter.getPrevious(date, 3);
    for (const word of words) await wotd.adapter.findWord(word);
  }
  const warmRequests = wotd?.proxy.requests ?? 0;
  let internal: Array<[string, number]> = [];
  let connected: { stop(): Promise<void> } | null = null;
  let loopAtConnect = performance.eventLoopUtilization();
  let schedAtConnect = threadSchedstat();
  let gc: GcTally = { count: 0, major: 0, totalMs: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major += 1;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  const profiler = threadProfiler();
  const send = (message: FromBot) => port.postMessage(message);

  port.on('message', (message: ToBot) => {
    void (async () => {
      if (message.cmd === 'connect') {
        if (wotd) {
          const bot: DiscordBot = await startDiscordBot({
            config: { DISCORD_TOKEN: data.token, DISCORD_API_URL: data.apiUrl, DISCORD_APPLICATION_ID: undefined },
            commands,
            services: { lookup: wotd.adapter, siteUrl: SITE_URL, logger, subscriptions },
            logger,
            onInteractionDone: (timing) => {
              if (timing.firstSentAt !== null) internal.push([timing.interactionId, timing.firstSentAt - timing.receivedAt]);
            },
          });
          connected = bot;
        } else connected = await connectBaseline(data);
        ticking?.start();
        await profiler.start(message.profileAs);
        loopAtConnect = performance.eventLoopUtilization();
        schedAtConnect = threadSchedstat();
        gc = { count: 0, major: 0, totalMs: 0, maxMs: 0 };
        send({ kind: 'connected' });
      } else if (message.cmd === 'disconnect') {
        // The thread's event loop was busy this long (not waiting for I/O) while connected: its cost, less queueing.
        const busyMs = performance.eventLoopUtilization(loopAtConnect).active;
        const sched = threadSchedstat();
        const cpuMs = sched.cpuMs - schedAtConnect.cpuMs;
        const runQueueMs = sched.runQueueMs - schedAtConnect.runQueueMs;
        await profiler.stop();
        const ticks = ticking ? await ticking.stop() : null;
        await connected?.stop();
        connected = null;
        send({ kind: 'disconnected', internal, busyMs, cpuMs, runQueueMs, gc, ticks });
        internal = [];
      } else {
        const upstreamRequests = (wotd?.proxy.requests ?? 0) - warmRequests;
        await wotd?.close();
        await ticking?.close();
        await store?.close();
        if (storeDir) rmSync(storeDir, { recursive: true, force: true });
        send({ kind: 'closed', upstreamRequests });
      }
    })();
  });
  send({ kind: 'ready' });
}

// ---------------------------------------------------------------------------------------------------------------
// The harness's side (main thread)
// ---------------------------------------------------------------------------------------------------------------

type CommandsBot = BotWorker<BotKind, ToBot, FromBot>;

interface LoadResult {
  latencies: number[];
  late: number;
  /** Acknowledged by a deferral (an extra request for the answer that follows) rather than answered at once. */
  deferred: number;
  /** REST requests the server received during the load, per interaction. */
  requestsPerInteraction: number;
  elapsedMs: number;
  ids: string[];
}

interface RunResult {
  bot: BotKind;
  round: number;
  levels: Map<number, { load: LoadResult; internal: number[] }>;
  /** Event-loop busy time of the bot's thread per interaction, warm-up included. */
  busyMsPerInteraction: number;
  /** CPU time of the bot's thread per interaction, and its time waiting for a core per interaction. */
  cpuMsPerInteraction: number;
  runQueueMsPerInteraction: number;
}

/** Builds the interaction mix and drives it at a given concurrency. */
function loadGenerator(discord: DiscordServer, channelId: string, olderId: string, historyMessageIds: string[]) {
  let pressed = 0;
  const start = (index: number): InteractionHandle => {
    const pick = index % 10;
    const date = dates[index % dates.length] ?? TODAY;
    const word = words[index % words.length] ?? 'serendipity';
    if (pick < 4) return discord.invokeCommand({ name: 'wotd', options: { date }, channelId, ...localized });
    if (pick < 6) return discord.invokeCommand({ name: 'wotd-history', options: { date }, channelId, ...localized });
    if (pick < 8) return discord.invokeCommand({ name: 'wotd-find', options: { word }, channelId, ...localized });
    if (pick < 9) {
      const messageId = historyMessageIds[pressed++];
      if (!messageId) throw new Error('ran out of messages with an Older button');
      return discord.pressButton({ customId: olderId, channelId, messageId, ...localized });
    }
    return discord.startAutocomplete({ name: 'wotd-find', options: { word: word.slice(0, 2) }, focused: 'word', channelId, ...localized });
  };

  /** `count` interactions with at most `concurrency` in flight: the latency of each, and how many were late. */
  return async function load(count: number, concurrency: number): Promise<LoadResult> {
    const latencies: number[] = [];
    const ids: string[] = [];
    let late = 0;
    let deferred = 0;
    let next = 0;
    const requestsBefore = discord.requests.length;
    const began = performance.now();
    async function client(): Promise<void> {
      while (next < count) {
        const handle = start(next++);
        ids.push(handle.id);
        try {
          const callback = await handle.waitForCallback(DEADLINE_MS + 2_000);
          latencies.push(callback.latencyMs);
          if (callback.status >= 300 || callback.latencyMs > DEADLINE_MS) late += 1;
          if (callback.type === DEFERRED_REPLY || callback.type === DEFERRED_UPDATE) deferred += 1;
        } catch {
          late += 1;
        }
      }
    }
    await Promise.all(Array.from({ length: concurrency }, () => client()));
    latencies.sort((a, b) => a - b);
    const elapsedMs = performance.now() - began;
    return { latencies, late, deferred, requestsPerInteraction: (discord.requests.length - requestsBefore) / count, elapsedMs, ids };
  };
}

/** How many "Older" presses `count` interactions of the mix contain. */
const pressesIn = (count: number) => Math.ceil(count / 10);

async function main(): Promise<void> {
  const discord = await startDiscordServer({ interactionDeadlineMs: DEADLINE_MS });
  const guild = discord.addGuild({ name: 'Bench', channels: [{ name: 'general' }], ...(LOCALE ? { preferredLocale: LOCALE } : {}) });
  const channelId = guild.channelId('general');
  const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  const deployed = await runDeployCommands([], { env, stdout: discard, stderr: process.stderr, commands });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);

  const start = (kind: BotKind): CommandsBot =>
    startBotWorker<BotKind, ToBot, FromBot>(import.meta.url, { apiUrl: discord.apiUrl, token: discord.token, kind, ...(TICKS_STORE ? { ticksStore: TICKS_STORE } : {}) });
  // The bot that makes the history messages is ours in either mode; `baseline` is the reference the line compares with.
  const ours = start(MEASURED);
  const baseline = start(REFERENCE);
  const ticksSeen = { ticks: 0, busy: 0, maxWallMs: 0 };
  const log = (text: string) => process.stdout.write(`${text}\n`);
  try {
    await Promise.all([ours.ask(null, 'ready'), baseline.ask(null, 'ready')]);

    // Messages with an Older button, one for each press of every run (a press replaces its message, and with it the
    // button), made by our bot before the rounds start.
    const presses = ROUNDS * 2 * (pressesIn(WARM_UP) + LEVELS.length * pressesIn(INTERACTIONS));
    await ours.ask({ cmd: 'connect' }, 'connected');
    const historyMessages: string[] = [];
    let olderId: string | undefined;
    for (let made = 0; made < presses; made += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, presses - made) }, () =>
          discord.invokeCommand({ name: 'wotd-history', options: { date: TODAY }, channelId }).waitForResponse(10_000),
        ),
      );
      for (const message of batch) historyMessages.push(message.id);
      olderId ??= (batch[0]?.components[0] as { components: { custom_id: string }[] } | undefined)?.components[0]?.custom_id;
    }
    await ours.ask({ cmd: 'disconnect' }, 'disconnected');
    if (!olderId) throw new Error('the history message has no Older button');
    const load = loadGenerator(discord, channelId, olderId, historyMessages);

    const runs: RunResult[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const bot of round % 2 === 0 ? [baseline, ours] : [ours, baseline]) {
        await bot.ask({ cmd: 'connect', profileAs: `${bot.kind}-round${round + 1}` }, 'connected');
        // Warm the code paths (JIT) as a running bot's are; not counted.
        await load(WARM_UP, WARM_UP_CONCURRENCY);
        const loads = new Map<number, LoadResult>();
        for (const concurrency of LEVELS) loads.set(concurrency, await load(INTERACTIONS, concurrency));
        const { internal, busyMs, cpuMs, runQueueMs, gc, ticks } = await bot.ask({ cmd: 'disconnect' }, 'disconnected');
        if (ticks) {
          ticksSeen.ticks += ticks.ticks;
          ticksSeen.busy += ticks.busy;
          ticksSeen.maxWallMs = Math.max(ticksSeen.maxWallMs, ticks.maxWallMs);
        }
        const sent = WARM_UP + LEVELS.length * INTERACTIONS;
        const busyMsPerInteraction = busyMs / sent;
        const cpuMsPerInteraction = cpuMs / sent;
        const runQueueMsPerInteraction = runQueueMs / sent;
        const byId = new Map(internal);
        const levels = new Map<number, { load: LoadResult; internal: number[] }>();
        for (const [concurrency, result] of loads) {
          const own = result.ids.flatMap((id) => {
            const ms = byId.get(id);
            return ms === undefined ? [] : [ms];
          });
          levels.set(concurrency, { load: result, internal: own.sort((a, b) => a - b) });
        }
        runs.push({ bot: bot.kind, round, levels, busyMsPerInteraction, cpuMsPerInteraction, runQueueMsPerInteraction });
        log(
          `round ${round + 1} ${bot.kind.padEnd(8)} ` +
            LEVELS.map((concurrency) => {
              const { load: l } = levels.get(concurrency) ?? { load: undefined };
              if (!l) return '';
              return `c${concurrency}: p50 ${quantile(l.latencies, 0.5)} ms p99 ${quantile(l.latencies, 0.99)} ms ` +
                `${Math.round((INTERACTIONS / l.elapsedMs) * 1000)}/s late ${l.late} deferred ${l.deferred} requests/interaction ${l.requestsPerInteraction.toFixed(2)}`;
            }).join(' | ') +
            ` | busy ${busyMsPerInteraction.toFixed(2)} cpu ${cpuMsPerInteraction.toFixed(3)} run-queue ${runQueueMsPerInteraction.toFixed(3)} ms/interaction` +
            ` | gc ${gc.count} (major ${gc.major}) pauses ${gc.totalMs.toFixed(0)} ms max ${gc.maxMs.toFixed(1)} ms`,
        );
      }
    }

    const { upstreamRequests } = await ours.ask({ cmd: 'close' }, 'closed');
    await baseline.ask({ cmd: 'close' }, 'closed');

    const fields: string[] = [`rounds=${ROUNDS}`, `interactions=${INTERACTIONS}`, ...(LOCALE ? [`locale=${LOCALE}`] : []), ...(TICKS_STORE ? ['beside_ticks=1'] : [])];
    const summary: string[] = [];
    const lateOf = (bot: BotKind) => runs.filter((r) => r.bot === bot).reduce((n, r) => n + [...r.levels.values()].reduce((m, l) => m + l.load.late, 0), 0);
    const internalFields: string[] = [];
    for (const concurrency of LEVELS) {
      const of = (bot: BotKind, q: number) =>
        median(runs.filter((r) => r.bot === bot).map((r) => quantile(r.levels.get(concurrency)?.load.latencies ?? [], q)));
      const ownOf = (q: number) => median(runs.filter((r) => r.bot === MEASURED).map((r) => quantile(r.levels.get(concurrency)?.internal ?? [], q)));
      const [p50, p99, baseP50, baseP99] = [of(MEASURED, 0.5), of(MEASURED, 0.99), of(REFERENCE, 0.5), of(REFERENCE, 0.99)];
      const ratio = p99 / baseP99;
      const target = concurrency >= 100 ? 1.25 : 1.1;
      const [ownP50, ownP99] = [ownOf(0.5), ownOf(0.99)];
      summary.push(
        `concurrency ${concurrency}: ours p50 ${p50} ms p99 ${p99} ms; baseline p50 ${baseP50} ms p99 ${baseP99} ms; ` +
          `p99 ratio ${ratio.toFixed(2)} (target ≤ ${target}); our own time p50 ${ownP50.toFixed(1)} ms p99 ${ownP99.toFixed(1)} ms`,
      );
      const c = `c${concurrency}`;
      fields.push(`${c}_p50_ms=${p50}`, `${c}_p99_ms=${p99}`, `${c}_baseline_p50_ms=${baseP50}`, `${c}_baseline_p99_ms=${baseP99}`, `${c}_overhead_ratio=${ratio.toFixed(2)}`);
      internalFields.push(`${c}_internal_p50_ms=${ownP50.toFixed(1)}`, `${c}_internal_p99_ms=${ownP99.toFixed(1)}`);
    }
    const medianOf = (bot: BotKind, of: (run: RunResult) => number) => median(runs.filter((r) => r.bot === bot).map(of));
    const [busy, baseBusy] = [medianOf(MEASURED, (r) => r.busyMsPerInteraction), medianOf(REFERENCE, (r) => r.busyMsPerInteraction)];
    const [cpu, baseCpu] = [medianOf(MEASURED, (r) => r.cpuMsPerInteraction), medianOf(REFERENCE, (r) => r.cpuMsPerInteraction)];
    fields.push(
      ...internalFields,
      `busy_ms_per_interaction=${busy.toFixed(2)}`,
      `baseline_busy_ms_per_interaction=${baseBusy.toFixed(2)}`,
      `cpu_ms_per_interaction=${cpu.toFixed(3)}`,
      `baseline_cpu_ms_per_interaction=${baseCpu.toFixed(3)}`,
      `late=${lateOf(MEASURED)}`,
      `baseline_late=${lateOf(REFERENCE)}`,
      ...(TICKS_STORE ? [`ticks=${ticksSeen.ticks}`, `busy_ticks=${ticksSeen.busy}`, `tick_max_wall_ms=${ticksSeen.maxWallMs.toFixed(1)}`] : []),
    );
    summary.push(`event-loop busy time per interaction: ours ${busy.toFixed(2)} ms, baseline ${baseBusy.toFixed(2)} ms (ratio ${(busy / baseBusy).toFixed(2)})`);
    summary.push(`bot thread's CPU time per interaction: ours ${cpu.toFixed(3)} ms, baseline ${baseCpu.toFixed(3)} ms (ratio ${(cpu / baseCpu).toFixed(2)})`);
    log(`medians over ${ROUNDS} round(s) of ${INTERACTIONS} interactions at each concurrency (server-measured INTERACTION_CREATE → callback):`);
    for (const line of summary) log(`  ${line}`);
    log(`not acknowledged within ${DEADLINE_MS} ms: ours ${lateOf(MEASURED)} (target 0), baseline ${lateOf(REFERENCE)}`);
    log(`upstream requests during the runs: ${upstreamRequests} (warm cache)`);
    log(`bench commands: ${fields.join(' ')}`);
  } finally {
    await Promise.all([ours.worker.terminate(), baseline.worker.terminate()]);
    await discord.close();
  }
}

if (isMainThread) await main();
else if (parentPort) await runBot(workerData as BotData, parentPort);
