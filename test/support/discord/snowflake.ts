/** Discord snowflakes: milliseconds since the Discord epoch in the top bits, so discord.js reads sane timestamps. */
const DISCORD_EPOCH = 1_420_070_400_000n;
let increment = 0n;

export function snowflake(at: number = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | increment).toString();
}

export function isSnowflake(value: unknown): value is string {
  return typeof value === 'string' && /^\d{15,20}$/.test(value);
}
