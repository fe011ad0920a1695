import { DiscordAPIError, DiscordjsError, DiscordjsErrorCodes, HTTPError } from 'discord.js';

/**
 * Logging in to Discord when the network is not there yet (hosts start bots before it is up): network errors and
 * 5xx answers are tried again, with exponential back-off and full jitter up to a minute (login-backoff.ts); a refusal that
 * retrying cannot change (a bad token, intents Discord refuses) stops at once with a message that says what to do.
 */

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** Gateway close codes after which Discord will not let this login in, however often it is tried. */
export const FATAL_CLOSE_CODES: ReadonlyMap<number, string> = new Map([
  [4004, 'Discord rejected DISCORD_TOKEN (gateway close 4004 Authentication failed): copy a fresh token from the Bot page of the developer portal'],
  [4010, 'Discord refused the shard settings (gateway close 4010 Invalid shard): check --shards and --shard-ids'],
  [4011, 'Discord requires sharding for this bot (gateway close 4011 Sharding required): start with --shards auto'],
  [4012, 'Discord refused the gateway version (gateway close 4012 Invalid API version)'],
  [4013, 'Discord refused the gateway intents (gateway close 4013 Invalid intents): the intents sent are not valid'],
  [
    4014,
    'Discord refused the gateway intents (gateway close 4014 Disallowed intents): enable them for the bot on the Bot page of the developer portal',
  ],
]);

/**
 * @discordjs/ws turns those close codes into plain errors that reject the login before the shard reports its close
 * code, so the errors are told apart by their messages (test/bot/login-backoff.test.ts holds the library to them).
 */
const GATEWAY_REFUSAL_CODES: ReadonlyMap<string, number> = new Map([
  ['Authentication failed', 4004],
  ['Invalid shard', 4010],
  ['Sharding is required', 4011],
  ['Used an invalid API version', 4012],
  ['Used invalid intents', 4013],
  ['Used disallowed intents', 4014],
]);

/** A network failure or a 5xx, anywhere in the error's causes: worth trying again. */
export function isRetryableLoginError(error: unknown, depth = 0): boolean {
  if (depth > 8 || typeof error !== 'object' || error === null) return false;
  if (error instanceof DiscordjsError) return false;
  if (error instanceof HTTPError || error instanceof DiscordAPIError) return error.status >= 500;
  const { code, name, cause, errors } = error as { code?: unknown; name?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  // @discordjs/rest aborts a request that took longer than its timeout.
  if (name === 'AbortError' || name === 'TimeoutError') return true;
  if (Array.isArray(errors) && errors.some((inner) => isRetryableLoginError(inner, depth + 1))) return true;
  return isRetryableLoginError(cause, depth + 1);
}

/** What to tell the operator when the login stops for good. */
export function loginFailure(error: unknown): Error {
  if (error instanceof DiscordjsError && error.code === DiscordjsErrorCodes.TokenInvalid) {
    return new Error('Discord rejected DISCORD_TOKEN as an invalid token (401 Unauthorized): copy a fresh token from the Bot page of the developer portal', {
      cause: error,
    });
  }
  if (!(error instanceof Error)) return new Error(String(error));
  const code = GATEWAY_REFUSAL_CODES.get(error.message);
  const message = code === undefined ? undefined : FATAL_CLOSE_CODES.get(code);
  return message === undefined ? error : new Error(message, { cause: error });
}

