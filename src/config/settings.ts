import { notARegularFile } from './path-kind.ts';
import { z } from 'zod';
import { quoted } from './message-text.ts';
import { bundledWordList } from './package-files.ts';
import { pathProblem } from './setting-paths.ts';

/**
 * Every setting the bot reads from the environment, validated once at start-up.
 * `.env.example` documents each one; keep the two in step.
 */

/** An absolute http: or https: URL (also used by the CLI's --api-url). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Days of delivery records kept (DELIVERY_RETENTION_DAYS unset); see schedule/delivery-retention.ts. */
export const DEFAULT_DELIVERY_RETENTION_DAYS = 35;
/** The scheduler reads records up to a day back (a subscriber far east of UTC), and the overview two days ahead. */
export const MIN_DELIVERY_RETENTION_DAYS = 3;

/** How long a cluster member's claim on one channel's daily post lasts (DELIVERY_CLAIM_LEASE_MS unset); see schedule/delivery-claims.ts. */
export const DEFAULT_CLAIM_LEASE_MS = 30_000;
/** A claim must outlast one post (a look in the channel, the record, the post itself), a few seconds under load. */
export const MIN_CLAIM_LEASE_MS = 2_000;
/** A member that died holding claims leaves their posts this long at most: ten minutes late is already late. */
export const MAX_CLAIM_LEASE_MS = 600_000;

/** Put before every key the bot writes to Redis, so several deployments (or test runs) can share one server. */
export const DEFAULT_REDIS_KEY_PREFIX = 'wotd-bot:';

/** A redis: or rediss: (TLS) URL with a host, as REDIS_URL and migrate-store take. */
export function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A postgres: or postgresql: URL, as STORE_URL and migrate-store take for a PostgreSQL store. */
export function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'postgres:' || url.protocol === 'postgresql:';
  } catch {
    return false;
  }
}

/**
 * The one way a URL from the settings is shown (messages, logs, exit output): its whole userinfo (user name and
 * password) replaced by ***, whatever characters the password holds and whether or not the URL parses.
 *
 * A password may hold @ : / ? # unencoded, so no parser can be trusted to find where it ends: everything after
 * "scheme://" (or from the start, for a value without one) up to the LAST @ is hidden. That may hide an @ in a
 * path too, which is harmless; showing part of a password is not.
 */
