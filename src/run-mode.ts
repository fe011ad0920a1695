import { commands } from '../commands/index.ts';
import { loadConfig, loadDotEnv, urlSecrets, withoutPassword, type Config } from './config/settings.ts';
import { inviteLine } from './config/message-text.ts';
import { reportStopFailure } from './cli/start-failure.ts';
import { atTerminal, startMode } from './cli/start-mode.ts';
import { oneLine, parseStartArgs, shardSource, warnMisspelledSettings } from './cli/start-options.ts';
import { nextSignal } from './cli/stop-signal.ts';
import type { ConsoleSource } from './console/banner.ts';
import { openBotServices } from './bot-services.ts';
import { createLogger, type Logger } from './config/logger.ts';
import type { RunningService } from './service/server.ts';
import { isPostgresStore, isRedisStore, sqliteStoreFile, storeLocation } from './store/open-store.ts';
import { lockSqliteStore, StoreInUseError, type StoreLock } from './store/sqlite-store-lock.ts';
import { DEFAULT_API_URL, openWotdAdapter, type WotdAdapter } from './wotd/adapter.ts';
import { mirrorSummary, openDatabaseMirror, type DatabaseMirror } from './wotd/mirror/open-mirror.ts';
import { isSet, mirrorSiteUrl } from './wotd/mirror/mirror-site.ts';
import type { UpstreamEvent } from './wotd/upstream-request.ts';
import { dailyPostRendering } from './replies/daily-embeds.ts';
import { openDailyPosts, type DailyPosts } from './schedule/daily-posts.ts';
import { describeShardPlan, shardPlan, ShardPlanError, type ShardPlan } from './discord/shards.ts';
import type { Cluster } from './cluster/cluster.ts';
import { postsPerSecondFor } from './discord/channel-poster.ts';
import { openMetricsEndpoint, type MetricsEndpoint } from './metrics/endpoint.ts';
import type { BotMetrics } from './metrics/registry.ts';
import { limitHeapGrowth } from './cli/heap-growth.ts';
import { stopOnLostLock } from './cli/lock-lost.ts';
import { LoginAbortedError, loginBackoffBaseMs as loginBackoffBaseMsFrom, LoginSettingError } from './discord/login-backoff.ts';

/** `wotd-bot start` (`npm start`) and `wotd-bot console` (`npm run console`); see src/cli/start-mode.ts for which runs. */
export async function runBot(args: string[], command: 'start' | 'console' = 'start'): Promise<number> {
  const flags = parseStartArgs(command, args);
  if (typeof flags === 'number') return flags;
  loadDotEnv();
  warnMisspelledSettings(command);
  const config = loadConfig();
  let shards: ShardPlan;
  try {
    shards = shardPlan(flags.shards ?? config.DISCORD_SHARD_COUNT, flags['shard-ids'] ?? config.DISCORD_SHARD_IDS);
  } catch (error) {
    if (!(error instanceof ShardPlanError)) throw error;
    process.stderr.write(`wotd-bot ${command}: ${shardSource(flags)}: ${error.message}\n`);
    return 2;
  }
  const mode = startMode(command, config.DISCORD_TOKEN, atTerminal());
  if (mode.kind === 'refused') {
    process.stderr.write(`wotd-bot ${command}: ${mode.reason}\n`);
    return 2;
  }
  // `console` ignores shard settings meant for the bot's Discord runs; `start` says they need the gateway.
  if (mode.kind === 'console' && command === 'start' && shards.kind !== 'single') {
    process.stderr.write('wotd-bot start: shards are for the Discord gateway; set DISCORD_TOKEN to use them\n');
    return 2;
  }
  let loginBackoffBaseMs: number;
  try {
    loginBackoffBaseMs = loginBackoffBaseMsFrom(process.env);
  } catch (error) {
    if (!(error instanceof LoginSettingError)) throw error;
    process.stderr.write(`wotd-bot ${command}: ${error.message}\n`);
    return 2;
  }
  let lock: BotStoreLock | undefined;
  try {
    lock = await lockStore(config);
  } catch (error) {
    process.stderr.write(`wotd-bot ${command}: ${oneLine(error)}\n`);
    return error instanceof StoreInUseError ? 2 : 1;
  }
  try {
    return await (mode.kind === 'discord' ? runDiscord(config, mode.token, shards, loginBackoffBaseMs, lock) : runConsole(config, command, lock));
  } finally {
    await lock?.release();
  }
}

/** The store's lock of this process, where the bot must be its store's only one, with where to log about it. */
type BotStoreLock = StoreLock & { logTo?(logger: Logger): void };

