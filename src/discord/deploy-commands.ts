import { DiscordAPIError, HTTPError, REST, Routes, type APIApplication, type APIApplicationCommand } from 'discord.js';
import { loadConfig, loadDotEnv, withoutPassword } from '../config/settings.ts';
import { nearestName } from '../config/nearest-name.ts';
import { quoted } from '../config/message-text.ts';
import type { SlashCommand } from '../replies/interactions.ts';
import { restApiBase } from './client.ts';
import { MAX_RATE_LIMIT_WAIT_S, withSaneRateLimits } from './rate-limit-headers.ts';

/** Where the deploy command reads its settings and writes its report; the defaults are the real process. */
export interface DeployIo {
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** The commands to register; by default the bot's own from `commands/index.ts`. */
  commands?: readonly SlashCommand[];
  /** The longest one rate limit from Discord may make it wait, in seconds (default 60; tests lower it). */
  maxRateLimitWaitS?: number;
}

const USAGE = `Usage: wotd-bot deploy-commands [--guild ID]

Registers the bot's slash commands with Discord: globally, or only in the server with the given id
(a server's commands update at once, which suits testing). Needs DISCORD_TOKEN; the application id comes from
DISCORD_APPLICATION_ID or is read from Discord.`;

const SNOWFLAKE = /^\d{17,20}$/;

type Parsed = { help: true } | { help: false; guildId: string | null } | { error: string };

export function parseDeployArgs(args: string[]): Parsed {
  let guildId: string | null = null;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--help' || arg === '-h') return { help: true };
    let value: string | undefined;
    if (arg === '--guild') {
      value = args[index + 1];
      index += 1;
      if (value === undefined || value.startsWith('-')) return { error: '--guild needs a server id, such as --guild 123456789012345678' };
    } else if (arg.startsWith('--guild=')) {
      value = arg.slice('--guild='.length);
    } else {
      const nearest = arg.startsWith('-') ? nearestName(arg.split('=')[0] ?? arg, ['--guild', '--help']) : null;
      return { error: `unknown argument ${quoted(arg)}${nearest ? `; did you mean \`${nearest}\`?` : ''}` };
    }
    if (!SNOWFLAKE.test(value)) {
      return { error: `${quoted(value)} is not a server id; copy it with Developer Mode on (a number of 17 to 20 digits)` };
    }
    guildId = value;
  }
  return { help: false, guildId };
}

async function defaultCommands(): Promise<readonly SlashCommand[]> {
  const module = await import('../../commands/index.ts');
  return module.commands;
}

/** A one-line explanation of why Discord refused or could not be reached. */
export function describeDiscordFailure(error: unknown, apiUrl: string): string {
  if (error instanceof DiscordAPIError) {
    if (error.status === 401) return 'Discord rejected DISCORD_TOKEN (401 Unauthorized); copy a fresh token from the developer portal.';
    if (error.status === 403) return `Discord refused (403 Forbidden): ${error.message}. Is the bot in that server, with the applications.commands scope?`;
    if (error.status === 404) return `Discord answered 404 for ${withoutPassword(error.url)}: ${error.message}. Check the application and server ids.`;
    return `Discord refused the request (${error.status}, code ${String(error.code)}): ${error.message}`;
  }
  if (error instanceof HTTPError) return `Discord answered ${error.status} ${error.message}; try again later.`;
  const message = error instanceof Error ? error.message : String(error);
  return `could not reach Discord at ${withoutPassword(apiUrl)}: ${message.split(apiUrl).join(withoutPassword(apiUrl))}`;
}

async function resolveApplicationId(rest: REST): Promise<string> {
  try {
    const application = (await rest.get(Routes.currentApplication())) as APIApplication;
    return application.id;
  } catch (error) {
    if (error instanceof DiscordAPIError && error.status === 401) throw error;
    // Older API versions and some proxies only know the OAuth2 route.
    const application = (await rest.get(Routes.oauth2CurrentApplication())) as APIApplication;
    return application.id;
  }
}

/** `wotd-bot deploy-commands [--guild ID]`: registers the slash commands globally or in one server. */
export async function runDeployCommands(args: string[], io: DeployIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const parsed = parseDeployArgs(args);
  if ('error' in parsed) {
    stderr.write(`wotd-bot deploy-commands: ${parsed.error}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    stdout.write(`${USAGE}\n`);
    return 0;
  }

  if (!io.env) loadDotEnv();
  const config = loadConfig(io.env ?? process.env);
  const token = config.DISCORD_TOKEN;
  if (!token) {
    stderr.write(
      'wotd-bot deploy-commands: DISCORD_TOKEN is not set. Put the bot token from the Discord developer portal ' +
        '(your application → Bot → Reset Token) in .env or the environment, then run this again.\n',
    );
    return 2;
  }

  const commands = io.commands ?? (await defaultCommands());
  const body = commands.map((command) => command.data.toJSON());
  const rest = new REST({
    api: restApiBase(config.DISCORD_API_URL),
    retries: 1,
    timeout: 15_000,
    makeRequest: withSaneRateLimits(undefined, io.maxRateLimitWaitS ?? MAX_RATE_LIMIT_WAIT_S),
  }).setToken(token);
  try {
    const applicationId = config.DISCORD_APPLICATION_ID ?? (await resolveApplicationId(rest));
    const route = parsed.guildId
      ? Routes.applicationGuildCommands(applicationId, parsed.guildId)
      : Routes.applicationCommands(applicationId);
    const answer: unknown = await rest.put(route, { body });
    if (!Array.isArray(answer)) throw new Error('Discord answered the registration with something other than the list of commands');
    const registered = answer as APIApplicationCommand[];
    const where = parsed.guildId ? `in server ${parsed.guildId}` : 'globally';
    const lines = registered.map((command) => `  /${command.name} (${command.id}): ${command.description}`);
    stdout.write(
      `Registered ${registered.length} slash command${registered.length === 1 ? '' : 's'} ${where} for application ${applicationId}:\n` +
        `${lines.join('\n')}\n`,
    );
    return 0;
  } catch (error) {
    stderr.write(`wotd-bot deploy-commands: ${describeDiscordFailure(error, config.DISCORD_API_URL)}\n`);
    return 1;
  }
}
