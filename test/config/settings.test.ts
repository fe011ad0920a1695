import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, urlSecrets } from '../../src/config/settings.ts';

describe('loadConfig', () => {
  it('fills in defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.WOTD_API_URL).toBeUndefined();
    expect(config.WOTD_API_VARIANT).toBe('auto');
    expect(config.WOTD_RATE_LIMIT).toBe(10);
    expect(config.STORE_URL).toBe('sqlite://data/store.sqlite');
    expect(config.DISCORD_TOKEN).toBeUndefined();
    // The word list that comes with the bot, wherever it is started from (a relative path would follow the working directory).
    expect(config.WOTD_SERVICE_DB).toBe(join(resolve(import.meta.dirname, '../..'), 'data', 'words.sqlite'));
    expect(loadConfig({ WOTD_SERVICE_DB: 'words/mine.sqlite' }).WOTD_SERVICE_DB).toBe('words/mine.sqlite');
  });

  it('treats empty values as unset and trims trailing slashes from URLs', () => {
    const config = loadConfig({ WOTD_API_URL: 'http://127.0.0.1:8080/', DISCORD_TOKEN: '  ' });
    expect(config.WOTD_API_URL).toBe('http://127.0.0.1:8080');
    expect(config.DISCORD_TOKEN).toBeUndefined();
  });

  it('names the variable, the value and what is expected in one line', () => {
    expect(() => loadConfig({ WOTD_API_VARIANT: 'C' })).toThrow(
      new ConfigError('Invalid WOTD_API_VARIANT="C": expected A, B or auto'),
    );
    expect(() => loadConfig({ WOTD_RATE_LIMIT: '0' })).toThrow(/^Invalid WOTD_RATE_LIMIT="0": expected a whole number/);
    expect(() => loadConfig({ WOTD_API_URL: 'ftp://x' })).toThrow(/^Invalid WOTD_API_URL="ftp:\/\/x": expected an http\(s\) URL/);
  });

  it('takes WOTD_MIRROR as on (the default), off, an http(s) URL or a file path, and says what it expected otherwise', () => {
    expect(loadConfig({}).WOTD_MIRROR).toEqual({ kind: 'on' });
    expect(loadConfig({ WOTD_MIRROR: ' OFF ' }).WOTD_MIRROR).toEqual({ kind: 'off' });
    expect(loadConfig({ WOTD_MIRROR: 'https://mirror.example/databases' }).WOTD_MIRROR).toEqual({ kind: 'url', url: 'https://mirror.example/databases' });
    expect(loadConfig({ WOTD_MIRROR: 'data/wotd_2025-01.db' }).WOTD_MIRROR).toEqual({ kind: 'file', path: 'data/wotd_2025-01.db' });
    expect(() => loadConfig({ WOTD_MIRROR: 'ftp://example.org/x.db' })).toThrow(
      new ConfigError(
        'Invalid WOTD_MIRROR="ftp://example.org/x.db": expected on, off, an http(s) URL of a site that publishes /databases, or the path of a SQLite snapshot file (only http: and https: URLs are fetched)',
      ),
    );
    expect(() => loadConfig({ WOTD_MIRROR: 'data/\u0007bell.db' })).toThrow(/^Invalid WOTD_MIRROR=.*: expected on, off, /);
  });

  it('takes a redis:// or rediss:// REDIS_URL, and says what it expected otherwise', () => {
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(loadConfig({ REDIS_URL: ' redis://127.0.0.1:6379 ' }).REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ REDIS_URL: 'rediss://user:pw@cache.example:6380/2' }).REDIS_URL).toBe('rediss://user:pw@cache.example:6380/2');
    expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(
      new ConfigError('Invalid REDIS_URL="http://127.0.0.1:6379": expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379'),
    );
    expect(() => loadConfig({ REDIS_URL: '127.0.0.1:6379' })).toThrow(/^Invalid REDIS_URL="127\.0\.0\.1:6379": expected a redis:\/\//);
    expect(() => loadConfig({ REDIS_URL: 'redis://' })).toThrow(/^Invalid REDIS_URL="redis:\/\/"/);
  });

  it('hides the whole userinfo (user name and password) of a bad URL', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis-tls://admin:s3cret@cache.example' })).toThrow(
      /^Invalid REDIS_URL="redis-tls:\/\/\*\*\*@cache\.example": /,
    );
    expect(() => loadConfig({ REDIS_URL: 'redis://admin:p@ss w:rd%@127.0.0.1:99999' })).toThrow(
      /^Invalid REDIS_URL="redis:\/\/\*\*\*@127\.0\.0\.1:99999": /,
    );
  });

  it('takes a REDIS_KEY_PREFIX of safe characters, default wotd-bot:', () => {
    expect(loadConfig({}).REDIS_KEY_PREFIX).toBe('wotd-bot:');
    expect(loadConfig({ REDIS_KEY_PREFIX: 'staging:wotd:' }).REDIS_KEY_PREFIX).toBe('staging:wotd:');
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'wotd*' })).toThrow(/^Invalid REDIS_KEY_PREFIX="wotd\*": expected letters, digits/);
  });

  it('reads the shard settings and the rate-limit scope, refusing what they cannot be', () => {
    expect(loadConfig({ DISCORD_SHARD_COUNT: '8', DISCORD_SHARD_IDS: '0-3' })).toMatchObject({ DISCORD_SHARD_COUNT: '8', DISCORD_SHARD_IDS: '0-3' });
    expect(loadConfig({}).WOTD_RATE_LIMIT_SCOPE).toBe('service');
    expect(() => loadConfig({ DISCORD_SHARD_COUNT: 'many' })).toThrow(/^Invalid DISCORD_SHARD_COUNT="many": expected auto or a whole number/);
    expect(() => loadConfig({ DISCORD_SHARD_IDS: 'first' })).toThrow(/^Invalid DISCORD_SHARD_IDS="first": expected shard ids such as 0-3/);
    expect(() => loadConfig({ WOTD_RATE_LIMIT_SCOPE: 'ip' })).toThrow(/^Invalid WOTD_RATE_LIMIT_SCOPE="ip": expected service/);
  });

  it('keeps delivery records 35 days by default, and never fewer than the scheduler reads', () => {
    expect(loadConfig({}).DELIVERY_RETENTION_DAYS).toBe(35);
    expect(loadConfig({ DELIVERY_RETENTION_DAYS: ' 90 ' }).DELIVERY_RETENTION_DAYS).toBe(90);
    expect(() => loadConfig({ DELIVERY_RETENTION_DAYS: '2' })).toThrow(
      new ConfigError('Invalid DELIVERY_RETENTION_DAYS="2": expected a whole number of days, at least 3 (posts are checked against the last days\' records)'),
    );
    expect(() => loadConfig({ DELIVERY_RETENTION_DAYS: 'a month' })).toThrow(/^Invalid DELIVERY_RETENTION_DAYS="a month": expected a whole number of days, at least 3$/);
  });

  it('reads DELIVERY_CLAIM_LEASE_MS, default 30 s, refusing a lease shorter than a post or longer than ten minutes', () => {
    expect(loadConfig({}).DELIVERY_CLAIM_LEASE_MS).toBe(30_000);
    expect(loadConfig({ DELIVERY_CLAIM_LEASE_MS: ' 3000 ' }).DELIVERY_CLAIM_LEASE_MS).toBe(3000);
    expect(loadConfig({ DELIVERY_CLAIM_LEASE_MS: '600000' }).DELIVERY_CLAIM_LEASE_MS).toBe(600_000);
    expect(() => loadConfig({ DELIVERY_CLAIM_LEASE_MS: '1999' })).toThrow(
      new ConfigError('Invalid DELIVERY_CLAIM_LEASE_MS="1999": expected a whole number of milliseconds from 2000 to 600000 (a claim must outlast one post)'),
    );
    expect(() => loadConfig({ DELIVERY_CLAIM_LEASE_MS: '600001' })).toThrow(/^Invalid DELIVERY_CLAIM_LEASE_MS="600001": expected a whole number of milliseconds from 2000 to 600000$/);
    expect(() => loadConfig({ DELIVERY_CLAIM_LEASE_MS: '30s' })).toThrow(/^Invalid DELIVERY_CLAIM_LEASE_MS="30s": expected a whole number of milliseconds from 2000 to 600000$/);
  });

  it('reads DISCORD_GLOBAL_RATE_LIMIT, default 50 a second, refusing what is not a positive whole number', () => {
    expect(loadConfig({}).DISCORD_GLOBAL_RATE_LIMIT).toBe(50);
    expect(loadConfig({ DISCORD_GLOBAL_RATE_LIMIT: ' 500 ' }).DISCORD_GLOBAL_RATE_LIMIT).toBe(500);
    expect(() => loadConfig({ DISCORD_GLOBAL_RATE_LIMIT: '0' })).toThrow(/^Invalid DISCORD_GLOBAL_RATE_LIMIT="0": expected a whole number of requests per second/);
    expect(() => loadConfig({ DISCORD_GLOBAL_RATE_LIMIT: '50/s' })).toThrow(/^Invalid DISCORD_GLOBAL_RATE_LIMIT="50\/s"/);
  });

  it('never shows the Discord token in an error', () => {
    expect(() => loadConfig({ DISCORD_TOKEN: 'secret', DISCORD_APPLICATION_ID: 'abc' })).toThrow(/DISCORD_APPLICATION_ID/);
  });
});

describe('urlSecrets (what the logger redacts of a URL setting)', () => {
  it('takes a password in every form, but not a PostgreSQL role name, which would blank "postgres" out of every log line', () => {
    expect(urlSecrets('postgres://postgres@127.0.0.1:5432/wotd')).toEqual([]);
    expect(urlSecrets('postgresql://wotd@db/wotd')).toEqual([]);
    expect(urlSecrets('postgres://wotd:s3cr%40t-pass@db/wotd')).toEqual(
      expect.arrayContaining(['s3cr%40t-pass', 's3cr@t-pass', 'wotd:s3cr%40t-pass']),
    );
    expect(urlSecrets('postgres://wotd:s3cr%40t-pass@db/wotd')).not.toContain('wotd');
    // Redis may carry the password alone before the @.
    expect(urlSecrets('redis://longpassword@127.0.0.1:6379')).toContain('longpassword');
    expect(urlSecrets('sqlite://data/store.sqlite')).toEqual([]);
  });
});
