import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Lexicographer files, by number, as WordNet's lexnames file lists them. */
export const LEXNAMES = [
  'adj.all', 'adj.pert', 'adv.all', 'noun.Tops', 'noun.act', 'noun.animal', 'noun.artifact', 'noun.attribute',
  'noun.body', 'noun.cognition', 'noun.communication', 'noun.event', 'noun.feeling', 'noun.food', 'noun.group',
  'noun.location', 'noun.motive', 'noun.object', 'noun.person', 'noun.phenomenon', 'noun.plant', 'noun.possession',
  'noun.process', 'noun.quantity', 'noun.relation', 'noun.shape', 'noun.state', 'noun.substance', 'noun.time',
  'verb.body', 'verb.change', 'verb.cognition', 'verb.communication', 'verb.competition', 'verb.consumption',
  'verb.contact', 'verb.creation', 'verb.emotion', 'verb.motion', 'verb.perception', 'verb.possession',
  'verb.social', 'verb.stative', 'verb.weather', 'adj.ppl',
] as const;

export type WordnetPos = 'noun' | 'verb' | 'adj' | 'adv';
export const WORDNET_POS: readonly WordnetPos[] = ['noun', 'verb', 'adj', 'adv'];

export interface Pointer {
  symbol: string;
  offset: string;
  pos: string;
}

export interface Synset {
  offset: string;
  /** The file this synset came from. */
  filePos: WordnetPos;
  lexname: string;
  /** Lemmas as written in the synset (case kept, adjective markers like "(a)" removed). */
  words: string[];
  pointers: Pointer[];
  gloss: string;
}

export interface IndexEntry {
  lemma: string;
  pos: WordnetPos;
  /** Senses tagged in the SemCor corpus: a rough measure of how common the word is. */
  tagsenseCount: number;
  /** Synset offsets, most frequent sense first. */
  offsets: string[];
}

function dataLines(dir: string, name: string): string[] {
  // The files open with a licence, each line of which starts with two spaces.
  return readFileSync(join(dir, name), 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('  '));
}

export function parseDataLine(line: string, filePos: WordnetPos): Synset {
  const bar = line.indexOf(' | ');
  const head = (bar === -1 ? line : line.slice(0, bar)).trim().split(' ');
  const gloss = bar === -1 ? '' : line.slice(bar + 3).trim();
  const [offset = '', lexFile = '0', , wordCountHex = '0'] = head;
  const wordCount = Number.parseInt(wordCountHex, 16);
  const words: string[] = [];
  let at = 4;
  for (let i = 0; i < wordCount; i += 1, at += 2) {
    words.push((head[at] ?? '').replace(/\([a-z]+\)$/, '').replace(/_/g, ' '));
  }
  const pointerCount = Number(head[at]);
  at += 1;
  const pointers: Pointer[] = [];
  for (let i = 0; i < pointerCount; i += 1, at += 4) {
    pointers.push({ symbol: head[at] ?? '', offset: head[at + 1] ?? '', pos: head[at + 2] ?? '' });
  }
  return { offset, filePos, lexname: LEXNAMES[Number(lexFile)] ?? 'unknown', words, pointers, gloss };
}

export function parseIndexLine(line: string, pos: WordnetPos): IndexEntry {
  const fields = line.trim().split(' ');
  const synsetCount = Number(fields[2]);
  const pointerCount = Number(fields[3]);
  const tagsenseCount = Number(fields[5 + pointerCount]);
  const offsets = fields.slice(6 + pointerCount, 6 + pointerCount + synsetCount);
  return { lemma: fields[0] ?? '', pos, tagsenseCount, offsets };
}

export interface Wordnet {
  synsets: Map<string, Synset>;
  index: IndexEntry[];
}

/** Synsets keyed by "pos:offset" (offsets are per file), and every index line in file order. */
export function loadWordnet(dir: string): Wordnet {
  const synsets = new Map<string, Synset>();
  const index: IndexEntry[] = [];
  for (const pos of WORDNET_POS) {
    for (const line of dataLines(dir, `data.${pos}`)) {
      const synset = parseDataLine(line, pos);
      synsets.set(`${pos}:${synset.offset}`, synset);
    }
    for (const line of dataLines(dir, `index.${pos}`)) index.push(parseIndexLine(line, pos));
  }
  return { synsets, index };
}

/** A pointer's pos letter ("n", "v", "a", "s", "r") as the data file holding its target. */
export function fileOfPointer(pos: string): WordnetPos {
  if (pos === 'n') return 'noun';
  if (pos === 'v') return 'verb';
  if (pos === 'r') return 'adv';
  return 'adj';
}
