import { OUR_PREFIXES } from '../../src/config/setting-names.ts';

/**
 * This process's environment for a bot started as a child, without any variable meant for the bot (our settings'
 * prefixes, in any case, and any `also` prefixes), so a developer's own settings never leak into a test; then
 * `settings` on top.
 */
export function childEnv(settings: Record<string, string> = {}, also: readonly string[] = []): NodeJS.ProcessEnv {
  const dropped = [...OUR_PREFIXES, ...also].map((prefix) => prefix.toUpperCase());
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!dropped.some((prefix) => key.toUpperCase().startsWith(prefix))) env[key] = value;
  }
  return Object.assign(env, settings);
}
