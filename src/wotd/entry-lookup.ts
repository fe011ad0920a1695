/** The entry of one day (the mirror's, or `/query`, or a read-ahead history page ending on a past day). */
import { addDays, type IsoDate } from './dates.ts';
import type { Entry } from './entry.ts';
import { WotdError } from './errors.ts';
import type { Flight } from './flight.ts';
import { requestPrevious } from './history-read-ahead.ts';
import type { Lookup, LookupOptions } from './lookup.ts';
import { checkDate, hit, mirrorHit, shared, withStale, type LookupContext, type Outcome } from './lookup-context.ts';
import { mirrorEntry } from './mirror/mirror-answers.ts';
import { parseEntry } from './wire.ts';

/** Not an async function: it only counts the lookup, and another async frame per command costs. */
export function getEntry(ctx: LookupContext, date: IsoDate | undefined, options: LookupOptions): Promise<Lookup<Entry>> {
  ctx.counters.lookups++;
  return lookUpEntry(ctx, date, options);
}

/** getEntry, not counted as a lookup of its own (a search asks it for today's entry). */
export async function lookUpEntry(ctx: LookupContext, date: IsoDate | undefined, options: LookupOptions): Promise<Lookup<Entry>> {
  const today = ctx.today();
  const day = date === undefined ? today : checkDate(date, today);
  const mirrored = mirrorEntry(ctx, day, today);
  if (mirrored?.kind === 'entry') return mirrorHit(ctx, mirrored.entry);
  if (mirrored?.kind === 'none') {
    mirrorHit(ctx, null);
    throw notFoundForDate(day);
  }
  const cached = ctx.cache.recallEntry(day) ?? (await ctx.cache.getEntry(day));
  if (cached?.fresh) return hit(ctx, cached.value);
  if (!cached && (await ctx.cache.isKnownMissing(day))) {
    ctx.counters.cacheHits++;
    throw notFoundForDate(day);
  }
  const endpoint = ctx.readAhead >= 2 && day < today ? '/query_previous' : '/query';
  const outcome = await withStale(ctx, cached?.value, () =>
    shared(ctx, `entry:${day}`, endpoint, options, (flight) => fetchEntry(ctx, flight, day, today)),
  );
  if (outcome.kind === 'not_found') throw notFoundForDate(day);
  return outcome.value;
}

async function fetchEntry(ctx: LookupContext, flight: Flight<Outcome<Entry>>, day: IsoDate, today: IsoDate): Promise<Outcome<Entry>> {
  const { cache, variants } = ctx;
  if (ctx.readAhead >= 2 && day < today) {
    // One history request ending on `day` answers it and caches the days before it too.
    const page = await requestPrevious(ctx, flight, addDays(day, 1), ctx.readAhead, today);
    const first = page.entries[0];
    if (!first || first.date !== day) {
      if (page.trusted) await cache.putMissing(day, today);
      return { kind: 'not_found', message: `no entry for ${day}` };
    }
    return { kind: 'ok', value: first };
  }
  if (variants.isAuto && !variants.verified) {
    // The probe asks for today's entry: when that is the day wanted, it is the answer.
    await variants.ensure(flight);
    const probed = await cache.getEntry(day);
    if (probed?.fresh) return { kind: 'ok', value: probed.value };
  }
  for (;;) {
    const sent = variants.current;
    const answer = await ctx.upstream.request(flight, '/query', { date: day }, true);
    if (answer.kind === 'not_found') {
      const trust = await variants.trustNegative(flight, sent);
      if (trust === 'retry') continue;
      if (trust === 'trusted') await cache.putMissing(day, today);
      return answer;
    }
    const entry = parseEntry(answer.body, variants.variantOf(answer.body));
    if (entry.date !== day) throw new WotdError('bad_response', `The service answered ${entry.date} when asked for ${day}`);
    await cache.putEntries([entry], today);
    return { kind: 'ok', value: entry };
  }
}

function notFoundForDate(day: IsoDate): WotdError {
  return new WotdError('not_found', `There is no word of the day for ${day}`);
}
