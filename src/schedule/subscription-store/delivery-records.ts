import type Keyv from 'keyv';
import type { Logger } from '../../config/logger.ts';
import { scanNamespace, scanNamespaceKeys, type StoredEntry } from '../../store/scan.ts';
import type { IsoDate } from '../../wotd/dates.ts';
import { deliverySchema, type DeliveryReading, type DeliveryRecord } from '../subscription.ts';
import type { DueMove } from '../../store/due-index.ts';
import { checkDelivery, decodeDelivery } from './delivery-decoding.ts';
import type { DueEntries } from './due-entries.ts';
import { parseRecord, READ_BATCH, type RestoreOutcome } from './record-namespaces.ts';

const LEFT_OUT = 'stored delivery record is damaged; left out';

/** The key of a channel's delivery record for a service day, in the `deliveries` namespace. */
function deliveryKey(channelId: string, day: string): string {
  return `${channelId}:${day}`;
}

function deliveryKeysOf(channelIds: string[], days: IsoDate[]): string[] {
  return channelIds.flatMap((channelId) => days.map((day) => deliveryKey(channelId, day)));
}

/** One record per channel and service day, read and deleted in batches of READ_BATCH. */
export class DeliveryRecords {
  constructor(
    private readonly deliveries: Keyv<unknown>,
    private readonly logger?: Logger,
    private readonly due?: DueEntries,
  ) {}

  async getMany(channelIds: string[], day: IsoDate): Promise<Array<DeliveryReading | null>> {
    const results: Array<DeliveryReading | null> = [];
    for (let start = 0; start < channelIds.length; start += READ_BATCH) {
      const batch = channelIds.slice(start, start + READ_BATCH);
      const raws = await this.readRaw(batch.map((channelId) => deliveryKey(channelId, day)));
      batch.forEach((channelId, i) => results.push(this.reading(channelId, day, raws[i])));
    }
    return results;
  }

  /**
   * With a move, the record and the channel's due-time move are one write. Null: the caller moves the entry itself
   * later (a delivery's first record). Without either, a record that leaves the day unfinished (sending, retrying)
   * makes the channel due at once, so the scheduler looks at it: one written from outside a tick (a copy, a repair).
   */
  async put(record: DeliveryRecord, move?: DueMove | null): Promise<void> {
    const key = deliveryKey(record.channelId, record.day);
    if (move && this.due) {
      await this.due.putDelivery(key, record, move);
      return;
    }
    await this.deliveries.set(key, record);
    if (move === undefined && (record.state === 'sending' || record.state === 'retrying')) await this.due?.makeDue(record.channelId);
  }

  async getOn(channelIds: string[], days: IsoDate[]): Promise<DeliveryRecord[]> {
    const records = await this.readRecords(deliveryKeysOf(channelIds, days));
    return records.filter((record): record is DeliveryRecord => record !== null);
  }

  async deleteOn(channelIds: string[], days: IsoDate[]): Promise<number> {
    return this.deleteKeys(deliveryKeysOf(channelIds, days));
  }

  async deleteKeys(keys: string[]): Promise<number> {
    let deleted = 0;
    for (let start = 0; start < keys.length; start += READ_BATCH) {
      const batch = keys.slice(start, start + READ_BATCH);
      const values = await this.deliveries.getMany(batch);
      const present = batch.filter((_, i) => values[i] !== undefined && values[i] !== null);
      if (present.length > 0) await this.deliveries.deleteMany(present);
      deleted += present.length;
    }
    return deleted;
  }

  keys(): AsyncGenerator<string[]> {
    return scanNamespaceKeys(this.deliveries);
  }

  records(): AsyncGenerator<StoredEntry[]> {
    return scanNamespace(this.deliveries);
  }

  async restore(key: string, value: unknown): Promise<RestoreOutcome> {
    await this.deliveries.set(key, value);
    const parsed = deliverySchema.safeParse(value);
    return parsed.success && key === deliveryKey(parsed.data.channelId, parsed.data.day) ? 'restored' : 'damaged';
  }

  /** The records under `keys`, in batches, in the same order (null where there is none or it is damaged). */
  private async readRecords(keys: string[]): Promise<Array<DeliveryRecord | null>> {
    const results: Array<DeliveryRecord | null> = [];
    for (let start = 0; start < keys.length; start += READ_BATCH) {
      const batch = keys.slice(start, start + READ_BATCH);
      const raws = await this.readRaw(batch);
      batch.forEach((key, i) => {
        const stored = decodeDelivery(this.deliveries, raws[i]);
        if (stored.kind === 'damaged') this.logger?.error({ key, issue: stored.issue }, LEFT_OUT);
        results.push(stored.kind === 'value' ? parseRecord(deliverySchema, key, stored.value, this.logger, LEFT_OUT) : null);
      });
    }
    return results;
  }

  /**
   * Stored values exactly as the store holds them. Keyv's own reads throw on text that is not JSON (failing every
   * channel's read with one bad row) and give "nothing" for the wrong shape, which would read as never sent.
   */
  private async readRaw(keys: string[]): Promise<unknown[]> {
    const adapter = this.deliveries.store as { get(key: string): Promise<unknown> | unknown; getMany?(keys: string[]): Promise<unknown[]> };
    const full = this.deliveries._getKeyPrefixArray(keys);
    try {
      if (typeof adapter.getMany === 'function') return await adapter.getMany(full);
      return await Promise.all(full.map((key) => adapter.get(key)));
    } catch (error) {
      if (this.deliveries.throwOnErrors) throw error;
      this.logger?.error({ err: error }, 'could not read delivery records; taken as none');
      return [];
    }
  }

  private reading(channelId: string, day: IsoDate, raw: unknown): DeliveryReading | null {
    const checked = checkDelivery(channelId, day, decodeDelivery(this.deliveries, raw));
    if (checked.kind === 'missing') return null;
    if (checked.kind === 'record') return checked.record;
    const key = deliveryKey(channelId, day);
    this.logger?.error({ key, issue: checked.issue }, 'stored delivery record is damaged; its day is confirmed against the channel before posting');
    return { channelId, day, state: 'damaged', issue: checked.issue };
  }
}
