import type Keyv from 'keyv';
import type { StoreLock } from '../../store/lock.ts';
import { dmTarget, type Subscription } from '../subscription.ts';
import type { KeptChannelSettings } from './kept-channel-settings.ts';
import type { DmNoticeList } from './dm-notice-list.ts';
import type { DueEntries } from './due-entries.ts';
import { readIds } from './record-namespaces.ts';
import type { SubscriptionIndex } from './subscription-index.ts';
import type { SubscriptionReader } from './subscription-reads.ts';

/**
 * Erasure (privacy): a server's or a member's subscriptions, and the servers the bot was removed from. Keys:
 * removed:<guildId> holds when the bot was removed from a server that has data here; `removals` lists them. All
 * of it runs under the server's lock, so a re-add and the erasure never cross.
 */
export class GuildErasure {
  constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly lock: StoreLock,
    private readonly reader: SubscriptionReader,
    private readonly index: SubscriptionIndex,
    private readonly dmNotices: DmNoticeList,
    private readonly due: DueEntries,
    private readonly channelSettings: KeptChannelSettings,
  ) {}

  async eraseGuild(guildId: string): Promise<Subscription[]> {
    return this.lock.withLock(`guild:${guildId}`, () => this.eraseLocked(guildId));
  }

  async markRemoved(guildId: string, at: string): Promise<boolean> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      if ((await readIds(this.subscriptions, `guild:${guildId}`)).length === 0) return false;
      if (typeof (await this.subscriptions.get(`removed:${guildId}`)) !== 'string') await this.subscriptions.set(`removed:${guildId}`, at);
      await this.lock.withLock('removals', async () => {
        const listed = await readIds(this.subscriptions, 'removals');
        if (!listed.includes(guildId)) await this.subscriptions.set('removals', [...listed, guildId]);
      });
      return true;
    });
  }

  async removedAt(guildId: string): Promise<string | null> {
    const at = await this.subscriptions.get(`removed:${guildId}`);
    return typeof at === 'string' ? at : null;
  }

  async cancelRemoval(guildId: string): Promise<boolean> {
    if ((await this.removedAt(guildId)) === null) return false;
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const had = (await this.removedAt(guildId)) !== null;
      await this.forgetRemoval(guildId);
      return had;
    });
  }

  async removals(): Promise<Array<{ guildId: string; at: string }>> {
    const found: Array<{ guildId: string; at: string }> = [];
    for (const guildId of await readIds(this.subscriptions, 'removals')) {
      const at = await this.removedAt(guildId);
      if (at !== null) found.push({ guildId, at });
    }
    return found;
  }

  async eraseRemoved(guildId: string, removedBefore: string): Promise<Subscription[] | null> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const at = await this.removedAt(guildId);
      if (at === null) {
        // A listing with no record behind it (a crash between the two writes) is tidied away.
        await this.forgetRemoval(guildId);
        return null;
      }
      if (at >= removedBefore) return null;
      return this.eraseLocked(guildId);
    });
  }

  private async eraseLocked(guildId: string): Promise<Subscription[]> {
    const ids = await readIds(this.subscriptions, `guild:${guildId}`);
    const removed = await this.reader.readMany(ids);
    for (const channelId of ids) {
      try {
        await this.subscriptions.delete(`sub:${channelId}`);
      } finally {
        this.channelSettings.forget([channelId]);
      }
      await this.index.remove(channelId);
    }
    await this.due.removed(ids);
    // A member's erasure forgets them on the notice list even if their subscription is already gone.
    const member = guildId.startsWith('user:') ? [dmTarget(guildId.slice('user:'.length)).channelId] : [];
    await this.dmNotices.forget([...ids, ...member]);
    await this.subscriptions.delete(`guild:${guildId}`);
    await this.forgetRemoval(guildId);
    return removed;
  }

  private async forgetRemoval(guildId: string): Promise<void> {
    await this.subscriptions.delete(`removed:${guildId}`);
    await this.lock.withLock('removals', async () => {
      const listed = await readIds(this.subscriptions, 'removals');
      if (listed.includes(guildId)) await this.subscriptions.set('removals', listed.filter((id) => id !== guildId));
    });
  }
}
