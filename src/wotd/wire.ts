import { z } from 'zod';
import { detectVariant, parseWireDate, wireFormat, type IsoDate, type Variant } from './dates.ts';
import type { Entry } from './entry.ts';
import { WotdError } from './errors.ts';
import type { HistoryPage } from './lookup.ts';

/**
 * The service's JSON, checked with zod per variant and converted to ISO-dated entries.
 * Anything that does not fit becomes a `bad_response` WotdError naming the first problem.
 */

const wireEntry = (variant: Variant) =>
  z.object({
    date: z.string().transform((text, context) => {
      const date = parseWireDate(text, variant);
      if (date === null) {
        context.addIssue({
          code: 'custom',
          message: `expected a ${wireFormat(variant)} date, got ${JSON.stringify(text)}`,
        });
        return z.NEVER;
      }
      return date;
    }),
    word: z.string().trim().min(1, 'word is empty'),
    pos: z.string(),
    ipa: z.string(),
    definition: z.string(),
  });

const schemas = {
  A: buildSchemas('A'),
  B: buildSchemas('B'),
};

function buildSchemas(variant: Variant) {
  const entry = wireEntry(variant);
  return {
    entry,
    previous: z.object({ has_more: z.boolean(), results: z.array(entry) }),
    findMany: z.array(entry),
  };
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unexpected shape';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${where}: ${issue.message}`;
}

function parseWith<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new WotdError('bad_response', `The service sent an invalid ${what} (${describe(parsed.error)})`);
  return parsed.data;
}

/** The variant a response was written in, from the first date string found in it, or null. */
export function sniffVariant(body: unknown): Variant | null {
  const first = Array.isArray(body) ? body[0] : body;
  if (typeof first !== 'object' || first === null) return null;
  const record = first as Record<string, unknown>;
  if (typeof record.date === 'string') return detectVariant(record.date);
  if (Array.isArray(record.results)) return sniffVariant(record.results);
  return null;
}

export function parseEntry(body: unknown, variant: Variant): Entry {
  return parseWith(schemas[variant].entry, body, 'entry');
}

/**
 * One entry checked by the same schema the service's answers go through (the database files publish variant A's
 * YYYY-MM-DD dates): the entry, or what is wrong with it. For the mirror, which skips a bad row instead of failing.
 */
export function checkEntry(value: unknown, variant: Variant): { ok: true; entry: Entry } | { ok: false; problem: string } {
  const parsed = schemas[variant].entry.safeParse(value);
  return parsed.success ? { ok: true, entry: parsed.data } : { ok: false, problem: describe(parsed.error) };
}

export function parsePrevious(body: unknown, variant: Variant, before: IsoDate): HistoryPage {
  const page = parseWith(schemas[variant].previous, body, 'history page');
  const entries = [...page.results].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  const late = entries.find((entry) => entry.date >= before);
  if (late) throw new WotdError('bad_response', `The service sent ${late.date} in the history before ${before}`);
  return { hasMore: page.has_more, entries };
}

/** Object or array, in any order, returned newest first with one entry per date. */
export function parseFind(body: unknown, variant: Variant): Entry[] {
  // One deployment answers a single object, another an array: read whichever came, with errors about that shape.
  const entries = Array.isArray(body)
    ? parseWith(schemas[variant].findMany, body, 'search result')
    : [parseWith(schemas[variant].entry, body, 'search result')];
  const byDate = new Map<IsoDate, Entry>();
  for (const entry of entries) byDate.set(entry.date, entry);
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}
