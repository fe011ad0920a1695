import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('fills in defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.WOTD_API_URL).toBeUndefined();
    expect(config.WOTD_API_VARIANT).toBe('auto');
    expect(config.WOTD_RATE_LIMIT).toBe(10);
    expect(config.STORE_URL).toBe('sqlite://data/store.sqlite');
    expect(config.DISCORD_TOKEN).toBeUndefined();
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

  it('never shows the Discord token in an error', () => {
    expect(() => loadConfig({ DISCORD_TOKEN: 'secret', DISCORD_APPLICATION_ID: 'abc' })).toThrow(/DISCORD_APPLICATION_ID/);
  });
});
