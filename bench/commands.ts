/**
 * npm run bench:commands — slash-command interactions through the local Discord-compatible server.
 *
 * The local Discord server runs on the main thread; the bot runs apart from it, as it would in production, on a
 * worker thread with its own event loop: startDiscordBot (the real discord.js Client) with the real adapter in front
 * of our own Word-of-the-Day service (temp SQLite word list, temp SQLite cache). The cache is warmed first, and the
 * code paths by 300 interactions that are not counted; 500 at concurrency 10 give the latency with little queueing,
 * for scale. Then 2,000 interactions are dispatched with at most 100 in flight: /wotd for a date (40%), /wotd-history (20%),
 * /wotd-find (20%), "Older" presses (10%) and autocomplete (10%). Latency is what the server measures from
 * INTERACTION_CREATE sent to the interaction callback received; "late" counts interactions not acknowledged within
 * Discord's 3 seconds (no callback, a rejected one, or one after the deadline).
 */
import { Writable } from 'node:stream';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { commands } from '../commands/index.ts';
import { startDiscordBot } from '../src/discord/bot.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { createLogger } from '../src/logger.ts';
import { startDiscordServer, type InteractionHandle } from '../test/support/discord/index.ts';
import { sampleEntries, SITE_URL, startWotdWorld, TODAY } from '../test/discord/world.ts';

const INTERACTIONS = 2_000;
const CONCURRENCY = 100;
const WARM_UP = 300;
const LIGHT_LOAD = 500;
const LIGHT_CONCURRENCY = 10;
const DEADLINE_MS = 3_000;

interface BotData {
  apiUrl: string;
  token: string;
}

type FromBot = { kind: 'ready'; upstreamRequests: number } | { kind: 'stopped'; upstreamRequests: number };

const entries = sampleEntries().filter((entry) => entry.date.startsWith('2025-'));
const dates = entries.map((entry) => entry.date);
const words = [...new Set(entries.map((entry) => entry.word))];

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** The bot's side: the WotD world with a warm cache and the bot, until the main thread says stop. */
async function runBot(data: BotData, port: NonNullable<typeof parentPort>): Promise<void> {
  // Warnings and errors stay visible: a failing interaction must not pass unnoticed.
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const wotd = await startWotdWorld();
  for (const date of dates) await wotd.adapter.getEntry(date);
  for (const date of [TODAY, ...dates]) await wotd.adapter.getPrevious(date, 3);
  for (const word of words) await wotd.adapter.findWord(word);
  const bot = await startDiscordBot({
    config: { DISCORD_TOKEN: data.token, DISCORD_API_URL: data.apiUrl, DISCORD_APPLICATION_ID: undefined },
    commands,
    services: { lookup: wotd.adapter, siteUrl: SITE_URL, logger },
    logger,
  });
  const warmRequests = wotd.proxy.requests;
  port.once('message', () => {
    void (async () => {
      await bot.stop();
      const upstreamRequests = wotd.proxy.requests - warmRequests;
      await wotd.close();
      port.postMessage({ kind: 'stopped', upstreamRequests } satisfies FromBot);
    })();
  });
  port.postMessage({ kind: 'ready', upstreamRequests: warmRequests } satisfies FromBot);
}

