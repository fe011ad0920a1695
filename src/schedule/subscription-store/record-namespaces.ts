import type Keyv from 'keyv';
import type { z } from 'zod';
import type { Logger } from '../../config/logger.ts';
import type { StoreLock } from '../../store/lock.ts';

/** What every part of the subscription store works on: its two Keyv namespaces, its locks, its clock and log. */
export interface RecordNamespaces {
  readonly subscriptions: Keyv<unknown>;
  readonly deliveries: Keyv<unknown>;
  readonly lock: StoreLock;
  readonly now: () => Date;
  readonly logger?: Logger;
}

/** How many records one read asks for at most. */
export const READ_BATCH = 500;

/** How a record copied in from another store was written: indexed like any other, or as it was (damaged). */
export type RestoreOutcome = 'restored' | 'damaged';

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A list of ids kept under one key of the `subscriptions` namespace (anything else there reads as empty). */
export async function readIds(subscriptions: Keyv<unknown>, key: string): Promise<string[]> {
  const value = await subscriptions.get(key);
  return isStringArray(value) ? value : [];
}

/** A stored record checked against its schema: null when there is none, or when it is damaged (logged as `damaged`). */
export function parseRecord<T>(schema: z.ZodType<T>, key: string, value: unknown, logger: Logger | undefined, damaged: string): T | null {
  if (value === undefined || value === null) return null;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  logger?.error({ key, issue: parsed.error.issues[0]?.message }, damaged);
  return null;
}
