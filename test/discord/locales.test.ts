import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBotWorld, waitForSent, type BotWorld } from './bot-world.ts';

/**
 * The member's and the server's language, as Discord sends them on every interaction (`locale`, `guild_locale`),
 * through the real discord.js client: a public answer speaks the server's language, a private one the member's.
 */

let world: BotWorld;
let frenchChannel: string;

beforeAll(async () => {
  world = await startBotWorld();
  const guild = world.discord.addGuild({ name: 'Mots', preferredLocale: 'fr', channels: [{ name: 'général' }] });
  frenchChannel = guild.channelId('général');
});

afterAll(async () => {
  await world?.close();
});

function bodyOf(call: { body: unknown } | undefined): { data?: { content?: string; flags?: number; embeds?: Array<{ footer?: { text?: string }; description?: string }> } } {
  return (call?.body ?? {}) as never;
}

describe('languages from Discord', () => {
  it("answers publicly in the server's preferred locale, with dates for it", async () => {
    await world.wotd.adapter.getEntry('2025-01-14');
    const handle = world.discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-14' }, channelId: frenchChannel, locale: 'de' });
    const [sent] = await waitForSent(world.discord, handle, 1);
    const embed = bodyOf(sent).data?.embeds?.[0];
    expect(embed?.footer?.text).toBe('14/01/2025 · Mot du jour de wotd.example');
    expect(embed?.description).toMatch(/^\*\*nom\*\* · /);
  });

  it("refuses privately in the member's own locale, and reads their word for yesterday", async () => {
    const refused = world.discord.invokeCommand({ name: 'wotd', options: { date: 'bald' }, channelId: frenchChannel, locale: 'de' });
    const [sent] = await waitForSent(world.discord, refused, 1);
    expect(bodyOf(sent).data?.flags).toBe(64);
    expect(bodyOf(sent).data?.content).toBe(
      '„bald“ kann ich nicht als Datum lesen. Schreib es als `2025-01-14` (JJJJ-MM-TT), `14-01-2025` (TT-MM-JJJJ), `heute` oder `gestern`.',
    );
    const yesterday = world.discord.invokeCommand({ name: 'wotd', options: { date: 'gestern' }, channelId: frenchChannel, locale: 'de' });
    const [answer] = await waitForSent(world.discord, yesterday, 1);
    expect(bodyOf(answer).data?.embeds?.[0]?.footer?.text).toContain('Mot du jour de');
  });

  it('falls back to English for a locale without a catalog', async () => {
    const handle = world.discord.invokeCommand({ name: 'wotd', options: { date: 'nope' }, channelId: world.channelId, locale: 'ko' });
    const [sent] = await waitForSent(world.discord, handle, 1);
    expect(bodyOf(sent).data?.content).toMatch(/^“nope” is not a date I can read\./);
  });
});
