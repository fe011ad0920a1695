import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, NO_PINGS, startBotWorld, waitForSent, type BotWorld } from './bot-world.ts';

/**
 * A slow upstream: every lookup takes longer than the bot waits before deferring, so each answer must go
 * through the deferral path (callback type 5 or 6, then the edit) — never left unacknowledged.
 */
const UPSTREAM_DELAY_MS = 600;

let world: BotWorld;

beforeAll(async () => {
  // Without read-ahead each lookup fetches only what it asks for, so no test's answer is cached by an earlier one.
  world = await startBotWorld({ adapter: { readAhead: 0 } });
  world.wotd.proxy.delayMs = UPSTREAM_DELAY_MS;
});

afterAll(async () => {
  await world?.close();
});

function invoke(name: string, options: Record<string, string | number> = {}) {
  return world.discord.invokeCommand({ name, options, channelId: world.channelId });
}

const deferred = { call: 'POST callback', body: { type: 5, data: { flags: 0 } } };
const privateFollowUp = (content: unknown) => ({
  call: 'POST followup',
  body: { content, ...BASE, allowed_mentions: NO_PINGS, flags: 64 },
});

describe('a slow upstream', () => {
  it('/wotd defers (type 5), then edits @original with the embed', async () => {
    const handle = invoke('wotd', { date: '2025-01-10' });
    const sent = await waitForSent(world.discord, handle, 2);
    expect(sent).toEqual([
      deferred,
      {
        call: 'PATCH @original',
        body: {
          content: '',
          embeds: [
            {
              title: 'jovial',
              url: 'https://wotd.example',
              description: '**noun** · /jovial/\n\nA plain definition of jovial.',
              color: 0x5865f2,
              footer: { text: '2025-01-10 · Word of the Day from wotd.example' },
            },
          ],
          ...BASE,
          components: [],
          allowed_mentions: NO_PINGS,
        },
      },
    ]);
    const shown = await handle.waitForResponse();
    expect(shown.loading).toBe(false);
    expect(shown.ephemeral).toBe(false);
  });

  it('Older defers the update (type 6), then edits the message the button is on', async () => {
    const first = invoke('wotd-history', { date: '2025-01-10', limit: 2 });
    const page = await first.waitForResponse();
    expect((await waitForSent(world.discord, first, 2)).map((call) => call.call)).toEqual(['POST callback', 'PATCH @original']);
    const older = world.discord.pressButton({ customId: 'hist:2025-01-08:2', channelId: world.channelId, messageId: page.id });
    const sent = await waitForSent(world.discord, older, 2);
    expect(sent[0]).toEqual({ call: 'POST callback', body: { type: 6 } });
    expect(sent[1]).toMatchObject({
      call: 'PATCH @original',
      body: {
        content: '',
        embeds: [{ title: 'Words of the day before 8 January 2025', fields: [{ name: 'gusto · 2025-01-07' }, { name: 'fathom · 2025-01-06' }] }],
        components: [{ type: 1, components: [{ type: 2, custom_id: 'hist:2025-01-06:2', label: 'Older', style: 2, disabled: false }] }],
        allowed_mentions: NO_PINGS,
      },
    });
    const replaced = await older.waitForOriginal((message) => message.editedAt !== null);
    expect(replaced.id).toBe(page.id);
  });

  it('/wotd-find defers, then edits', async () => {
    const handle = invoke('wotd-find', { word: 'ember' });
    const sent = await waitForSent(world.discord, handle, 2);
    expect(sent[0]).toEqual(deferred);
    expect(sent[1]).toMatchObject({ call: 'PATCH @original', body: { embeds: [{ title: 'ember: word of the day once' }], allowed_mentions: NO_PINGS } });
  });

  it('a private answer after the deferral replaces the "thinking" message with an ephemeral follow-up', async () => {
    const sent = await waitForSent(world.discord, invoke('wotd', { date: '2024-06-02' }), 3);
    expect(sent).toEqual([
      deferred,
      { call: 'DELETE @original', body: null },
      privateFollowUp('There is no word of the day for 2 June 2024.'),
    ]);
  });

  it('a service that is down gets a private "cannot be reached"', async () => {
    world.wotd.proxy.down = true;
    try {
      const sent = await waitForSent(world.discord, invoke('wotd', { date: '2025-01-02' }), 3);
      expect(sent).toEqual([
        deferred,
        { call: 'DELETE @original', body: null },
        privateFollowUp('The Word-of-the-Day service cannot be reached right now. Please try again later.'),
      ]);
    } finally {
      world.wotd.proxy.down = false;
    }
  });

  it('every interaction was acknowledged exactly once', () => {
    for (const handle of world.discord.interactionHandles()) {
      expect(handle.callbacks.map((callback) => callback.status)).toEqual([204]);
    }
  });
});
