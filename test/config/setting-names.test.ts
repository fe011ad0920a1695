import { describe, expect, it } from 'vitest';
import { misspelledSettings, OUR_PREFIXES } from '../../src/config/setting-names.ts';
import { SETTING_NAMES } from '../../src/config/settings.ts';

describe('misspelled setting names', () => {
  it('a slip in one of our names gets one warning line suggesting it', () => {
    expect(misspelledSettings(['DISCORD_TOKN', 'LOG_LEVL', 'discord_token', 'WOTD_API_URI', 'STORE_ULR'], SETTING_NAMES)).toEqual([
      'warning: DISCORD_TOKN is not a wotd-bot setting, and is ignored; did you mean DISCORD_TOKEN?',
      'warning: LOG_LEVL is not a wotd-bot setting, and is ignored; did you mean LOG_LEVEL?',
      'warning: discord_token is not a wotd-bot setting, and is ignored; did you mean DISCORD_TOKEN?',
      'warning: WOTD_API_URI is not a wotd-bot setting, and is ignored; did you mean WOTD_API_URL?',
      'warning: STORE_ULR is not a wotd-bot setting, and is ignored; did you mean STORE_URL?',
    ]);
  });

  it('a name with our prefix that is near no setting is still named, with where the settings are listed', () => {
    expect(misspelledSettings(['WOTD_LANGUAGE', 'METRICS_PATH', 'CONSOLE_LANG'], SETTING_NAMES)).toEqual([
      'warning: WOTD_LANGUAGE is not a wotd-bot setting, and is ignored; .env.example lists every setting',
      'warning: METRICS_PATH is not a wotd-bot setting, and is ignored; .env.example lists every setting',
      'warning: CONSOLE_LANG is not a wotd-bot setting, and is ignored; .env.example lists every setting',
    ]);
  });

  it('knows the prefix of every setting, so a new setting family is never left out of the check', () => {
    for (const name of SETTING_NAMES) expect(OUR_PREFIXES.some((prefix) => name.startsWith(prefix)), name).toBe(true);
  });

  it('says nothing of our settings, the test servers, or what a shell, systemd, pm2 or a container set', () => {
    const environment = [
      ...SETTING_NAMES, 'REDIS_TEST_URL', 'POSTGRES_TEST_URL', 'PATH', 'HOME', 'USER', 'LANG', 'TERM', 'PWD', 'SHELL', 'NODE_ENV',
      'NODE_OPTIONS', 'INVOCATION_ID', 'JOURNAL_STREAM', 'SYSTEMD_EXEC_PID', 'PM2_HOME', 'PM2_USAGE', 'pm_id', 'unique_id', 'HOSTNAME',
      'NO_COLOR', 'FORCE_COLOR', 'TZ', 'TMPDIR', 'CI', 'npm_lifecycle_event', 'npm_config_cache', 'LOGNAME', 'DISPLAY',
    ];
    expect(misspelledSettings(environment, SETTING_NAMES)).toEqual([]);
  });

  it('quotes a strange name instead of printing it raw', () => {
    const [warning] = misspelledSettings(['WOTD_\u001b[2J'], SETTING_NAMES);
    expect(warning).toBe('warning: "WOTD_\\u001b[2J" is not a wotd-bot setting, and is ignored; .env.example lists every setting');
  });
});
