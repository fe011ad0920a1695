import { editDistance } from './nearest-name.ts';
import { unknownSettingWarning } from './message-text.ts';

/** The beginnings of our settings' names: a variable that starts with one is meant for the bot. */
export const OUR_PREFIXES = ['WOTD_', 'DISCORD_', 'STORE_', 'REDIS_', 'METRICS_', 'DELIVERY_', 'SUBSCRIPTION_', 'LOG_', 'CONSOLE_'];

/**
 * Variables of ours that are not settings, known so they are not taken for slips: the test suite's servers,
 * the benchmarks' servers, the login back-off's internal setting.
 */
const OTHER_KNOWN = ['REDIS_TEST_URL', 'REDIS_BENCH_URL', 'POSTGRES_TEST_URL', 'WOTD_INTERNAL_LOGIN_BACKOFF_MS'];

/** Longer names are not compared (an edit distance is quadratic in the length). */
const MAX_COMPARED = 64;

/** A name looks like a slip for `known` when it differs by case alone, or by up to two edits in a long enough name. */
function nearestSetting(name: string, known: readonly string[]): string | null {
  const upper = name.toUpperCase();
  let nearest: { name: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(upper, candidate);
    if (!nearest || distance < nearest.distance) nearest = { name: candidate, distance };
  }
  if (!nearest) return null;
  const allowed = upper.length >= 8 ? 2 : upper.length >= 5 ? 1 : 0;
  return nearest.distance <= allowed ? nearest.name : null;
}

/**
 * One warning line for each variable (from .env or the environment) that looks like one of our settings and is
 * not one: `DISCORD_TOKN`, `LOG_LEVL`, `discord_token`, `WOTD_API_URI`. It starts with one of our prefixes, or is
 * within a small edit distance of a setting's name; the nearest setting is suggested when there is one.
 */
export function misspelledSettings(names: Iterable<string>, settings: readonly string[]): string[] {
  const known = [...settings, ...OTHER_KNOWN];
  const warnings: string[] = [];
  for (const name of names) {
    if (known.includes(name) || name.length > MAX_COMPARED) continue;
    const nearest = nearestSetting(name, settings);
    const ours = OUR_PREFIXES.some((prefix) => name.toUpperCase().startsWith(prefix));
    if (nearest || ours) warnings.push(unknownSettingWarning(name, nearest));
  }
  return warnings;
}
