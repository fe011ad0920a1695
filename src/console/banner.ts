import { withoutPassword } from '../config/settings.ts';
import { consoleLocale, consoleT } from './console-locale.ts';
import { consoleNames, type ConsoleNames } from './console-names.ts';
import type { Translate } from '../replies/i18n/translate.ts';

/** Where the console's answers come from, for the first screen. */
export type ConsoleSource = { kind: 'embedded'; dbPath: string } | { kind: 'remote'; url: string };

/**
 * The first screen: what this is, how to use it, and how to put the bot on Discord instead. `metricsUrl` is where
 * the health endpoint listens, when METRICS_PORT is set (with port 0, the only place the chosen port is shown).
 * `mirror`: where the database mirror copies from (src/wotd/mirror/), or null when WOTD_MIRROR is off. The examples
 * go by `names`, the console's language's (`/wotd-verlauf anzahl:5`), as its texts do.
 */
export function consoleBanner(
  source: ConsoleSource,
  metricsUrl?: string,
  mirror: string | null = null,
  t: Translate = consoleT(),
  names: ConsoleNames = consoleNames(consoleLocale()),
): string {
  const n = (key: Parameters<ConsoleNames['ofKey']>[0]) => names.ofKey(key);
  const from =
    source.kind === 'embedded'
      ? t('console.banner.embedded', { path: source.dbPath })
      : t('console.banner.remote', { url: withoutPassword(source.url) });
  const copy = mirror === null ? t('console.banner.mirrorOff') : t('console.banner.mirror', { source: withoutPassword(mirror) });
  return [
    t('console.banner.title'),
    from,
    copy,
    ...(metricsUrl ? [t('console.banner.metrics', { healthz: `${metricsUrl}/healthz`, metrics: `${metricsUrl}/metrics` })] : []),
    '',
    t('console.banner.examples'),
    `  /${n('command.wotd.name')} ${n('option.date.name')}:2025-01-14`,
    `  /${n('command.wotd-history.name')} ${n('option.limit.name')}:5`,
    `  /${n('command.wotd-find.name')} ${n('option.word.name')}:andante`,
    t('console.banner.press', { older: t('button.older') }),
    t('console.banner.help'),
    '',
    t('console.banner.discord', { token: `<${t('console.banner.token')}>`, server: `<${t('console.banner.serverId')}>` }),
  ].join('\n');
}
