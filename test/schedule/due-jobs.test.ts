import { expect, it } from 'vitest';
import { DueJobs } from '../../src/schedule/due-jobs.ts';
import type { Slot } from '../../src/schedule/due.ts';
import type { DeliveryReading } from '../../src/schedule/subscription.ts';

const slot = (serviceDay: string): Slot => ({ localDay: serviceDay, postAt: new Date(`${serviceDay}T09:00:00Z`), serviceDay });

it('gives back each post as it was added, sharing the slot and embed objects and keeping only the records there are', () => {
  const today = slot('2026-06-15');
  const yesterday = slot('2026-06-14');
  const full = { title: 'serendipity' };
  const compact = { title: 'serendipity', description: 'short' };
  const retrying: DeliveryReading = { channelId: 'c2', day: '2026-06-15', state: 'retrying', nonce: 'n', attempts: 1, updatedAt: '2026-06-15T09:00:00.000Z' };
  const jobs = new DueJobs();
  jobs.add('c1', today, full, null);
  jobs.add('c2', today, full, retrying);
  jobs.add('c3', yesterday, compact, null);
  jobs.add('c4', today, compact, null);

  expect(jobs.length).toBe(4);
  expect([0, 1, 2, 3].map((i) => jobs.at(i))).toEqual([
    { channelId: 'c1', slot: today, embed: full, record: null },
    { channelId: 'c2', slot: today, embed: full, record: retrying },
    { channelId: 'c3', slot: yesterday, embed: compact, record: null },
    { channelId: 'c4', slot: today, embed: compact, record: null },
  ]);
  expect(jobs.at(1)?.slot).toBe(today);
  expect(jobs.at(3)?.embed).toBe(compact);
  expect(jobs.at(4)).toBeUndefined();
  expect(jobs.at(-1)).toBeUndefined();
});
