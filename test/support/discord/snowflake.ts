/** Discord snowflakes: milliseconds since the Discord epoch in the top bits, so discord.js reads sane timestamps. */
const DISCORD_EPOCH = 1_420_070_400_000;
const WORKER = 1n << 17n;
let lastMs = 0;
let increment = 0;

/**
 * A new id, unique in this process: the 12-bit increment counts ids within one millisecond, and once it runs out
 * the timestamp moves on to the next millisecond (bulk world building makes thousands of ids per millisecond).
 */
export function snowflake(at: number = Date.now()): string {
  if (at > lastMs) {
    lastMs = at;
    increment = 0;
  } else if (increment < 0xfff) increment += 1;
  else {
    lastMs += 1;
    increment = 0;
  }
  return snowflakeAt(lastMs, increment);
}

/** The id for exactly this millisecond and increment: for ids whose timestamp matters (e.g. which shard a guild is on). */
export function snowflakeAt(ms: number, increment = 0): string {
  return (((BigInt(ms) - BigInt(DISCORD_EPOCH)) << 22n) | WORKER | BigInt(increment & 0xfff)).toString();
}

/** The shard that receives a guild's events: `(guild_id >> 22) % shard_count`, as Discord routes them. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^\d{15,20}$/.test(value);
}
