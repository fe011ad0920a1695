import { z } from 'zod';
import { parseIsoDate, type IsoDate } from './dates.ts';

/** One Word-of-the-Day entry, with its date already in ISO form. */
export interface Entry {
  date: IsoDate;
  word: string;
  pos: string;
  ipa: string;
  definition: string;
}

export const isoDateSchema = z
  .string()
  .refine((value) => parseIsoDate(value) !== null, { message: 'expected a real calendar date as YYYY-MM-DD' });

/** An entry as the bot keeps it. The wire schemas in the client convert to this. */
export const entrySchema = z.object({
  date: isoDateSchema,
  word: z.string().trim().min(1, 'word must not be empty'),
  pos: z.string(),
  ipa: z.string(),
  definition: z.string(),
});
