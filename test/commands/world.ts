import type { BotServices } from '../../src/replies/interactions.ts';
import type { WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import { addDays, type Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { startWotdWorld, type WotdWorld } from '../support/wotd-world.ts';

/**
 * The real pieces behind the command tests (see test/support/wotd-world.ts) on the entries below, with the clock at
 * TODAY, and the services the commands are handed.
 */
export const TODAY = '2025-01-20';
export const SITE_URL = 'https://wotd.example';
/** The word that recurs on twelve days, for pagination. */
export const RECURRING = 'echo';

const WORDS = [
  'abide', 'brisk', 'candor', 'dwell', 'ember', 'fathom', 'gusto', 'hearth', 'inkling', 'jovial', 'kindle', 'lucid',
  'mirth', 'nimble', 'opaque', 'plume', 'quill', 'reverie', 'solace', 'tenacity', 'umbra', 'verve', 'whimsy', 'zephyr',
];

/**
 * 2024-11-01 … 2025-01-20: plain words, RECURRING on twelve days (every fifth day from 2024-11-01),
 * and a few awkward entries the bot must render safely.
 */
export function testEntries(): Entry[] {
  const entries: Entry[] = [];
  for (let index = 0, date = '2024-11-01'; date <= TODAY; index += 1, date = addDays(date, 1)) {
    const recurring = index % 5 === 0 && index < 60;
    const word = recurring ? RECURRING : `${WORDS[index % WORDS.length]}${Math.floor(index / WORDS.length) || ''}`;
    entries.push({
      date,
      word,
      pos: recurring && index % 10 === 5 ? 'verb' : 'noun',
      ipa: `/${word}/`,
      definition: recurring ? `Sense number ${index / 5 + 1} of the echo.` : `A plain definition of ${word}.`,
    });
  }
  const set = (date: string, patch: Partial<Entry>): void => {
    const entry = entries.find((candidate) => candidate.date === date);
    if (entry) Object.assign(entry, patch);
  };
  set('2025-01-14', {
    word: 'serendipity',
    pos: 'noun',
    ipa: '/ˌsɛɹ.ənˈdɪp.ɪ.ti/',
    definition: '(historical) The "happy" faculty of finding things by *chance*.',
  });
  set('2025-01-13', {
    word: 'mark_down',
    pos: 'noun',
    definition: '# Loud **bold** `code` ~~strike~~ ||spoiler|| [link](https://evil.example) @everyone <@123>\n> quoted',
  });
  return entries;
}

export interface CommandWorld extends WotdWorld {
  services: BotServices;
}

/** With `twin`, the world answers as that real deployment does, from `entries`. */
export async function startCommandWorld(
  adapterOptions: Partial<WotdAdapterOptions> = {},
  twin?: Variant,
  entries: Entry[] = testEntries(),
): Promise<CommandWorld> {
  const world = await startWotdWorld({ entries, today: TODAY, adapter: adapterOptions, ...(twin ? { twin } : {}) });
  return { ...world, services: { lookup: world.adapter, siteUrl: SITE_URL } };
}
