import type { IsoDate } from '../wotd/dates.ts';
import type { Streak } from './learning-store.ts';

/**
 * A member's streak after a right answer to a quiz of `day` in their server. `previousQuizDay` is the server's last
 * day with a quiz post before `day`: days without one neither break nor extend a streak. Null: nothing changes (a
 * second right answer the same day, in another channel).
 *
 * The Redis store runs the same rule in Lua (redis-learning-scripts.ts); test/learning/streak-rule.test.ts holds both
 * to it.
 */
export function streakAfterRightAnswer(
  existing: Streak | null,
  guildId: string,
  userId: string,
  day: IsoDate,
  previousQuizDay: IsoDate | null,
): Streak | null {
  if (!existing) return { guildId, userId, run: 1, current: 1, best: 1, total: 1, lastDay: day };
  if (existing.lastDay === day) return null;
  // A quiz of an earlier day answered after a later one (it was still open): it counts, but the run is the later's.
  if (existing.lastDay > day) return { ...existing, total: existing.total + 1 };
  const run = previousQuizDay !== null && existing.lastDay === previousQuizDay ? existing.run + 1 : 1;
  return { ...existing, run, current: run, best: Math.max(existing.best, run), total: existing.total + 1, lastDay: day };
}
