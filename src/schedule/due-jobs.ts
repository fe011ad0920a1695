import type { APIEmbed } from 'discord.js';
import type { DeliveryJob, DeliveryJobs } from './delivery.ts';
import type { Slot } from './due.ts';
import type { DeliveryReading } from './subscription.ts';

/**
 * A tick's posts, kept as compactly as a fan-out of 100,000 channels allows: a channel id and a group number per
 * post, the slot and embed once per group (the channels due at one zone and time, in one style), and the few
 * records a retry needs. A post's DeliveryJob is made when the fan-out reaches it. A list of DeliveryJob objects held
 * its channel id, the subscription's enabledAt and two objects per post, about three times as much, for as long as
 * the fan-out ran.
 */
export class DueJobs implements DeliveryJobs {
  private readonly channelIds: string[] = [];
  private readonly groupOf: number[] = [];
  /** Each post's due-time instant as read from the index. */
  private readonly dueAts: number[] = [];
  private readonly groups: Array<{ slot: Slot; embed: APIEmbed }> = [];
  private readonly groupNumbers = new Map<Slot, Map<APIEmbed, number>>();
  /** By position; most posts have none. */
  private readonly records = new Map<number, DeliveryReading>();

  get length(): number {
    return this.channelIds.length;
  }

  /** `slot` and `embed` are shared by many posts: the same objects make the same group. */
  add(channelId: string, slot: Slot, embed: APIEmbed, record: DeliveryReading | null, dueAt?: number): void {
    let bySlot = this.groupNumbers.get(slot);
    if (!bySlot) {
      bySlot = new Map();
      this.groupNumbers.set(slot, bySlot);
    }
    let group = bySlot.get(embed);
    if (group === undefined) {
      group = this.groups.length;
      this.groups.push({ slot, embed });
      bySlot.set(embed, group);
    }
    if (record) this.records.set(this.channelIds.length, record);
    this.channelIds.push(channelId);
    this.groupOf.push(group);
    this.dueAts.push(dueAt ?? Number.NaN);
  }

  at(index: number): DeliveryJob | undefined {
    const channelId = this.channelIds[index];
    const group = this.groups[this.groupOf[index] ?? -1];
    if (channelId === undefined || !group) return undefined;
    const dueAt = this.dueAts[index] ?? Number.NaN;
    const job: DeliveryJob = { channelId, slot: group.slot, embed: group.embed, record: this.records.get(index) ?? null };
    if (!Number.isNaN(dueAt)) job.dueAt = dueAt;
    return job;
  }
}
