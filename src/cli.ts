import { ConfigError } from './config/settings.ts';
import { quoted, singleLine } from './config/message-text.ts';
import { nearestName } from './config/nearest-name.ts';
import { packageVersion } from './config/package-files.ts';
import { invokedAs } from './cli/invoked-as.ts';

/** One `wotd-bot` subcommand: takes its own arguments, returns the process exit code. */
export type Subcommand = (args: string[]) => Promise<number>;

// Each entry loads its module only when run, so `wotd-bot serve` never loads discord.js.
const subcommands: Record<string, { summary: string; load: () => Promise<Subcommand> }> = {
  start: {
    summary: 'run the bot: on Discord when DISCORD_TOKEN is set, otherwise the offline console at a terminal',
    load: async () => (await import('./run-mode.ts')).runBot,
  },
  console: {
    summary: 'run the offline console on purpose (also without a terminal, or with DISCORD_TOKEN set)',
    load: async () => {
      const { runBot } = await import('./run-mode.ts');
      return (args) => runBot(args, 'console');
    },
  },
  serve: {
    summary: 'run the Word-of-the-Day service over HTTP (--port, --host, --variant, --db, --rate-limit)',
    load: async () => (await import('./service/serve-command.ts')).runServe,
  },
  'deploy-commands': {
    summary: 'register the slash commands with Discord, globally or in one server (--guild ID)',
    load: async () => (await import('./discord/deploy-commands.ts')).runDeployCommands,
  },
  'migrate-store': {
    summary: 'copy subscriptions and delivery records to another store: --from URL --to URL (sqlite://, redis://)',
    load: async () => (await import('./cli/migrate-store.ts')).runMigrateStore,
  },
  'check-due-index': {
    summary: 'compare the daily posts\' due-time index with the subscriptions, and with --repair make them agree',
    load: async () => (await import('./cli/check-due-index.ts')).runCheckDueIndex,
  },
  query: {
    summary: 'look up the word of a day: query [DATE] (YYYY-MM-DD or DD-MM-YYYY; --json, --api-url, --variant)',
    load: async () => (await import('./cli/lookup-command.ts')).runQuery,
  },
  history: {
    summary: 'the words before a day, newest first: history [DATE] [--limit N] (--json, --api-url, --variant)',
    load: async () => (await import('./cli/lookup-command.ts')).runHistory,
  },
  find: {
    summary: 'every day a word was the word of the day: find WORD (--json, --api-url, --variant)',
    load: async () => (await import('./cli/lookup-command.ts')).runFind,
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(subcommands).map((name) => name.length));
  const lines = Object.entries(subcommands).map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`);
  return ['Usage: wotd-bot <command> [options]', '       wotd-bot --version', '', 'Commands:', ...lines].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name = 'start', ...args] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`wotd-bot ${packageVersion()}\n`);
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const subcommand = subcommands[name];
  if (!subcommand) {
    const nearest = nearestName(name, Object.keys(subcommands));
    process.stderr.write(
      nearest
        ? `wotd-bot: unknown command ${quoted(name)}; did you mean \`${nearest}\`? (${invokedAs()} --help lists them all)\n`
        : `wotd-bot: unknown command ${quoted(name)}\n\n${usage()}\n`,
    );
    return 2;
  }
  try {
    const run = await subcommand.load();
    return await run(args);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`wotd-bot: ${singleLine(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}
