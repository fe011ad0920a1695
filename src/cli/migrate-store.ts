import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isPostgresUrl, isRedisUrl, loadConfig, loadDotEnv, withoutPassword } from '../config/settings.ts';
import { quoted, singleLine } from '../config/message-text.ts';
import { SubscriptionStore } from '../schedule/subscription-store.ts';
import type { RestoreOutcome } from '../schedule/subscription-store/record-namespaces.ts';
import type { StoredEntry } from '../store/scan.ts';
import { migrateLearning, noLearningRecords, shownLearningCounts } from './migrate-learning.ts';

const USAGE = `Usage: wotd-bot migrate-store --from URL --to URL

Copies every subscription and delivery record, and the indexes that list them, from one store to another
(records past DELIVERY_RETENTION_DAYS too: the bot prunes them in the target at its next daily pass), then every
learning record: members' saved words with their review schedule, quiz posts with their counts and choices, quiz
answers and streaks (the leaderboard is rebuilt from them in the target), in any direction between SQLite, Redis
and PostgreSQL. URL is sqlite://FILE, redis://HOST[:PORT][/DB], rediss://… (TLS)
or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (also postgresql://); Redis keys start with REDIS_KEY_PREFIX
(default wotd-bot:). A record already in the target is replaced by the source's, so running it again changes
nothing. The cache is not copied: it fills again by itself. It may run beside a live bot (it takes no lock on the
source): a backup copy is consistent per record. To move the bot to another store, stop it first, so nothing
changes after the copy.

Exit codes: 0 copied, 1 a store could not be reached, read or written, 2 bad arguments or settings.`;

/** Records written at once; Redis pipelines them, SQLite queues them, PostgreSQL spreads them over its pool. */
const WRITE_BATCH = 100;

class UsageError extends Error {}

interface Endpoints {
  from: string;
  to: string;
}

function parseArgs(args: string[]): Endpoints | 'help' {
  const values: Partial<Record<'from' | 'to', string>> = {};
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') return 'help';
    const match = /^--(from|to)(?:=(.*))?$/.exec(arg);
    if (!match) throw new UsageError(arg.startsWith('-') ? `unknown option ${quoted(arg)}` : `unexpected argument ${quoted(arg)}`);
    const name = match[1] as 'from' | 'to';
    const value = match[2] ?? args[(i += 1)];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a store URL`);
    if (values[name] !== undefined) throw new UsageError(`--${name} is given twice`);
    values[name] = value.trim();
  }
  if (values.from === undefined) throw new UsageError('--from is required');
  if (values.to === undefined) throw new UsageError('--to is required');
  for (const name of ['from', 'to'] as const) checkUrl(name, values[name] ?? '');
  if (sameStore(values.from, values.to)) throw new UsageError('--from and --to are the same store');
  const sourceFile = sqlitePath(values.from);
  if (sourceFile !== null && !existsSync(sourceFile)) throw new UsageError(`--from ${singleLine(values.from, 100)}: no such file`);
  return { from: values.from, to: values.to };
}

function sqlitePath(url: string): string | null {
  return /^sqlite:\/\//i.test(url) ? resolve(url.replace(/^sqlite:\/\//i, '')) : null;
}

function checkUrl(name: string, url: string): void {
  const file = sqlitePath(url);
  if (file !== null ? !/^sqlite:\/\/(:memory:)?$/i.test(url) : isRedisUrl(url) || isPostgresUrl(url)) return;
  throw new UsageError(
    `--${name} ${quoted(withoutPassword(url))} is not a store URL; expected sqlite://FILE, redis://HOST:PORT, rediss://HOST:PORT or postgres://HOST/DATABASE`,
  );
}

function sameStore(a: string, b: string): boolean {
  const fileA = sqlitePath(a);
  if (fileA !== null) return fileA === sqlitePath(b);
  if (sqlitePath(b) !== null) return false;
  // postgres:// and postgresql:// name the same server.
  const normal = (url: string) => new URL(url.replace(/^postgresql:/i, 'postgres:')).href;
  return normal(a) === normal(b);
}

async function open(name: 'from' | 'to', url: string, keyPrefix: string): Promise<SubscriptionStore> {
  try {
    // Nothing is written to the source, not even the due-time index's tables: the target's index is built anew.
    return await SubscriptionStore.open({ url, keyPrefix }, undefined, { throwOnErrors: true, readOnly: name === 'from' });
  } catch (error) {
    throw new Error(`--${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Writes each page in batches, yielding how many records each batch copied and naming damaged ones on stderr. */
async function* copy(
  pages: AsyncGenerator<StoredEntry[]>,
  restore: (key: string, value: unknown) => Promise<RestoreOutcome>,
  what: string,
): AsyncGenerator<number> {
  for await (const page of pages) {
    for (let start = 0; start < page.length; start += WRITE_BATCH) {
      const batch = page.slice(start, start + WRITE_BATCH);
      const outcomes = await Promise.all(batch.map(([key, value]) => restore(key, value)));
      outcomes.forEach((outcome, i) => {
        if (outcome === 'damaged') {
          process.stderr.write(`wotd-bot migrate-store: warning: ${what} ${batch[i]?.[0]} is damaged; copied as it is\n`);
        }
      });
      yield batch.length;
    }
  }
}

/** `wotd-bot migrate-store --from URL --to URL`. */
export async function runMigrateStore(args: string[]): Promise<number> {
  let endpoints: Endpoints | 'help';
  try {
    endpoints = parseArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`wotd-bot migrate-store: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (endpoints === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  loadDotEnv();
  const { REDIS_KEY_PREFIX: keyPrefix } = loadConfig();
  const counts = { subscriptions: 0, deliveries: 0 };
  const learning = noLearningRecords();
  const opened: SubscriptionStore[] = [];
  try {
    const source = await open('from', endpoints.from, keyPrefix);
    opened.push(source);
    const target = await open('to', endpoints.to, keyPrefix);
    opened.push(target);
    try {
      await migrate(source, target, counts);
      await migrateLearning({ url: endpoints.from, keyPrefix }, { url: endpoints.to, keyPrefix }, learning);
    } catch (error) {
      const copied = `subscriptions=${counts.subscriptions} deliveries=${counts.deliveries}${shownLearningCounts(learning)}`;
      throw new Error(`${oneLine(error)} (after ${copied}; running it again is safe)`);
    }
  } catch (error) {
    process.stderr.write(`wotd-bot migrate-store: ${oneLine(error)}\n`);
    return 1;
  } finally {
    await Promise.all(opened.map((store) => store.close().catch(() => undefined)));
  }
  process.stdout.write(`migrated subscriptions=${counts.subscriptions} deliveries=${counts.deliveries}${shownLearningCounts(learning)}\n`);
  return 0;
}

async function migrate(source: SubscriptionStore, target: SubscriptionStore, counts: { subscriptions: number; deliveries: number }): Promise<void> {
  for await (const copied of copy(source.subscriptionRecords(), (key, value) => target.restoreSubscription(key, value), 'subscription')) {
    counts.subscriptions += copied;
  }
  for await (const copied of copy(source.deliveryRecords(), (key, value) => target.restoreDelivery(key, value), 'delivery record')) {
    counts.deliveries += copied;
  }
  // Records of unsubscribed channels came over unlisted: the target's next pruning scans every record once to find them.
  await target.setDeliveryPruneMark(null);
}

function oneLine(error: unknown): string {
  return singleLine((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error');
}
