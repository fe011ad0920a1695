import { LEARNING_RECORD_KINDS, LEARNING_WRITE_ORDER, type LearningRecordKind, type LearningRecordSource, type LearningRecordTarget } from '../learning/learning-records.ts';
import { openLearningRecordSource, openLearningRecordTarget } from '../learning/open-learning-records.ts';
import type { StoreLocation } from '../store/open-store.ts';

/** migrate-store's second part: every learning record (saved words, quizzes, answers, streaks), after the subscriptions. */

export type LearningCounts = Record<LearningRecordKind, number>;

export function noLearningRecords(): LearningCounts {
  return Object.fromEntries(LEARNING_RECORD_KINDS.map((kind) => [kind, 0])) as LearningCounts;
}

/** ` saved_words=… quiz_posts=… quiz_answers=… streaks=…`, for migrate-store's lines. */
export function shownLearningCounts(counts: LearningCounts): string {
  return LEARNING_RECORD_KINDS.map((kind) => ` ${kind}=${counts[kind]}`).join('');
}

async function opened<T>(name: 'from' | 'to', open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    throw new Error(`--${name}: learning records: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Copies every learning record from `from` into `to`, counting into `counts` page by page. */
export async function migrateLearning(from: StoreLocation, to: StoreLocation, counts: LearningCounts): Promise<void> {
  const source: LearningRecordSource = await opened('from', () => openLearningRecordSource(from));
  let target: LearningRecordTarget | null = null;
  try {
    target = await opened('to', () => openLearningRecordTarget(to));
    for (const kind of LEARNING_WRITE_ORDER) {
      try {
        for await (const page of source.pages(kind)) {
          await target.write(kind, page);
          counts[kind] += page.length;
        }
      } catch (error) {
        throw new Error(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    try {
      await target.finish();
    } catch (error) {
      throw new Error(`the leaderboard's counts: ${error instanceof Error ? error.message : String(error)}`);
    }
  } finally {
    const closing: Array<Promise<void>> = [source.close()];
    if (target) closing.push(target.close());
    await Promise.all(closing);
  }
}