function nextMessage(worker: Worker): Promise<FromBot> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function main(): Promise<void> {
  const discord = await startDiscordServer({ interactionDeadlineMs: DEADLINE_MS });
  const guild = discord.addGuild({ name: 'Bench', channels: [{ name: 'general' }] });
  const channelId = guild.channelId('general');
  const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  const deployed = await runDeployCommands([], { env, stdout: discard, stderr: process.stderr, commands });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);

  // The worker runs this same TypeScript file, so it registers tsx's loader first.
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { apiUrl: discord.apiUrl, token: discord.token } satisfies BotData });
  try {
    const ready = await nextMessage(worker);
    if (ready.kind !== 'ready') throw new Error('the bot did not start');

    // Messages with an Older button, one for each press (a press replaces its message, and with it the button).
    const presses = (WARM_UP + LIGHT_LOAD + INTERACTIONS) / 10;
    const historyMessages = await Promise.all(
      Array.from({ length: presses }, () =>
        discord.invokeCommand({ name: 'wotd-history', options: { date: TODAY }, channelId }).waitForResponse(10_000),
      ),
    );
    const olderId = (historyMessages[0]?.components[0] as { components: { custom_id: string }[] } | undefined)?.components[0]?.custom_id;
    if (!olderId) throw new Error('the history message has no Older button');
    let pressed = 0;

    const start = (index: number): InteractionHandle => {
      const pick = index % 10;
      const date = dates[index % dates.length] ?? TODAY;
      const word = words[index % words.length] ?? 'serendipity';
      if (pick < 4) return discord.invokeCommand({ name: 'wotd', options: { date }, channelId });
      if (pick < 6) return discord.invokeCommand({ name: 'wotd-history', options: { date }, channelId });
      if (pick < 8) return discord.invokeCommand({ name: 'wotd-find', options: { word }, channelId });
      if (pick < 9) return discord.pressButton({ customId: olderId, channelId, messageId: historyMessages[pressed++]?.id ?? '' });
      return discord.startAutocomplete({ name: 'wotd-find', options: { word: word.slice(0, 2) }, focused: 'word', channelId });
    };

    /** `count` interactions with at most `concurrency` in flight: the latency of each, and how many were late. */
    async function load(count: number, concurrency: number): Promise<{ latencies: number[]; late: number; elapsedMs: number }> {
      const latencies: number[] = [];
      let late = 0;
      let next = 0;
      const began = performance.now();
      async function client(): Promise<void> {
        while (next < count) {
          const handle = start(next++);
          try {
            const callback = await handle.waitForCallback(DEADLINE_MS + 2_000);
            latencies.push(callback.latencyMs);
            if (callback.status >= 300 || callback.latencyMs > DEADLINE_MS) late += 1;
          } catch {
            late += 1;
          }
        }
      }
      await Promise.all(Array.from({ length: concurrency }, () => client()));
      latencies.sort((a, b) => a - b);
      return { latencies, late, elapsedMs: performance.now() - began };
    }

    // Warm the code paths (JIT) as a running bot's are; not counted.
    await load(WARM_UP, CONCURRENCY);
    // For scale: the same mix with little queueing.
    const light = await load(LIGHT_LOAD, LIGHT_CONCURRENCY);
    const { latencies, late, elapsedMs } = await load(INTERACTIONS, CONCURRENCY);

    worker.postMessage('stop');
    const stopped = await nextMessage(worker);

    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    const max = latencies.at(-1) ?? Number.NaN;
    process.stdout.write(
      [
        `interactions: ${INTERACTIONS} at concurrency ${CONCURRENCY} in ${(elapsedMs / 1000).toFixed(2)} s (${Math.round((INTERACTIONS / elapsedMs) * 1000)}/s)`,
        `INTERACTION_CREATE → callback: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms (target p99 < 50 ms)`,
        `for scale, ${LIGHT_LOAD} at concurrency ${LIGHT_CONCURRENCY}: p50 ${quantile(light.latencies, 0.5)} ms, p99 ${quantile(light.latencies, 0.99)} ms, ` +
          `${Math.round((LIGHT_LOAD / light.elapsedMs) * 1000)}/s, late ${light.late}`,
        `not acknowledged within ${DEADLINE_MS} ms: ${late} (target 0)`,
        `upstream requests during the run: ${stopped.upstreamRequests} (warm cache)`,
        `bench commands: interactions=${INTERACTIONS} concurrency=${CONCURRENCY} p50_ms=${p50} p99_ms=${p99} max_ms=${max} late=${late}`,
      ].join('\n') + '\n',
    );
  } finally {
    await worker.terminate();
    await discord.close();
  }
}

if (isMainThread) await main();
else if (parentPort) await runBot(workerData as BotData, parentPort);
