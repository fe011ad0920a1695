import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, isHttpUrl, isRedisUrl, isSupportedStoreUrl, loadConfig, type Config } from '../../src/config/settings.ts';
import { ShardPlanError, shardPlan } from '../../src/discord/shards.ts';
import { openStore, storeLocation } from '../../src/store/open-store.ts';
import { openWotdAdapter } from '../../src/wotd/adapter.ts';
import { isWotdError } from '../../src/wotd/errors.ts';
import { startCommandWorld, type CommandWorld } from '../commands/world.ts';
import { tempDir } from '../service/http.ts';
import { nastyText, NUMBERS, PROPERTY_TIMEOUT_MS, RUNS, settings, trackUnhandled, withinBound } from './generated.ts';

/**
 * Generated values for every environment setting: each is either accepted, and then usable (within the range the
 * code can work with), or refused with one short line naming the setting and what it expects; no other exception
 * escapes. Accepted service settings are then used for real: the adapter they configure answers a lookup from our
 * service on loopback, in bounded time.
 */

const SEED = 9_104;

type Setting = keyof Config;

/** What each setting's accepted values must be, beyond the type: the range the code that uses it can work with. */
const SANE: Record<Setting, (value: unknown) => boolean> = {
  WOTD_API_URL: (value) => typeof value === 'string' && isHttpUrl(value) && !value.endsWith('/'),
  WOTD_API_VARIANT: (value) => value === 'A' || value === 'B' || value === 'auto',
  WOTD_SITE_URL: (value) => typeof value === 'string' && isHttpUrl(value) && !value.endsWith('/'),
  WOTD_MIRROR: (value) => {
    const setting = value as { kind?: unknown; url?: unknown; path?: unknown };
    if (setting.kind === 'on' || setting.kind === 'off') return true;
    if (setting.kind === 'url') return typeof setting.url === 'string' && isHttpUrl(setting.url);
    return setting.kind === 'file' && typeof setting.path === 'string' && setting.path !== '' && setting.path.trim() === setting.path && !/[\u0000-\u001f]/.test(setting.path);
  },
  WOTD_RATE_LIMIT: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  WOTD_RATE_LIMIT_SCOPE: (value) => value === 'service' || value === 'endpoint',
  // A timer cannot wait longer than 2^31-1 ms: Node fires a longer one at once.
  WOTD_TIMEOUT_MS: (value) => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 2 ** 31 - 1,
  WOTD_SERVICE_DB: (value) => typeof value === 'string' && value.trim() === value && value !== '',
  STORE_URL: (value) => typeof value === 'string' && isSupportedStoreUrl(value),
  REDIS_URL: (value) => typeof value === 'string' && isRedisUrl(value),
  REDIS_KEY_PREFIX: (value) => typeof value === 'string' && /^[A-Za-z0-9:_.-]+$/.test(value),
  DISCORD_TOKEN: (value) => typeof value === 'string' && value.trim() === value && value !== '',
  DISCORD_APPLICATION_ID: (value) => typeof value === 'string' && /^\d{17,20}$/.test(value),
  DISCORD_API_URL: (value) => typeof value === 'string' && isHttpUrl(value) && !value.endsWith('/'),
  DISCORD_SHARD_COUNT: (value) => typeof value === 'string',
  DISCORD_SHARD_IDS: (value) => typeof value === 'string',
  SUBSCRIPTION_LIMIT: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  DELIVERY_CONCURRENCY: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  DISCORD_GLOBAL_RATE_LIMIT: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  DELIVERY_RETENTION_DAYS: (value) => Number.isSafeInteger(value) && (value as number) >= 3,
  DELIVERY_CLAIM_LEASE_MS: (value) => Number.isSafeInteger(value) && (value as number) >= 2000 && (value as number) <= 600_000,
  METRICS_PORT: (value) => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 65_535,
  METRICS_HOST: (value) => typeof value === 'string' && /^[A-Za-z0-9.:-]+$/.test(value),
  CONSOLE_LANGUAGE: (value) => typeof value === 'string' && /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(value),
  LOG_LEVEL: (value) => ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(value as string),
  LOG_FORMAT: (value) => ['auto', 'pretty', 'json'].includes(value as string),
};
const SETTINGS = Object.keys(SANE) as Setting[];

