import { addDays, daysBetween, type IsoDate } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { arpabetToIpa } from './ipa.ts';
import { fileOfPointer, type Synset, type Wordnet, type WordnetPos } from './wordnet.ts';

export interface Sense {
  pos: string;
  definition: string;
  /** The domain label the definition starts with, such as "(music)", or "". */
  label: string;
}

export interface Candidate {
  word: string;
  ipa: string;
  /** True when the pronouncing dictionary knows only one way to say it, so the IPA fits every sense. */
  singlePronunciation: boolean;
  senses: Sense[];
}

export interface SelectionOptions {
  first: IsoDate;
  last: IsoDate;
  seed: number;
  /** Share of days (0..1) that bring back an earlier word in another sense. */
  recurrence: number;
  /** Days that must pass before a word comes back. */
  minGapDays: number;
  /** Most dates one word may have. */
  maxAppearances: number;
}

const POS_NAMES: Record<WordnetPos, string> = { noun: 'noun', verb: 'verb', adj: 'adjective', adv: 'adverb' };

/** Topic-domain names that read better as a label in another form. */
const TOPIC_LABELS: Record<string, string> = {
  history: 'historical',
  antiquity: 'historical',
  'Middle Ages': 'historical',
  'World War II': 'historical',
  'computer science': 'computing',
};
const USAGE_LABELS: Record<string, string> = {
  colloquialism: 'informal',
  archaism: 'archaic',
  slang: 'slang',
  trope: 'figurative',
};
const REGION_LABELS: Record<string, string> = {
  'United Kingdom': 'British',
  'United States': 'US',
  Canada: 'Canadian',
  Scotland: 'Scottish',
  Australia: 'Australian',
  Ireland: 'Irish',
};
/** Usage domains whose senses a daily word must never have. */
const REJECTED_USAGES = new Set(['disparagement', 'obscenity', 'ethnic slur', 'trade name', 'trademark', 'plural']);
/** Topics a cheerful daily post should not land on. */
const REJECTED_TOPICS = new Set(['terrorism']);
const UNSUITABLE_GLOSS =
  /\b(offensive|vulgar|obscen\w*|slur|derogatory|disparaging|sexual\w*|genital\w*|racist|rape|suicide|terroris\w*|torture)\b/i;

/** mulberry32: a small seeded generator, so the same seed always picks the same words. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function domainName(wordnet: Wordnet, synset: Synset, symbol: string): string | undefined {
  const pointer = synset.pointers.find((p) => p.symbol === symbol);
  if (!pointer) return undefined;
  return wordnet.synsets.get(`${fileOfPointer(pointer.pos)}:${pointer.offset}`)?.words[0];
}

/** "(music)", "(historical)", "(British)"… from the synset's topic, usage or region domain, or "". */
export function labelOf(wordnet: Wordnet, synset: Synset): string {
  const topic = domainName(wordnet, synset, ';c');
  if (topic) return `(${TOPIC_LABELS[topic] ?? topic})`;
  const usage = domainName(wordnet, synset, ';u');
  if (usage && USAGE_LABELS[usage]) return `(${USAGE_LABELS[usage]})`;
  const region = domainName(wordnet, synset, ';r');
  if (region) return `(${REGION_LABELS[region] ?? region})`;
  return '';
}

/**
 * A gloss is "definition; "example"; "example"". Keep the definition and the first example that uses the
 * word (so some definitions carry double quotes; examples of a synonym are dropped), and put a domain label
 * in front unless the gloss already has one.
 */
export function definitionOf(gloss: string, label: string, word: string): string {
  const exampleStart = gloss.indexOf('; "');
  const meaning = (exampleStart === -1 ? gloss : gloss.slice(0, exampleStart)).trim().replace(/;$/, '');
  const stem = word.slice(0, Math.max(4, word.length - 2)).toLowerCase();
  const examples = exampleStart === -1 ? [] : [...gloss.slice(exampleStart).matchAll(/"([^"]+)"/g)].map((m) => m[1] ?? '');
  const example = examples.find((text) => text.toLowerCase().includes(stem));
  const labelled = label !== '' && !meaning.startsWith('(') ? `${label} ${meaning}` : meaning;
  const withExample = example ? `${labelled}; "${example}"` : labelled;
  return withExample.length <= 300 ? withExample : labelled;
}

function isUnsuitable(wordnet: Wordnet, synset: Synset): boolean {
  const usage = domainName(wordnet, synset, ';u');
  const topic = domainName(wordnet, synset, ';c');
  return (
    (usage !== undefined && REJECTED_USAGES.has(usage)) ||
    (topic !== undefined && REJECTED_TOPICS.has(topic)) ||
    UNSUITABLE_GLOSS.test(synset.gloss)
  );
}

/**
 * Words worth a day: letters only, 6 to 14 long, rare in everyday text (at most `maxTagged` senses tagged
 * in the SemCor corpus), with a pronunciation, and not a name. Plain -ly adverbs and -ed/-ing participles
 * and gerunds are left out, and so is a word with any unsuitable sense.
 */