/**
 * One bot per store outside cluster mode: a SQLite file always (several processes share a store through Redis), a
 * PostgreSQL store without REDIS_URL; with it, the members of a cluster share the PostgreSQL store's lock. Redis
 * stores need none.
 */
async function lockStore(config: Config): Promise<BotStoreLock | undefined> {
  const location = storeLocation(config);
  const storeFile = sqliteStoreFile(location);
  if (storeFile) return lockSqliteStore(storeFile, { onLost: stopOnLostLock });
  if (isPostgresStore(location)) {
    const { lockPostgresStore } = await import('./store/postgres-store-lock.ts');
    const shared = location.lockRedisUrl !== undefined;
    return lockPostgresStore(location.url, { shared, onLost: stopOnLostLock, ...(location.setting ? { setting: location.setting } : {}) });
  }
  return undefined;
}

/** Where the durable data is on Redis, one line on whether it survives a Redis restart (see redis-persistence.ts). */
async function reportStoreDurability(config: Config, logger: Logger): Promise<void> {
  const location = storeLocation(config);
  if (!isRedisStore(location)) return;
  // Loaded only for a Redis store, so a bot on SQLite or PostgreSQL loads no Redis client.
  const { reportRedisPersistence } = await import('./store/redis-persistence.ts');
  await reportRedisPersistence(location.url, logger);
}

async function runDiscord(config: Config, token: string, shards: ShardPlan, loginBackoffBaseMs: number, lock?: BotStoreLock): Promise<number> {
  limitHeapGrowth();
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, secrets: [token, ...settingSecrets(config)] });
  lock?.logTo?.(logger);
  const signal = nextSignal();
  let adapter: WotdAdapter | undefined;
  let mirror: DatabaseMirror | null = null;
  let daily: DailyPosts | undefined;
  let opened: { close(): Promise<void> } | undefined;
  let cluster: Cluster | undefined;
  let storeClaims: { close(): Promise<void> } | undefined;
  let endpoint: MetricsEndpoint | null = null;
  let running = false;
  try {
    endpoint = await openMetricsEndpoint(config, logger, { mode: 'discord' });
    const metrics = endpoint?.metrics;
    if (config.REDIS_URL) {
      const location = storeLocation(config);
      // On a PostgreSQL store the claims on each day's posts are kept there, beside the delivery records.
      const claims = isPostgresStore(location)
        ? await (await import('./schedule/postgres-delivery-claims.ts')).PostgresDeliveryClaims.open(location, config.DELIVERY_CLAIM_LEASE_MS)
        : undefined;
      storeClaims = claims;
      // A cluster member: the store, the service's budget, the daily posts and Discord's global limit are shared.
      // Its Redis parts are loaded only then.
      const { openCluster } = await import('./cluster/cluster.ts');
      cluster = await openCluster({
        redisUrl: config.REDIS_URL,
        keyPrefix: config.REDIS_KEY_PREFIX,
        rateLimit: config.WOTD_RATE_LIMIT,
        rateLimitScope: config.WOTD_RATE_LIMIT_SCOPE,
        postsPerSecond: postsPerSecondFor(config.DISCORD_GLOBAL_RATE_LIMIT),
        claimLeaseMs: config.DELIVERY_CLAIM_LEASE_MS,
        logger,
        ...(claims ? { claims } : {}),
      });
      logger.info(
        { shards: describeShardPlan(shards), store: isPostgresStore(location) ? 'PostgreSQL' : 'Redis' },
        'running as a cluster member on Redis',
      );
      metrics?.watchStoreChecks(cluster.storeChecks());
    }
    mirror = await openDatabaseMirror({ setting: config.WOTD_MIRROR, siteUrl: mirrorSite(config, config.WOTD_API_URL), store: storeLocation(config), logger });
    adapter = await openWotdAdapter(config, {
      ...upstreamLog(logger, metrics),
      ...(cluster ? { budget: cluster.budget } : {}),
      ...(mirror ? { mirror: mirror.reader } : {}),
    });
    startMirror(mirror, adapter, metrics);
    daily = await openDailyPosts(dailyPostSettings(config, logger, metrics));
    await reportStoreDurability(config, logger);
    metrics?.watchAdapter(adapter);
    metrics?.watchStore(daily.store);
    const services = (opened = await openBotServices(config, adapter, daily, logger, mirror));
    logger.info({ apiUrl: withoutPassword(config.WOTD_API_URL ?? DEFAULT_API_URL) }, 'Word-of-the-Day service');
    const { startDiscordBot } = await import('./discord/bot.ts');
    // A signal during the login (a back-off included) gives it up at once; a clean stop, exit 0.
    const giveUp = new AbortController();
    void signal.promise.then(() => giveUp.abort());
    const starting = startDiscordBot({
      config,
      commands,
      services,
      logger,
      shards,
      loginBackoffBaseMs,
      abort: giveUp.signal,
      ...(metrics ? { onInteractionDone: metrics.interactionDone } : {}),
      ...(cluster ? { takeGlobalTurn: cluster.takeGlobalTurn } : {}),
    });
    const bot = await Promise.race([starting, signal.promise.then(() => null)]);
    if (!bot) {
      // The login may still settle: a session that came up after all is closed, and its giving up is expected.
      await starting.then(
        (late) => late.stop(),
        (error: unknown) => {
          if (!(error instanceof LoginAbortedError)) logger.warn({ err: error }, 'the login ended after the stop signal');
        },
      );
      logger.info('stopped before connecting to Discord');
      return 0;
    }
    running = true;
    process.stdout.write(`${inviteLine(bot.inviteUrl)}\n`);
    if (metrics) {
      const { discordMetricsView } = await import('./discord/metrics-view.ts');
      metrics.watchDiscord(discordMetricsView(bot.client));
    }
    const { startDiscordDailyPosts } = await import('./discord/discord-daily-posts.ts');
    startDiscordDailyPosts(bot.client, daily, {
      lookup: adapter,
      siteUrl: config.WOTD_SITE_URL,
      logger,
      postsPerSecond: postsPerSecondFor(config.DISCORD_GLOBAL_RATE_LIMIT),
      ...(cluster ? { cluster } : {}),
    });
    const received = await signal.promise;
    logger.info({ signal: received }, 'shutting down');
    // Posting stops first; the store closes (in finally) only after bot.stop() has let running commands finish.
    await daily.stopPosting();
    await bot.stop();
    return 0;
  } catch (error) {
    return reportStopFailure(error, { command: 'start', logger, running, prefix: 'could not run the Discord bot: ' });
  } finally {
    signal.dispose();
    await endpoint?.close();
    await opened?.close();
    await daily?.close();
    await mirror?.close();
    await adapter?.close();
    await cluster?.close();
    await storeClaims?.close();
    logger.flush();
  }
}