/** Values near what each setting takes, to be mixed with anything at all. */
const NEAR: string[] = [
  ...NUMBERS, '5000', '2147483647', '2147483648', '4294967296', '9007199254740993', '1e9', '100000000', '  7  ', '+5', '0x1F',
  'A', 'b', 'AUTO', 'auto ', 'C', 'service', 'Endpoint', 'ip', 'info', 'INFO', 'verbose', 'silent', 'true',
  'https://api.wotd.site', 'http://127.0.0.1:8080/', 'https://', 'http:/x', 'ftp://x', 'https://user:secret@host/', 'javascript:alert(1)',
  'http://[::1]:99999', 'https://exa mple.com', 'sqlite://data/store.sqlite', 'sqlite://', 'sqlite://:memory:', 'memory://',
  'serialize://x', 'redis://', 'redis://127.0.0.1:6379', 'rediss://u:p@h:6380/2', 'redis-tls://a:s3cret@b', 'wotd-bot:', 'a b',
  '12345678901234567', '123456789012345678901', 'auto', '8', '0-3', '0,2,4', '3-0', '0-4096', '1 - 2', '0,,1', '4097',
];

const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NEAR) },
  { weight: 3, arbitrary: nastyText({ extra: NEAR, maxPieces: 6, huge: 20_000 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,40}$/) },
);

/** Every refusal: a ConfigError of one short line, naming the setting, the value (hidden for the token) and what it expects. */
function expectRefusal(error: unknown, setting: Setting, given: string): void {
  expect(error, `${setting}=${JSON.stringify(given.slice(0, 80))} threw something else`).toBeInstanceOf(ConfigError);
  const message = (error as ConfigError).message;
  expect(message.startsWith(`Invalid ${setting}=`), message.slice(0, 200)).toBe(true);
  expect(message, message.slice(0, 200)).toMatch(/: expected /);
  expect(message, 'more than one line').not.toMatch(/[\n\r\u2028\u2029]/);
  expect(message.length, `a refusal of ${message.length} characters`).toBeLessThanOrEqual(400);
  if (setting === 'DISCORD_TOKEN') expect(message).not.toContain(given.trim());
}

describe('generated environment settings', () => {
  it.each(SETTINGS)('%s: accepted in range, or refused in one line naming it', (setting) => {
    fc.assert(
      fc.property(value, (given) => {
        let config: Config;
        try {
          config = loadConfig({ [setting]: given });
        } catch (error) {
          expectRefusal(error, setting, given);
          return;
        }
        const read = config[setting];
        if (given.trim() === '') return;
        expect(SANE[setting](read), `${setting}=${JSON.stringify(given.slice(0, 80))} was accepted as ${JSON.stringify(read)}`).toBe(true);
      }),
      settings(SEED, RUNS),
    );
  });

  it('shard settings the config takes start a shard plan, or are refused in one line by it', () => {
    fc.assert(
      fc.property(value, value, (count, ids) => {
        let config: Config;
        try {
          config = loadConfig({ DISCORD_SHARD_COUNT: count, DISCORD_SHARD_IDS: ids });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          return;
        }
        try {
          shardPlan(config.DISCORD_SHARD_COUNT, config.DISCORD_SHARD_IDS);
        } catch (error) {
          expect(error, `${count} / ${ids}`).toBeInstanceOf(ShardPlanError);
          expect((error as Error).message).not.toMatch(/[\n\r]/);
          expect((error as Error).message.length).toBeLessThanOrEqual(300);
        }
      }),
      settings(SEED, RUNS),
    );
  });
});