export function withoutPassword(value: string): string {
  const scheme = /^\s*[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  const rest = value.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  return at < 0 ? value : `${scheme}***${rest.slice(at)}`;
}

/**
 * The userinfo of a URL setting in every form a library might print it (as written, percent-decoded, and each
 * part alone), for the logger's list of secrets; empty when there is none.
 */
export function urlSecrets(value: string | undefined): string[] {
  if (!value) return [];
  const scheme = /^\s*[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  const rest = value.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  if (at < 0) return [];
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  // A PostgreSQL URL's userinfo without a colon is a role name (often "postgres"), not a secret; elsewhere (Redis)
  // a lone userinfo may be the password itself.
  if (colon < 0 && /^postgres(ql)?:\/\/$/i.test(scheme.trim())) return [];
  const parts = colon < 0 ? [userinfo] : [userinfo, userinfo.slice(colon + 1)];
  const forms = new Set<string>();
  for (const part of parts) {
    forms.add(part);
    try {
      forms.add(decodeURIComponent(part));
    } catch {
      // Not valid percent-encoding: only the form as written can appear.
    }
    forms.add(encodeURIComponent(part));
  }
  return [...forms].filter((form) => form !== '');
}

const httpUrl = (example: string) =>
  z
    .string()
    .trim()
    .refine(isHttpUrl, { message: `expected an http(s) URL such as ${example}` })
    .transform((value) => value.replace(/\/+$/, ''));

const positiveInt = (what: string, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, { message: `expected ${what}` })
    .transform(Number)
    .refine((value) => Number.isSafeInteger(value) && value > 0 && value <= max, { message: `expected ${what}` });

/** The longest a Node timer can wait; a longer timeout would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const nonNegativeInt = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, { message: `expected ${what}` })
    .transform(Number)
    .refine((value) => Number.isSafeInteger(value), { message: `expected ${what}` });

/** Where the database mirror (src/wotd/mirror/) comes from: WOTD_MIRROR. */
export type MirrorSetting =
  /** The site's own snapshots (the origin of WOTD_SITE_URL, or the embedded service at the console). */
  | { kind: 'on' }
  | { kind: 'off' }
  /** Another site publishing /databases, or one snapshot file's URL (a path ending in .db). */
  | { kind: 'url'; url: string }
  /** A SQLite snapshot on this machine. */
  | { kind: 'file'; path: string };

const MIRROR_EXPECTED = 'expected on, off, an http(s) URL of a site that publishes /databases, or the path of a SQLite snapshot file';

/** WOTD_MIRROR's value, or why it is not one: on | off | an http(s) URL | a file path. */
export function parseMirrorSetting(value: string): MirrorSetting | { error: string } {
  const text = value.trim();
  if (/^on$/i.test(text)) return { kind: 'on' };
  if (/^off$/i.test(text)) return { kind: 'off' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    return isHttpUrl(text) ? { kind: 'url', url: text } : { error: `${MIRROR_EXPECTED} (only http: and https: URLs are fetched)` };
  }
  if (text === '' || text.length > 4096 || /[\u0000-\u001f]/.test(text)) return { error: MIRROR_EXPECTED };
  const problem = notARegularFile(text, { mustRead: true });
  return problem ? { error: `expected the path of a SQLite snapshot file; this one ${problem}` } : { kind: 'file', path: text };
}

/** The stores the bot runs on: SQLite, PostgreSQL, Redis (REDIS_URL's, also taken here) and a throwaway one in memory. */
export const STORE_SCHEMES = ['sqlite', 'postgres', 'postgresql', 'redis', 'rediss', 'memory'] as const;

const STORE_URL_EXPECTED =
  'expected sqlite://PATH (such as sqlite://data/store.sqlite) or postgres://USER:PASSWORD@HOST:5432/DATABASE (supported: sqlite, postgres, postgresql; Redis through REDIS_URL)';

/** A URL of one of STORE_SCHEMES, as STORE_URL takes. */
export function isSupportedStoreUrl(value: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  return scheme !== undefined && (STORE_SCHEMES as readonly string[]).includes(scheme);
}

const PORT = 'a port number from 0 to 65535 (0: any free port); leave it unset to turn the endpoint off';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const envSchema = z.object({
  WOTD_API_URL: httpUrl('https://api.wotd.site').optional(),
  WOTD_API_VARIANT: z
    .enum(['A', 'B', 'auto'], { message: 'expected A, B or auto' })
    .default('auto'),
  WOTD_SITE_URL: httpUrl('https://wotd.site').default('https://wotd.site'),
  WOTD_MIRROR: z
    .string()
    .transform((value, context): MirrorSetting => {
      const parsed = parseMirrorSetting(value);
      if ('error' in parsed) {
        context.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    })
    .default({ kind: 'on' }),
  WOTD_RATE_LIMIT: positiveInt('a whole number of requests per minute, at least 1').default(10),
  WOTD_RATE_LIMIT_SCOPE: z
    .enum(['service', 'endpoint'], { message: 'expected service (one budget for all endpoints) or endpoint (one each)' })
    .default('service'),
  WOTD_TIMEOUT_MS: positiveInt(`a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, MAX_TIMER_MS).default(5000),
  WOTD_SERVICE_DB: z
    .string()
    .trim()
    .min(1, { message: 'expected a path to a SQLite file' })
    .superRefine((path, context) => {
      const problem = notARegularFile(path, { mustRead: true });
      if (problem) context.addIssue({ code: 'custom', message: `expected a path to a SQLite file; this one ${problem}` });
    })
    .default(bundledWordList),
  STORE_URL: z
    .string()
    .trim()
    .refine(isSupportedStoreUrl, { message: STORE_URL_EXPECTED })
    .default('sqlite://data/store.sqlite'),
  REDIS_URL: z
    .string()
    .trim()
    .refine(isRedisUrl, { message: 'expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379' })
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9:_.-]+$/, { message: 'expected letters, digits and : _ . - only, such as wotd-bot:' })
    .default(DEFAULT_REDIS_KEY_PREFIX),
  DISCORD_TOKEN: optionalText,
  DISCORD_APPLICATION_ID: z
    .string()
    .trim()
    .regex(/^\d{17,20}$/, { message: 'expected a Discord application id (a snowflake of 17 to 20 digits)' })
    .optional(),
  DISCORD_API_URL: httpUrl('https://discord.com/api').default('https://discord.com/api'),
  DISCORD_SHARD_COUNT: z
    .string()
    .trim()
    .refine((value) => value === '' || /^(auto|\d+)$/i.test(value), { message: 'expected auto or a whole number of shards' })
    .optional(),
  DISCORD_SHARD_IDS: z
    .string()
    .trim()
    .regex(/^\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*$/, { message: 'expected shard ids such as 0-3 or 0,2,4' })
    .optional(),
  DISCORD_GLOBAL_RATE_LIMIT: positiveInt('a whole number of requests per second, at least 1').default(50),
  SUBSCRIPTION_LIMIT: positiveInt('a whole number of subscriptions per server, at least 1').default(5),
  DELIVERY_CONCURRENCY: positiveInt('a whole number of parallel posts, at least 1').default(20),
  METRICS_PORT: nonNegativeInt(PORT)
    .refine((value) => value <= 65_535, { message: `expected ${PORT}` })
    .optional(),
  METRICS_HOST: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.:-]+$/, { message: 'expected an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::' })
    .default('127.0.0.1'),
  DELIVERY_RETENTION_DAYS: positiveInt(`a whole number of days, at least ${MIN_DELIVERY_RETENTION_DAYS}`)
    .refine((value) => value >= MIN_DELIVERY_RETENTION_DAYS, {
      message: `expected a whole number of days, at least ${MIN_DELIVERY_RETENTION_DAYS} (posts are checked against the last days' records)`,
    })
    .default(DEFAULT_DELIVERY_RETENTION_DAYS),
  DELIVERY_CLAIM_LEASE_MS: positiveInt(`a whole number of milliseconds from ${MIN_CLAIM_LEASE_MS} to ${MAX_CLAIM_LEASE_MS}`, MAX_CLAIM_LEASE_MS)
    .refine((value) => value >= MIN_CLAIM_LEASE_MS, {
      message: `expected a whole number of milliseconds from ${MIN_CLAIM_LEASE_MS} to ${MAX_CLAIM_LEASE_MS} (a claim must outlast one post)`,
    })
    .default(DEFAULT_CLAIM_LEASE_MS),
  CONSOLE_LANGUAGE: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, { message: 'expected a language such as de, pt-BR or zh-CN' })
    .optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'expected one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  LOG_FORMAT: z
    .enum(['auto', 'pretty', 'json'], { message: 'expected auto (readable at a terminal, JSON lines otherwise), pretty or json' })
    .default('auto'),
});

/** The name of every setting loadConfig reads. */
export const SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Unset and empty variables both mean "use the default". */
function presentValues(env: NodeJS.ProcessEnv): Record<string, string> {
  const values: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') values[key] = value;
  }
  return values;
}

/** Reads and validates the settings; a bad value throws a ConfigError of one short line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = presentValues(env);
  const parsed = envSchema.safeParse(values);
  if (parsed.success) {
    const problem = pathProblem(parsed.data);
    if (problem) throw invalidSetting(problem.setting, values[problem.setting] ?? '', problem.message);
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const variable = String(issue?.path[0] ?? 'environment');
  throw invalidSetting(variable, values[variable] ?? '', issue?.message ?? 'invalid value');
}

/** The one form of a refused setting: `Invalid NAME="value": expected …`, the value without its password. */
function invalidSetting(variable: string, given: string, message: string): ConfigError {
  const value = withoutPassword(given);
  // Only the start of a long value (a file pasted into a variable, say), on one line.
  const shown = variable === 'DISCORD_TOKEN' ? '(hidden)' : `${quoted(value)}${value.length > 40 ? ` (${value.length} characters)` : ''}`;
  return new ConfigError(`Invalid ${variable}=${shown}: ${message}`);
}

/** Loads `.env` from the working directory when there is one; real environment variables win. */
export function loadDotEnv(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
