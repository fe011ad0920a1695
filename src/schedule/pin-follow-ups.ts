import type { Logger } from '../config/logger.ts';
import type { DeliveryClaims } from './delivery-claims.ts';
import type { Slot } from './due.ts';
import { unexpectedReason } from './failure-reason.ts';
import { dueAfterDelivery } from './next-due.ts';
import type { PinFailure } from './pin-failure.ts';
import type { ChannelPoster } from './poster.ts';
import type { DeliveryReading, DeliveryRecord, Subscription } from './subscription.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * The `pin` setting's requests as work that follows the post: the post is made and recorded `sent` with `pinOwed`
 * (its due-time entry left where it is), its delivery slot is free for the next channel's post, and the pin (then
 * the unpin of the previous post) waits here for turns of the pace at the `after` priority. Once done, the record
 * drops `pinOwed`, keeps what failed (`pinFailures`: logged, counted and shown in the status) and moves the entry on.
 *
 * A pin never makes or repeats a post: the record is `sent` before it is owed. What is not done when the process
 * stops (a crash, a shutdown, a full queue) stays owed in the store, and the channel stays due: the next tick that
 * reads it offers the pin again (owedPinOf). Pinning twice is harmless; unpinning a post that is not pinned too.
 */

/** A recorded post whose pin is owed: its `sent` record, and its subscription, slot and due-time entry. */
export interface OwedPin {
  subscription: Subscription;
  record: DeliveryRecord & { messageId: string };
  slot: Slot;
  dueAt?: number | undefined;
  /** Found owed by a tick rather than left by this process's post: in cluster mode, made only under a claim. */
  pickedUp?: boolean;
}

/** Pins waiting at most; past it, a post's pin stays owed in the store for the next tick (small records, ~200 B each). */
export const PIN_QUEUE_CAP = 10_000;

/**
 * Cluster mode: a pin owed for less than this is left to the process that made the post (it is still working through
 * its pins); an older one is that of a process that stopped, and any process may make it.
 */
export const PIN_OWNER_GRACE_MS = 10 * 60_000;

export interface PinFollowUpOptions {
  store: SubscriptionStore;
  poster: Pick<ChannelPoster, 'pin'>;
  logger: Logger;
  now: () => Date;
  /** Pins in flight at most (each waits for its turns of the pace). */
  concurrency: number;
  /** True stops taking pins from the queue (shutdown): those not started stay owed. */
  stopping?: (() => boolean) | undefined;
  hooks?: { pinFailed?(): void } | undefined;
  claims?: DeliveryClaims | undefined;
  cap?: number;
}

export class PinFollowUps {
  private queue: OwedPin[] = [];
  private head = 0;
  private workers = 0;
  private idle: Array<() => void> = [];
  private overflow = 0;

  constructor(private readonly options: PinFollowUpOptions) {}

  /** Pins owed and not yet started. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Queues the pin; false when the queue is full or the process stopping (the pin stays owed in the store). */
  offer(pin: OwedPin): boolean {
    if (this.options.stopping?.() || this.waiting >= (this.options.cap ?? PIN_QUEUE_CAP)) {
      this.overflow += 1;
      return false;
    }
    this.queue.push(pin);
    if (this.workers < Math.max(1, this.options.concurrency)) void this.work();
    return true;
  }

