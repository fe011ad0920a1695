import { toWireDate, type IsoDate, type Variant } from '../wotd/dates.ts';
import type { Entry } from '../wotd/entry.ts';

/** The key words are matched by: surrounding space ignored, case folded. */
export function wordKey(word: string): string {
  return word.trim().normalize('NFC').toLowerCase();
}

/**
 * The whole word list in memory, with every entry already serialised in the variant's wire form,
 * so answering a request is a lookup and a string join.
 */
export class WordIndex {
  /** Dates in ascending order; entry i of every array below belongs to dates[i]. */
  private readonly dates: IsoDate[];
  private readonly json: string[];
  private readonly byDate = new Map<IsoDate, number>();
  /** Positions of each word's entries, oldest first. */
  private readonly byWord = new Map<string, number[]>();

  constructor(entries: readonly Entry[], variant: Variant) {
    const sorted = [...entries].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    this.dates = sorted.map((entry) => entry.date);
    this.json = sorted.map((entry) =>
      JSON.stringify({
        date: toWireDate(entry.date, variant),
        word: entry.word,
        pos: entry.pos,
        ipa: entry.ipa,
        definition: entry.definition,
      }),
    );
    sorted.forEach((entry, position) => {
      this.byDate.set(entry.date, position);
      const key = wordKey(entry.word);
      const positions = this.byWord.get(key);
      if (positions) positions.push(position);
      else this.byWord.set(key, [position]);
    });
  }

  get size(): number {
    return this.dates.length;
  }

  get first(): IsoDate | undefined {
    return this.dates[0];
  }

  get last(): IsoDate | undefined {
    return this.dates[this.dates.length - 1];
  }

  /** The entry of one date as wire JSON, or undefined. */
  entryJson(date: IsoDate): string | undefined {
    const position = this.byDate.get(date);
    return position === undefined ? undefined : this.json[position];
  }

  /** Index of the first stored date that is not before `date`. */
  private lowerBound(date: IsoDate): number {
    let low = 0;
    let high = this.dates.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.dates[middle] as IsoDate) < date) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Up to `limit` entries strictly before `date`, newest first, and whether older ones exist. */
  previousJson(date: IsoDate, limit: number): { results: string[]; hasMore: boolean } {
    const end = this.lowerBound(date);
    const start = Math.max(0, end - limit);
    const results: string[] = [];
    for (let position = end - 1; position >= start; position -= 1) results.push(this.json[position] as string);
    return { results, hasMore: start > 0 };
  }

  /** Every entry of a word dated on or before `latest`, newest first, as wire JSON. */
  findJson(word: string, latest: IsoDate): string[] {
    const positions = this.byWord.get(wordKey(word)) ?? [];
    const results: string[] = [];
    for (let i = positions.length - 1; i >= 0; i -= 1) {
      const position = positions[i] as number;
      if ((this.dates[position] as IsoDate) <= latest) results.push(this.json[position] as string);
    }
    return results;
  }
}
