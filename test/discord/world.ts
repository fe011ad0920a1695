import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/config/logger.ts';
import type { WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { startWotdWorld as startWorld, type WotdWorld } from '../support/wotd-world.ts';

/**
 * The Word-of-the-Day side of the end-to-end tests (see test/support/wotd-world.ts) on the entries below, with the
 * clock at TODAY.
 */

export const TODAY = '2025-01-20';
export const SITE_URL = 'https://wotd.example';

const WORDS = [
  'abide', 'brisk', 'candor', 'dwell', 'ember', 'fathom', 'gusto', 'hearth', 'inkling', 'jovial',
  'kindle', 'lucid', 'mirth', 'nimble', 'opaque', 'plume', 'quixotic', 'reverie', 'solace', 'tenacity',
];

/** 2025-01-01 … 2025-01-20, with the awkward cases the bot must render safely. */
export function sampleEntries(): Entry[] {
  const entries = WORDS.map((word, index) => ({
    date: `2025-01-${String(index + 1).padStart(2, '0')}`,
    word,
    pos: 'noun',
    ipa: `/${word}/`,
    definition: `A plain definition of ${word}.`,
  }));
  const set = (date: string, patch: Partial<Entry>): void => {
    const entry = entries.find((candidate) => candidate.date === date);
    if (entry) Object.assign(entry, patch);
  };
  set('2025-01-14', { word: 'serendipity', pos: 'noun', ipa: '/ˌsɛɹ.ənˈdɪp.ɪ.ti/', definition: '(historical) The "happy" faculty of finding things by *chance*.' });
  set('2025-01-13', { definition: 'Ping @everyone and <@&111111111111111111> — nothing may be pinged.' });
  // A word that recurs with another part of speech and definition.
  set('2025-01-04', { word: 'quixotic', pos: 'adjective', definition: 'Idealistic without regard to practicality.' });
  // A word of the day on 22 days (2024-12-10 … 2024-12-31): three pages of /wotd-find results.
  for (let day = 10; day <= 31; day += 1) {
    entries.push({ date: `2024-12-${day}`, word: 'echo', pos: day % 2 === 0 ? 'noun' : 'verb', ipa: '/ˈɛk.oʊ/', definition: `Echo number ${day}.` });
  }
  return entries;
}

export function startWotdWorld(adapterOptions: Partial<WotdAdapterOptions> = {}): Promise<WotdWorld> {
  return startWorld({ entries: sampleEntries(), today: TODAY, adapter: adapterOptions });
}

/** A logger whose lines the test can read back. */
export function capturingLogger(secrets: string[]): { logger: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger({ level: 'trace', secrets, destination }), lines, text: () => lines.join('\n') };
}