export function candidates(wordnet: Wordnet, pronunciations: Record<string, string>, maxTagged = 0): Candidate[] {
  const byLemma = new Map<string, typeof wordnet.index>();
  for (const entry of wordnet.index) {
    const list = byLemma.get(entry.lemma);
    if (list) list.push(entry);
    else byLemma.set(entry.lemma, [entry]);
  }
  const result: Candidate[] = [];
  for (const [lemma, entries] of byLemma) {
    if (!/^[a-z]{6,14}$/.test(lemma)) continue;
    const arpabet = pronunciations[lemma];
    if (!arpabet) continue;
    if (entries.reduce((sum, entry) => sum + entry.tagsenseCount, 0) > maxTagged) continue;
    // The pos the word is most used as comes first; its first sense is the word's first appearance.
    const ordered = [...entries].sort(
      (a, b) => b.tagsenseCount - a.tagsenseCount || b.offsets.length - a.offsets.length,
    );
    const senses: Sense[] = [];
    let unsuitable = false;
    for (const entry of ordered) {
      for (const offset of entry.offsets) {
        const synset = wordnet.synsets.get(`${entry.pos}:${offset}`);
        if (!synset) continue;
        if (isUnsuitable(wordnet, synset)) unsuitable = true;
        // Only senses where the word is written in lower case: "Mercury" the planet is a name, not our word.
        if (!synset.words.includes(lemma)) continue;
        const domain = labelOf(wordnet, synset);
        // "(meteorology)" in front of meteorology's own definition says nothing.
        const label = domain === `(${lemma})` ? '' : domain;
        const definition = definitionOf(synset.gloss, label, lemma);
        if (definition === '' || senses.some((sense) => sense.definition === definition)) continue;
        senses.push({ pos: POS_NAMES[entry.pos], definition, label: definition.startsWith(label) ? label : '' });
      }
    }
    if (unsuitable || senses.length === 0) continue;
    const primary = senses[0] as Sense;
    if (primary.pos === 'adverb' && lemma.endsWith('ly')) continue;
    if (/(ed|ing)$/.test(lemma) && primary.pos !== 'verb') continue;
    let ipa: string;
    try {
      ipa = arpabetToIpa(arpabet);
    } catch {
      continue;
    }
    result.push({ word: lemma, ipa, singlePronunciation: !(`${lemma}(2)` in pronunciations), senses });
  }
  return result.sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const result = [...items];
  for (let i = result.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j] as T, result[i] as T];
  }
  return result;
}

/**
 * One entry per day from `first` to `last`. Words are drawn from a seeded shuffle in which every word whose
 * main sense carries a domain label has a place (they are few and make the best reading); on a share of days
 * an earlier word returns with a sense it has not had yet, preferring another part of speech.
 */
export function schedule(pool: readonly Candidate[], options: SelectionOptions): Entry[] {
  const random = seededRandom(options.seed);
  const days = daysBetween(options.first, options.last) + 1;
  const shuffled = shuffle(pool, random);
  const labelled = shuffled.filter((candidate) => candidate.senses[0]?.label);
  const plain = shuffled.filter((candidate) => !candidate.senses[0]?.label);
  const order = shuffle([...labelled, ...plain].slice(0, days), random);
  const used: { candidate: Candidate; dates: IsoDate[]; senses: Set<number> }[] = [];
  const entries: Entry[] = [];
  let next = 0;
  for (let day = 0; day < days; day += 1) {
    const date = addDays(options.first, day);
    let placed = false;
    if (random() < options.recurrence) {
      const eligible = used.filter(
        (u) =>
          u.candidate.singlePronunciation &&
          u.dates.length < options.maxAppearances &&
          u.senses.size < u.candidate.senses.length &&
          daysBetween(u.dates[u.dates.length - 1] as IsoDate, date) >= options.minGapDays,
      );
      const pick = eligible.length > 0 ? eligible[Math.floor(random() * eligible.length)] : undefined;
      if (pick) {
        const seenPos = new Set([...pick.senses].map((i) => pick.candidate.senses[i]?.pos));
        const unused = pick.candidate.senses.map((_, i) => i).filter((i) => !pick.senses.has(i));
        const senseIndex = unused.find((i) => !seenPos.has(pick.candidate.senses[i]?.pos)) ?? (unused[0] as number);
        const sense = pick.candidate.senses[senseIndex] as Sense;
        pick.senses.add(senseIndex);
        pick.dates.push(date);
        entries.push({ date, word: pick.candidate.word, pos: sense.pos, ipa: pick.candidate.ipa, definition: sense.definition });
        placed = true;
      }
    }
    if (!placed) {
      const candidate = order[next];
      if (!candidate) throw new Error(`ran out of words on ${date}: only ${order.length} candidates`);
      next += 1;
      const sense = candidate.senses[0] as Sense;
      used.push({ candidate, dates: [date], senses: new Set([0]) });
      entries.push({ date, word: candidate.word, pos: sense.pos, ipa: candidate.ipa, definition: sense.definition });
    }
  }
  return entries;
}
