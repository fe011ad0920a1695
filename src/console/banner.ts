import { withoutPassword } from '../config/settings.ts';

/** Where the console's answers come from, for the first screen. */
export type ConsoleSource = { kind: 'embedded'; dbPath: string } | { kind: 'remote'; url: string };

/**
 * The first screen: what this is, how to use it, and how to put the bot on Discord instead. `metricsUrl` is where
 * the health endpoint listens, when METRICS_PORT is set (with port 0, the only place the chosen port is shown).
 * `mirror`: where the database mirror copies from (src/wotd/mirror/), or null when WOTD_MIRROR is off.
 */
export function consoleBanner(source: ConsoleSource, metricsUrl?: string, mirror: string | null = null): string {
  const from =
    source.kind === 'embedded'
      ? `offline, answering from the embedded Word-of-the-Day service (word list ${source.dbPath})`
      : `answering from the Word-of-the-Day service at ${withoutPassword(source.url)}`;
  const copy =
    mirror === null
      ? 'The database mirror is off (WOTD_MIRROR=off): every lookup asks the service.'
      : `Past days, history and searches are answered from a local copy of the service's database (${withoutPassword(mirror)}) once it is loaded, refreshed daily; until then, and if it cannot be, from the service.`;
  return [
    'wotd-bot: console mode',
    `The bot runs here in your terminal, ${from}.`,
    copy,
    ...(metricsUrl ? [`Health and metrics: ${metricsUrl}/healthz and ${metricsUrl}/metrics`] : []),
    '',
    'Type slash commands as you would in Discord, for example:',
    '  /wotd date:2025-01-14',
    '  /wotd-history limit:5',
    '  /wotd-find word:andante',
    'Press a button of the latest reply with buttons: press Older (or its number); of message #2: press #2 Older.',
    'help lists every command; exit or Ctrl-D quits.',
    '',
    'To run the bot on Discord instead: put DISCORD_TOKEN=<your bot token> in .env, register the commands once with',
    '`npm run deploy-commands` (add `-- --guild <server id>` to try it in one server first), then `npm start` again.',
  ].join('\n');
}