let world: CommandWorld;
let dir: Awaited<ReturnType<typeof tempDir>>;
const unhandled = trackUnhandled();

beforeAll(async () => {
  world = await startCommandWorld();
  dir = await tempDir('generated-env');
});

afterAll(async () => {
  unhandled.stop();
  await world?.close();
  await dir?.cleanup();
  expect(unhandled.problems).toEqual([]);
});

describe('accepted settings at work', () => {
  it('an accepted rate limit, timeout, variant and scope give an adapter that answers a lookup in bounded time', async () => {
    const number = fc.oneof(fc.constantFrom(...NEAR), fc.stringMatching(/^[0-9]{1,16}$/), fc.integer({ min: 1, max: 100_000 }).map(String));
    const variantText = fc.oneof(fc.constantFrom('A', 'B', 'auto', ' a ', 'AUTO', ''), value);
    const scopeText = fc.oneof(fc.constantFrom('service', 'endpoint', ''), value);
    await fc.assert(
      fc.asyncProperty(number, number, variantText, scopeText, async (rate, timeout, variant, scope) => {
        let config: Config;
        try {
          config = loadConfig({ WOTD_RATE_LIMIT: rate, WOTD_TIMEOUT_MS: timeout, WOTD_API_VARIANT: variant, WOTD_RATE_LIMIT_SCOPE: scope });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          return;
        }
        const store = await openStore<unknown>('memory://', 'wotd-cache');
        const adapter = await openWotdAdapter(config, { baseUrl: world.proxy.url, store, retries: 0 });
        const where = `WOTD_RATE_LIMIT=${rate} WOTD_TIMEOUT_MS=${timeout} WOTD_API_VARIANT=${variant} WOTD_RATE_LIMIT_SCOPE=${scope}`;
        try {
          const found = await withinBound(where, adapter.getEntry('2025-01-14', { priority: 'interactive', maxWaitMs: 1_000 }));
          expect(found.value.word, where).toBe('serendipity');
        } catch (error) {
          // A limit so low that this lookup must wait is "busy"; a timeout too short for the service says so.
          const timedOut = isWotdError(error, 'unavailable') && error.message.endsWith(`no answer within ${config.WOTD_TIMEOUT_MS} ms`);
          if (!isWotdError(error, 'rate_limited') && !timedOut) throw error;
        } finally {
          await adapter.close();
        }
      }),
      settings(SEED, 150),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('an accepted STORE_URL opens a store, or fails in one line that says what is wrong with it', async () => {
    const storeUrl = fc.oneof(
      fc.constantFrom('memory://', 'memory://x', 'sqlite://', 'serialize://x', 'keyv://x', 'sqlite-x://a', 'postgres://u@127.0.0.1:1/db', 'mongodb://x'),
      nastyText({ maxPieces: 3 }).map((path) => `sqlite://${join(dir.dir, path.replace(/\u0000/g, ''))}`),
      fc.stringMatching(/^[a-z][a-z0-9+.-]{0,8}$/).map((scheme) => `${scheme}://somewhere`),
    );
    await fc.assert(
      fc.asyncProperty(storeUrl, async (url) => {
        let config: Config;
        try {
          config = loadConfig({ STORE_URL: url });
        } catch (error) {
          expectRefusal(error, 'STORE_URL', url);
          return;
        }
        if (/^rediss?:/i.test(config.STORE_URL)) return;
        try {
          const store = await withinBound(`STORE_URL=${url}`, openStore<unknown>(storeLocation(config), 'probe'));
          await store.set('k', 1);
          await store.disconnect();
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          expect(message, `STORE_URL=${url}`).not.toMatch(/[\n\r]/);
          expect(message, `STORE_URL=${url}: ${message}`).toMatch(/STORE_URL|sqlite|SQLITE|package/);
        }
      }),
      settings(SEED, 300),
    );
  }, PROPERTY_TIMEOUT_MS);
});
