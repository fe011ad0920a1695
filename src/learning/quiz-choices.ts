import { createHash } from 'node:crypto';
import type { Entry } from '../wotd/entry.ts';

/** Four candidate meanings: the real definition and three others. */
export const CHOICES = 4;

export interface QuizChoices {
  /** The entry asked about. */
  entry: Entry;
  /** CHOICES definitions, in the order shown. */
  definitions: string[];
  /** Which of them is the real one. */
  correct: number;
  /** The date of the entry each definition comes from, in the order shown. */
  dates: string[];
  /** The entries the other definitions come from, for the reveal ("it was …"). */
  from: Entry[];
}

export class TooFewWordsError extends Error {
  override readonly name = 'TooFewWordsError';
}

/** Definitions compared as a member reads them: case, spacing and a leading label such as `(historical)` aside. */
function sameMeaning(a: string): string {
  return a
    .replace(/^\s*\([^)]*\)\s*/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** A number per (seed, key), stable across processes and restarts. */
function rank(seed: string, key: string): number {
  return createHash('sha256').update(seed).update('\0').update(key).digest().readUInt32BE(0);
}

/**
 * The quiz for `entry`: three other definitions from `candidates` (the word list the bot holds), of the same part of
 * speech where there are enough, never one that reads the same as the real one (or another chosen one), nor one of
 * the same word; in an order fixed by `seed` (a channel and day: everyone there sees the same four, every time).
 */
export function quizChoices(entry: Entry, candidates: Iterable<Entry>, seed: string): QuizChoices {
  const real = sameMeaning(entry.definition);
  const word = entry.word.toLowerCase();
  const seen = new Set<string>([real]);
  const samePos: Array<{ entry: Entry; rank: number }> = [];
  const otherPos: Array<{ entry: Entry; rank: number }> = [];
  for (const candidate of candidates) {
    const meaning = sameMeaning(candidate.definition);
    if (meaning === '' || candidate.word.toLowerCase() === word || candidate.date === entry.date) continue;
    if (meaning === real) continue;
    (candidate.pos === entry.pos ? samePos : otherPos).push({ entry: candidate, rank: rank(seed, candidate.date) });
  }
  const byRank = (a: { rank: number; entry: Entry }, b: { rank: number; entry: Entry }) => a.rank - b.rank || a.entry.date.localeCompare(b.entry.date);
  const picked: Entry[] = [];
  for (const pool of [samePos.sort(byRank), otherPos.sort(byRank)]) {
    for (const { entry: candidate } of pool) {
      if (picked.length === CHOICES - 1) break;
      const meaning = sameMeaning(candidate.definition);
      if (seen.has(meaning)) continue;
      seen.add(meaning);
      picked.push(candidate);
    }
  }
  if (picked.length < CHOICES - 1) throw new TooFewWordsError(`only ${picked.length} other definitions to choose from`);
  const order = [entry, ...picked]
    .map((choice, index) => ({ choice, index, rank: rank(`${seed}:order`, `${index}:${choice.date}`) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  return {
    entry,
    definitions: order.map(({ choice }) => choice.definition),
    correct: order.findIndex(({ index }) => index === 0),
    dates: order.map(({ choice }) => choice.date),
    from: order.filter(({ index }) => index !== 0).map(({ choice }) => choice),
  };
}

/**
 * The quiz for `entry` whose choices are `shown`, in that order (the entries of the four definitions, kept when the
 * quiz was first made; `entry` among them).
 */
export function quizFrom(entry: Entry, shown: readonly Entry[]): QuizChoices {
  const correct = shown.findIndex((choice) => choice.date === entry.date);
  if (shown.length !== CHOICES || correct < 0) throw new Error(`the kept choices of the quiz on ${entry.date} do not hold its word`);
  return {
    entry,
    definitions: shown.map((choice) => choice.definition),
    correct,
    dates: shown.map((choice) => choice.date),
    from: shown.filter((_, index) => index !== correct),
  };
}