/** Where WOTD_MIRROR=on finds the snapshots: see mirror-site.ts. */
function mirrorSite(config: Config, serviceUrl: string | undefined): string {
  return mirrorSiteUrl({ url: config.WOTD_SITE_URL, set: isSet(process.env, 'WOTD_SITE_URL') }, serviceUrl);
}

/** Starts the database mirror's refreshes through the adapter, and shows its state in the metrics and /healthz. */
function startMirror(mirror: DatabaseMirror | null, adapter: WotdAdapter, metrics?: BotMetrics): void {
  mirror?.start(adapter);
  metrics?.watchMirror({ status: () => mirror?.status() ?? null });
  if (mirror) metrics?.watchStoreChecks(mirror.storeChecks());
}

/** Passwords in URL settings, in every form a library might print them: the logger hides each wherever it appears. */
function settingSecrets(config: Config): string[] {
  const mirrorUrl = config.WOTD_MIRROR.kind === 'url' ? config.WOTD_MIRROR.url : undefined;
  return [config.REDIS_URL, config.STORE_URL, config.WOTD_API_URL, config.DISCORD_API_URL, mirrorUrl].flatMap(urlSecrets);
}

function dailyPostSettings(config: Config, logger: Logger, metrics?: BotMetrics) {
  return {
    store: storeLocation(config),
    limit: config.SUBSCRIPTION_LIMIT,
    concurrency: config.DELIVERY_CONCURRENCY,
    retentionDays: config.DELIVERY_RETENTION_DAYS,
    logger,
    ...(metrics ? { observer: metrics.scheduler } : {}),
  };
}

/**
 * Every upstream request at debug level (and counted, with metrics on); a contradicted variant and a failing cache
 * store as warnings.
 */
function upstreamLog(logger: Logger, metrics?: BotMetrics) {
  let lastStoreWarning = -Infinity;
  return {
    onRequest: (event: UpstreamEvent) => {
      logger.debug({ upstream: event }, 'Word-of-the-Day request');
      metrics?.upstreamRequest(event);
    },
    onWarning: (message: string) => logger.warn(message),
    onStoreError: (error: unknown) => {
      // Said at most once a minute (counted each time in wotd_bot_store_errors_total on Redis).
      const now = performance.now();
      if (now - lastStoreWarning < 60_000) return;
      lastStoreWarning = now;
      logger.warn({ err: error }, 'the cache store failed; lookups go on without it for a while');
    },
  };
}

