import type Keyv from 'keyv';
import type { Logger } from '../../config/logger.ts';
import { scanNamespace, type StoredEntry } from '../../store/scan.ts';
import { subscriptionSchema, type Subscription } from '../subscription.ts';
import { parseRecord, READ_BATCH, readIds } from './record-namespaces.ts';
import type { SubscriptionIndex } from './subscription-index.ts';

/** Reads of `sub:<channelId>` records, one at a time or in batches; a damaged record is logged and skipped. */
export class SubscriptionReader {
  constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly index: SubscriptionIndex,
    private readonly logger?: Logger,
  ) {}

  async get(channelId: string): Promise<Subscription | null> {
    return this.parse(`sub:${channelId}`, await this.subscriptions.get(`sub:${channelId}`));
  }

  async listGuild(guildId: string): Promise<Subscription[]> {
    return this.readMany(await readIds(this.subscriptions, `guild:${guildId}`));
  }

  async listAll(): Promise<Subscription[]> {
    return this.readMany(await this.index.channelIds());
  }

  async *pages(): AsyncGenerator<Subscription[]> {
    const ids = await this.index.channelIds();
    for (let start = 0; start < ids.length; start += READ_BATCH) {
      const page = await this.readMany(ids.slice(start, start + READ_BATCH));
      if (page.length > 0) yield page;
    }
  }

  async readMany(channelIds: string[]): Promise<Subscription[]> {
    const found: Subscription[] = [];
    for (let start = 0; start < channelIds.length; start += READ_BATCH) {
      const keys = channelIds.slice(start, start + READ_BATCH).map((id) => `sub:${id}`);
      const values = await this.subscriptions.getMany(keys);
      values.forEach((value, i) => {
        const subscription = this.parse(keys[i] ?? '', value);
        if (subscription) found.push(subscription);
      });
    }
    return found;
  }

  /** The raw `sub:` records, damaged ones included, as scanned (the other keys of the namespace are left out). */
  async *records(): AsyncGenerator<StoredEntry[]> {
    for await (const page of scanNamespace(this.subscriptions)) {
      const records = page.filter(([key]) => key.startsWith('sub:'));
      if (records.length > 0) yield records;
    }
  }

  private parse(key: string, value: unknown): Subscription | null {
    return parseRecord(subscriptionSchema, key, value, this.logger, 'stored subscription is damaged; left untouched and skipped');
  }
}
