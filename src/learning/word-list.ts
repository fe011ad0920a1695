import type { MirrorReader } from '../wotd/mirror/mirror-holder.ts';
import type { Entry } from '../wotd/entry.ts';
import type { Priority, WotdLookup } from '../wotd/lookup.ts';

/** Where a quiz finds other definitions: the word list the bot holds. */
export interface WordList {
  candidatesFor(entry: Entry, priority: Priority): Promise<Iterable<Entry>>;
}

/** Pages of history read for a quiz's other definitions when there is no mirror (8 days a page, the service's most). */
const HISTORY_PAGES = 2;

/**
 * The database mirror's every entry when the mirror is in use; otherwise the days just before the entry's, which
 * the adapter answers from its cache (reading them from the service once, within its budget, when not cached).
 */
export function wordListOf(lookup: Pick<WotdLookup, 'getPrevious'>, mirror?: MirrorReader | null): WordList {
  return {
    async candidatesFor(entry, priority) {
      const model = mirror?.current();
      if (model && model.entries().length > 0) return model.entries();
      const found: Entry[] = [];
      let before = entry.date;
      for (let page = 0; page < HISTORY_PAGES; page += 1) {
        const { value } = await lookup.getPrevious(before, 8, { priority });
        found.push(...value.entries);
        const last = value.entries.at(-1);
        if (!value.hasMore || !last) break;
        before = last.date;
      }
      return found;
    },
  };
}
