import { createEmptyCard, fsrs, generatorParameters, Rating, TypeConvert, type Card, type Grade } from 'ts-fsrs';
import { z } from 'zod';

/**
 * Spaced review, scheduled by ts-fsrs (FSRS), never by hand. A saved word gets its card at its first review; each
 * grade asks the scheduler for the next one, which is stored as JSON with its due time.
 */

export const GRADES = ['again', 'hard', 'good', 'easy'] as const;
export type ReviewGrade = (typeof GRADES)[number];

const RATINGS: Readonly<Record<ReviewGrade, Grade>> = { again: Rating.Again, hard: Rating.Hard, good: Rating.Good, easy: Rating.Easy };

// Fuzz spreads reviews of words saved together; the scheduler's own randomness is fine for people, not for tests,
// so it is a parameter.
const schedulers = new Map<boolean, ReturnType<typeof fsrs>>();
function scheduler(fuzz: boolean) {
  let found = schedulers.get(fuzz);
  if (!found) {
    found = fsrs(generatorParameters({ enable_fuzz: fuzz }));
    schedulers.set(fuzz, found);
  }
  return found;
}

const storedCard = z.object({
  due: z.string(),
  stability: z.number(),
  difficulty: z.number(),
  elapsed_days: z.number(),
  scheduled_days: z.number(),
  learning_steps: z.number(),
  reps: z.number(),
  lapses: z.number(),
  state: z.number(),
  last_review: z.string().optional(),
});

export function isGrade(value: string): value is ReviewGrade {
  return (GRADES as readonly string[]).includes(value);
}

/** A stored card, or a new one when there is none or it cannot be read (the word starts over rather than stalls). */
function cardOf(stored: string | null, now: Date): Card {
  if (stored !== null) {
    try {
      const parsed = storedCard.safeParse(JSON.parse(stored));
      if (parsed.success) return TypeConvert.card({ ...parsed.data, state: parsed.data.state });
    } catch {
      // Not JSON: a new card below.
    }
  }
  return createEmptyCard(now);
}

/** The card after a grade, as stored, and when the word is next due. */
export function reviewed(stored: string | null, grade: ReviewGrade, now: Date, fuzz = true): { card: string; due: number; reps: number } {
  const { card } = scheduler(fuzz).next(cardOf(stored, now), now, RATINGS[grade]);
  return { card: JSON.stringify(card), due: card.due.getTime(), reps: card.reps };
}
