import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, NO_PINGS, startBotWorld, waitForSent, type BotWorld } from './bot-world.ts';

/**
 * A full limiter: the adapter may send one request per second (read-ahead off, so each lookup is one request).
 * A member's lookup that has to queue for the limiter is deferred and answered when its turn comes; once the
 * service has said 429 (pausing every request for 60 s), members are told at once that it is busy and when to retry.
 */
let world: BotWorld;

beforeAll(async () => {
  world = await startBotWorld({ adapter: { rateLimit: 1, rateWindowMs: 1_000, readAhead: 0 } });
});

afterAll(async () => {
  await world?.close();
});

function invoke(date: string) {
  return world.discord.invokeCommand({ name: 'wotd', options: { date }, channelId: world.channelId });
}

const BUSY = /^The Word-of-the-Day service is busy right now\. Please try again <t:\d+:R>\.$/;

describe('a full limiter', () => {
  it('defers while the lookup queues, then edits in the answer', async () => {
    await world.wotd.adapter.getEntry('2025-01-02');
    const handle = invoke('2025-01-03');
    const sent = await waitForSent(world.discord, handle, 2);
    expect(sent[0]).toEqual({ call: 'POST callback', body: { type: 5, data: { flags: 0 } } });
    expect(sent[1]).toMatchObject({
      call: 'PATCH @original',
      body: { content: '', ...BASE, embeds: [{ title: 'candor', footer: { text: '2025-01-03 · Word of the Day from wotd.example' } }], components: [], allowed_mentions: NO_PINGS },
    });
  });

  it('after a 429 from the service, answers "busy" with when to retry at once, without asking it', async () => {
    world.wotd.proxy.rateLimited = true;
    const before = world.wotd.proxy.requests;
    // Background work meets the 429 first; the adapter then holds every request back for the service's 60 s window.
    await expect(world.wotd.adapter.getEntry('2025-01-06', { priority: 'background', maxWaitMs: 2_000 })).rejects.toMatchObject({ code: 'rate_limited' });
    const upstream = world.wotd.proxy.requests;
    expect(upstream).toBe(before + 1);
    const sent = await waitForSent(world.discord, invoke('2025-01-07'), 1);
    expect(sent).toEqual([
      { call: 'POST callback', body: { type: 4, data: { content: expect.stringMatching(BUSY), ...BASE, allowed_mentions: NO_PINGS, flags: 64 } } },
    ]);
    expect(world.wotd.proxy.requests).toBe(upstream);
  });

  it('still serves what is cached', async () => {
    const sent = await waitForSent(world.discord, invoke('2025-01-03'), 1);
    expect(sent[0]).toMatchObject({ call: 'POST callback', body: { type: 4, data: { embeds: [{ title: 'candor' }] } } });
  });
});
