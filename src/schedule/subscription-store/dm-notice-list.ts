import type Keyv from 'keyv';
import type { StoreLock } from '../../store/lock.ts';
import { dmTarget, dmUserOf, owesDmNotice, type Subscription } from '../subscription.ts';
import { isStringArray } from './record-namespaces.ts';
import type { SubscriptionIndex } from './subscription-index.ts';
import type { SubscriptionReader } from './subscription-reads.ts';

/*
 * The `dm-notices` list. Telling a member why their DM subscription was switched off is checked after every command
 * they run; reading their subscription for that each time cost a store read per command. The list names everyone
 * who may be owed the notice. A member is added before the record that owes it is written (so a crash between the
 * two leaves a name too many, never one too few) and is taken off only once their record owes nothing. Each store
 * reads the list at most every DM_NOTICES_REFRESH_MS, and knows its own additions at once.
 */

const DM_NOTICES_KEY = 'dm-notices';
/** How long a store trusts its copy of `dm-notices` before reading it again (another process may have added to it). */
export const DM_NOTICES_REFRESH_MS = 10_000;

export class DmNoticeList {
  /** This store's copy of the list and when it was read (this store's clock, ms). */
  private copy: { users: Set<string>; readAt: number } | null = null;
  private reading: Promise<Set<string>> | null = null;

  constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly lock: StoreLock,
    private readonly now: () => Date,
    private readonly reader: SubscriptionReader,
    private readonly index: SubscriptionIndex,
  ) {}

  /** mayOwe from the copy while it is fresh, without a promise; undefined when the list is to be read again. */
  mayOweNow(userId: string): boolean | undefined {
    const known = this.copy;
    return known && this.now().getTime() - known.readAt < DM_NOTICES_REFRESH_MS ? known.users.has(userId) : undefined;
  }

  mayOwe(userId: string): Promise<boolean> {
    // Not an async function: this runs after every command, and nearly always answers from the copy.
    const known = this.copy;
    if (known && this.now().getTime() - known.readAt < DM_NOTICES_REFRESH_MS) return Promise.resolve(known.users.has(userId));
    this.reading ??= this.read().finally(() => {
      this.reading = null;
    });
    return this.reading.then((users) => users.has(userId));
  }

  async settle(userId: string): Promise<void> {
    await this.lock.withLock(DM_NOTICES_KEY, async () => {
      if (owesDmNotice(await this.reader.get(dmTarget(userId).channelId))) return;
      await this.change((users) => users.delete(userId));
    });
  }

  /** Adds the members these records owe the notice to the list; called before the records are written. */
  async note(subscriptions: readonly Subscription[]): Promise<void> {
    const owed = subscriptions.filter(owesDmNotice).flatMap((subscription) => dmUserOf(subscription.channelId) ?? []);
    if (owed.length === 0) return;
    await this.lock.withLock(DM_NOTICES_KEY, () =>
      this.change((users) => {
        const before = users.size;
        for (const userId of owed) users.add(userId);
        return users.size > before;
      }),
    );
  }

  /** Takes the members of these DM channels off the list (their subscription was removed). */
  async forget(channelIds: readonly string[]): Promise<void> {
    const gone = channelIds.flatMap((channelId) => dmUserOf(channelId) ?? []);
    if (gone.length === 0) return;
    await this.lock.withLock(DM_NOTICES_KEY, () => this.change((users) => gone.map((userId) => users.delete(userId)).includes(true)));
  }

  private async read(): Promise<Set<string>> {
    const readAt = this.now().getTime();
    const listed = await this.subscriptions.get(DM_NOTICES_KEY);
    // A store written before the list existed gets it built once, from its DM subscriptions.
    const users = new Set(isStringArray(listed) ? listed : await this.lock.withLock(DM_NOTICES_KEY, () => this.stored()));
    this.copy = { users, readAt };
    return users;
  }

  /** The list as stored, built first on a store written before it existed; called under the list's lock. */
  private async stored(): Promise<string[]> {
    const listed = await this.subscriptions.get(DM_NOTICES_KEY);
    if (isStringArray(listed)) return listed;
    const dmChannels = (await this.index.channelIds()).filter((channelId) => dmUserOf(channelId) !== null);
    const owed = (await this.reader.readMany(dmChannels)).filter(owesDmNotice).flatMap((subscription) => dmUserOf(subscription.channelId) ?? []);
    await this.subscriptions.set(DM_NOTICES_KEY, owed);
    return owed;
  }

  /** Read-modify-write of the list (under its lock); `change` says whether it changed anything. */
  private async change(change: (users: Set<string>) => boolean): Promise<void> {
    const readAt = this.now().getTime();
    const users = new Set(await this.stored());
    if (change(users)) await this.subscriptions.set(DM_NOTICES_KEY, [...users]);
    this.copy = { users, readAt };
  }
}