  /**
   * Resolves when no pin is in flight and none waits (or, stopping, none is in flight): with how many were left owed
   * in the store for a later tick, which is logged here.
   */
  async settled(): Promise<{ leftOwed: number }> {
    if (this.workers > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    const leftOwed = this.overflow + this.waiting;
    this.queue = [];
    this.head = 0;
    this.overflow = 0;
    if (leftOwed > 0) this.options.logger.warn({ leftOwed }, 'daily pins left owed (queue full or stopping); the next tick, or the next start, makes them');
    return { leftOwed };
  }

  private take(): OwedPin | undefined {
    if (this.options.stopping?.() || this.head >= this.queue.length) return undefined;
    const next = this.queue[this.head];
    this.head += 1;
    // The taken part is dropped now and then, so the array does not keep every pin of a long fan-out.
    if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return next;
  }

  private async work(): Promise<void> {
    this.workers += 1;
    try {
      for (let next = this.take(); next; next = this.take()) await this.settle(next);
    } finally {
      this.workers -= 1;
      if (this.workers === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  private async settle(owed: OwedPin): Promise<void> {
    const { claims } = this.options;
    if (!owed.pickedUp || !claims) return this.pinAndRecord(owed);
    const claim = await claims.claim(owed.record.channelId, owed.record.day);
    if (!claim) return;
    try {
      await this.pinAndRecord(owed);
    } finally {
      await claim.release();
    }
  }

  private async pinAndRecord(owed: OwedPin): Promise<void> {
    const { logger, hooks } = this.options;
    const { channelId, day, messageId } = owed.record;
    const failures = await this.pin(owed);
    if (failures.length > 0) {
      hooks?.pinFailed?.();
      logger.warn({ channelId, day, messageId, reason: failures }, 'daily post sent, but pinning failed');
    }
    try {
      await this.record(owed, failures);
    } catch (error) {
      // The record still owes the pin and the channel stays due: the next tick makes it again (harmlessly).
      hooks?.pinFailed?.();
      logger.error({ channelId, day, messageId, err: error }, "the daily post's pin could not be recorded; the next tick makes it again");
    }
  }

  private async pin({ record, subscription }: OwedPin): Promise<PinFailure[]> {
    const pin = this.options.poster.pin;
    if (!pin) return [];
    try {
      return await pin({
        channelId: record.channelId,
        messageId: record.messageId,
        ...(subscription.channelName ? { channelName: subscription.channelName } : {}),
        ...(record.pinOwed?.unpin ? { unpin: record.pinOwed.unpin } : {}),
      });
    } catch (error) {
      return [{ what: 'pin', reason: unexpectedReason(error) }];
    }
  }

  /** The day's record without `pinOwed`, with what failed; written only over the same sent post still owing it. */
  private async record(owed: OwedPin, failures: PinFailure[]): Promise<void> {
    const { store, now } = this.options;
    const current = await store.getDelivery(owed.record.channelId, owed.record.day);
    // Erased, or already settled by another process meanwhile: nothing is left to write.
    if (current?.state !== 'sent' || current.messageId !== owed.record.messageId || !current.pinOwed) return;
    const { pinOwed, pinFailures, ...rest } = current;
    const settled: DeliveryRecord = { ...rest, ...(failures.length > 0 ? { pinFailures: failures } : {}), updatedAt: now().toISOString() };
    const move = owed.dueAt === undefined ? undefined : { channelId: owed.record.channelId, from: owed.dueAt, to: dueAfterDelivery(owed.subscription, owed.slot) };
    await store.putDelivery(settled, move);
  }
}

/**
 * The pin a due channel that owes no post still owes: its latest slot with a `sent` record, if that record owes its
 * pin. 'later' (cluster mode): another process made the post lately and is still working through its pins.
 */
export function owedPinOf(
  subscription: Subscription,
  slots: readonly Slot[],
  recordOf: (slot: Slot) => DeliveryReading | null,
  dueAt: number,
  now: Date,
  clustered: boolean,
): OwedPin | 'later' | null {
  for (let i = slots.length - 1; i >= 0; i -= 1) {
    const slot = slots[i];
    const record = slot ? recordOf(slot) : null;
    if (!slot || record?.state !== 'sent') continue;
    const { messageId } = record;
    if (!record.pinOwed || messageId === undefined) return null;
    const owedSince = Date.parse(record.updatedAt);
    if (clustered && Number.isFinite(owedSince) && owedSince > now.getTime() - PIN_OWNER_GRACE_MS) return 'later';
    return { subscription, record: { ...record, messageId }, slot, dueAt, pickedUp: true };
  }
  return null;
}
