import type Keyv from 'keyv';
import type { IsoDate } from '../../wotd/dates.ts';
import { deliverySchema, type DeliveryRecord } from '../subscription.ts';

/** A stored value as found: nothing, the value Keyv would give, or bytes that Keyv cannot turn into one. */
export type StoredValue = { kind: 'missing' } | { kind: 'value'; value: unknown } | { kind: 'damaged'; issue: string };

/** Undoes Keyv's serialization ({"value": …}) without throwing: unparseable text is reported, not thrown. */
function decodeStored(raw: unknown, deserialize: (text: string) => unknown): StoredValue {
  if (raw === undefined || raw === null) return { kind: 'missing' };
  let data: unknown = raw;
  if (typeof raw === 'string') {
    try {
      data = deserialize(raw);
    } catch (error) {
      return { kind: 'damaged', issue: `not JSON (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  if (typeof data !== 'object' || data === null || !('value' in data)) return { kind: 'damaged', issue: 'not a stored value' };
  const { value } = data as { value: unknown };
  return value === undefined || value === null ? { kind: 'damaged', issue: 'an empty stored value' } : { kind: 'value', value };
}

/** Decodes a raw value read from the `deliveries` namespace as that namespace's Keyv would. */
export function decodeDelivery(deliveries: Keyv<unknown>, raw: unknown): StoredValue {
  const deserialize = deliveries.deserialize ?? ((text: string) => JSON.parse(text) as unknown);
  return decodeStored(raw, (text) => deserialize(text));
}

export type CheckedDelivery = { kind: 'missing' } | { kind: 'record'; record: DeliveryRecord } | { kind: 'damaged'; issue: string };

/**
 * What a decoded value says about a channel's day: nothing, a valid record of that very channel and day,
 * or the reason it cannot be trusted.
 */
export function checkDelivery(channelId: string, day: IsoDate, stored: StoredValue): CheckedDelivery {
  if (stored.kind === 'missing') return { kind: 'missing' };
  if (stored.kind === 'damaged') return stored;
  const parsed = deliverySchema.safeParse(stored.value);
  if (!parsed.success) return { kind: 'damaged', issue: parsed.error.issues[0]?.message ?? 'not a delivery record' };
  if (parsed.data.channelId !== channelId || parsed.data.day !== day) return { kind: 'damaged', issue: 'a record of another channel or day' };
  return { kind: 'record', record: parsed.data };
}