async function runConsole(config: Config, command: 'start' | 'console', lock?: BotStoreLock): Promise<number> {
  // The console is for reading answers: logs stay out of the way unless asked for.
  const level = process.env.LOG_LEVEL?.trim() ? config.LOG_LEVEL : 'warn';
  const logger = createLogger({ level, format: config.LOG_FORMAT, secrets: settingSecrets(config) });
  lock?.logTo?.(logger);
  // The console's modules are loaded only here, so a bot on Discord does not keep their code in memory.
  const [{ consoleBanner }, { runConsoleLoop }, { PromptScreen }, { ConsoleSession, consoleLocale }, { createConsolePoster }] = await Promise.all([
    import('./console/banner.ts'),
    import('./console/console.ts'),
    import('./console/prompt-screen.ts'),
    import('./console/session.ts'),
    import('./console/console-poster.ts'),
  ]);
  const signal = nextSignal();
  let service: RunningService | undefined;
  let adapter: WotdAdapter | undefined;
  let mirror: DatabaseMirror | null = null;
  let daily: DailyPosts | undefined;
  let opened: { close(): Promise<void> } | undefined;
  let endpoint: MetricsEndpoint | null = null;
  let running = false;
  try {
    endpoint = await openMetricsEndpoint(config, logger, { mode: 'console' });
    const metrics = endpoint?.metrics;
    let source: ConsoleSource;
    let baseUrl: string;
    if (config.WOTD_API_URL) {
      baseUrl = config.WOTD_API_URL;
      source = { kind: 'remote', url: baseUrl };
    } else {
      try {
        const { startWotdService } = await import('./service/server.ts');
        service = await startWotdService({ dbPath: config.WOTD_SERVICE_DB, variant: 'A', host: '127.0.0.1', port: 0 });
      } catch (error) {
        process.stderr.write(`wotd-bot ${command}: ${oneLine(error)} (set WOTD_SERVICE_DB to the word list's SQLite file)\n`);
        return 2;
      }
      baseUrl = service.url;
      source = { kind: 'embedded', dbPath: config.WOTD_SERVICE_DB };
      // Variant A, as the public site: it also offers its monthly database snapshots on /databases.
      logger.info({ apiUrl: service.url, databases: `${service.url}/databases` }, 'embedded Word-of-the-Day service');
    }
    // The embedded service publishes its own snapshots: the mirror copies those, whatever WOTD_SITE_URL says.
    const siteUrl = service ? baseUrl : mirrorSite(config, baseUrl);
    mirror = await openDatabaseMirror({ setting: config.WOTD_MIRROR, siteUrl, store: storeLocation(config), logger });
    adapter = await openWotdAdapter(config, {
      baseUrl,
      ...(service ? { variant: 'A' as const } : {}),
      ...upstreamLog(logger, metrics),
      ...(mirror ? { mirror: mirror.reader } : {}),
    });
    startMirror(mirror, adapter, metrics);
    const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    const color = terminal && !process.env.NO_COLOR;
    daily = await openDailyPosts(dailyPostSettings(config, logger, metrics));
    await reportStoreDurability(config, logger);
    metrics?.watchAdapter(adapter);
    metrics?.watchStore(daily.store);
    // Replies and daily posts print above the prompt while it waits, so a half-typed line is not broken up.
    const screen = new PromptScreen(process.stdout);
    // Before the scheduler starts: the learning loop decorates its poster (the daily quiz, the DMs' review line).
    const session = new ConsoleSession({
      commands,
      services: (opened = await openBotServices(config, adapter, daily, logger, mirror)),
      write: screen.write,
      color,
      showThinking: terminal,
    });
    // Subscribing a console channel (/wotd-subscribe channel:#words) prints the daily post here at its time; its
    // buttons (the quiz's) are pressed with `press`, as the console's member in that channel.
    daily.start({
      poster: createConsolePoster({ write: screen.write, color, board: session }),
      lookup: adapter,
      ...dailyPostRendering(config.WOTD_SITE_URL, consoleLocale),
    });
    running = true;
    await runConsoleLoop({
      session,
      input: process.stdin,
      output: process.stdout,
      notices: process.stderr,
      banner: consoleBanner(source, endpoint?.server.url, mirrorSummary(config.WOTD_MIRROR, siteUrl)),
      terminal,
      screen,
      stop: signal.promise.then(() => undefined),
    });
    return 0;
  } catch (error) {
    return reportStopFailure(error, { command, logger, running });
  } finally {
    signal.dispose();
    await endpoint?.close();
    // Posting stops before the learning store closes: the quiz and the DMs' review line read it while posting.
    await daily?.stopPosting();
    await opened?.close();
    await daily?.close();
    await mirror?.close();
    await adapter?.close();
    await service?.close();
    logger.flush();
  }
}
