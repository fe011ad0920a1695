/**
 * Input echoed in a one-line message (stderr, a log line, an HTTP error). Whatever was given, the message stays one
 * short line: line breaks and control characters are escaped, and long input is cut, never between the two halves
 * of a character outside the BMP.
 */

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** Given text in double quotes, JSON-escaped, only its first `max` characters when long. */
export function quoted(text: string, max = 40): string {
  // JSON escapes C0 controls and line feeds, but not DEL, C1 controls (CSI among them) or these line separators.
  return JSON.stringify(cut(text, max)).replace(/[\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A whole message (which may quote input raw) as one line: breaks and control characters escaped, cut to `max`. */
export function singleLine(text: string, max = 300): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) =>
    char === '\n' ? '\\n' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return cut(escaped, max);
}

/** `start` without DISCORD_TOKEN where nobody can type (a service manager, a container, a pipe from a script). */
export const NO_TOKEN_NO_TERMINAL =
  'DISCORD_TOKEN is not set (in .env or the environment) and no terminal is attached; set it to run on Discord, or run the offline console on purpose with `wotd-bot console` (npm run console)';

/** A variable that looks like one of our settings and is not one (see setting-names.ts); it does not stop the bot. */
export function unknownSettingWarning(name: string, nearest: string | null): string {
  const shown = /^[A-Za-z0-9_]{1,64}$/.test(name) ? name : quoted(name);
  return `warning: ${shown} is not a wotd-bot setting, and is ignored; ${nearest ? `did you mean ${nearest}?` : '.env.example lists every setting'}`;
}

/** Printed once the bot is on Discord, as a plain line (also inside the log's "connected" line). */
export function inviteLine(url: string): string {
  return `Add the bot to a server: ${url}`;
}
