import { loadConfig, loadDotEnv, ConfigError } from '../config/settings.ts';
import { quoted, singleLine } from '../config/message-text.ts';
import { checkDueIndex } from '../schedule/due-index-check.ts';
import { SubscriptionStore } from '../schedule/subscription-store.ts';
import { storeLocation } from '../store/open-store.ts';

const USAGE = `Usage: wotd-bot check-due-index [--repair]

Compares the daily posts' due-time index with the subscriptions of the store the bot uses (STORE_URL, or
REDIS_URL in cluster mode) and prints one line: subscriptions=N entries=N missing=N late=N wrong_state=N
orphaned=N. missing: a subscription the scheduler would never read; late: an entry later than the subscription's
next owed post; wrong_state: counted under another state in /metrics; orphaned: an entry with no subscription.
With --repair each one found is made due at once (the next tick places it) or dropped (orphaned); nothing is
moved later, so it is safe beside a running bot. The channel ids found are listed on standard error.

Exit codes: 0 the index agrees (or was repaired), 1 the store could not be reached or read, 2 bad arguments or
settings, 3 disagreements found and not repaired.`;

/** `wotd-bot check-due-index [--repair]`. */
export async function runCheckDueIndex(args: string[]): Promise<number> {
  let repair = false;
  for (const arg of args) {
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (arg !== '--repair') {
      process.stderr.write(`wotd-bot check-due-index: ${arg.startsWith('-') ? 'unknown option' : 'unexpected argument'} ${quoted(arg)}\n\n${USAGE}\n`);
      return 2;
    }
    repair = true;
  }
  loadDotEnv();
  let location;
  try {
    location = storeLocation(loadConfig());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`wotd-bot check-due-index: ${error.message}\n`);
    return 2;
  }
  let store: SubscriptionStore | null = null;
  try {
    store = await SubscriptionStore.open(location, undefined, { throwOnErrors: true });
    const report = await checkDueIndex(store, new Date(), { repair });
    const { counts } = report;
    for (const kind of ['missing', 'late', 'wrongState', 'orphaned'] as const) {
      if (report[kind].length > 0) process.stderr.write(`${kind}: ${report[kind].join(' ')}${counts[kind] > report[kind].length ? ' …' : ''}\n`);
    }
    const found = counts.missing + counts.late + counts.wrongState + counts.orphaned;
    process.stdout.write(
      `due-index: subscriptions=${report.subscriptions} entries=${report.entries} missing=${counts.missing} late=${counts.late} wrong_state=${counts.wrongState} orphaned=${counts.orphaned} repaired=${repair && found > 0 ? found : 0}\n`,
    );
    return found > 0 && !repair ? 3 : 0;
  } catch (error) {
    process.stderr.write(`wotd-bot check-due-index: ${singleLine(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  } finally {
    await store?.close().catch(() => undefined);
  }
}
