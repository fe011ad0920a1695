import { ExpiringMap } from '../config/expiring-map.ts';
import type { IsoDate } from '../wotd/dates.ts';
import type { QuizPost } from './learning-store.ts';

/** How long a quiz's record, once read, answers presses without reading the store again. */
export const QUIZ_RECORD_TTL_MS = 60_000;
/** Quizzes remembered at most (the oldest read is forgotten first, see ExpiringMap): a channel's quiz of a day each. */
export const QUIZ_RECORDS_KEPT = 2_000;

/** A read of a quiz's record; `closed()` replaces the promise in place, the time it was read stays. */
interface Known {
  record: Promise<QuizPost | null>;
}

/**
 * Quiz records as the daily quiz's presses read them, kept for QUIZ_RECORD_TTL_MS: a burst of presses on one post
 * reads its record once instead of once each, and a press no longer waits behind the file's queue for a read before
 * its answer's write. What is kept does not change once the post is made (its channel, server, day, word and right
 * choice) except `closed` and the message id, and neither needs the store's latest: the answer's write reads the
 * quiz's row in its transaction and refuses a closed quiz, one of another server or another message (it is told the
 * message), so a stale record can only let a press reach that write. A record without its post yet (no message id)
 * is not kept. The read under way is shared, so the first presses of a burst wait for one read, not one each; a
 * failed read is not kept.
 */
export class QuizRecords {
  private readonly known: ExpiringMap<string, Known>;

  constructor(
    private readonly read: (channelId: string, day: IsoDate) => Promise<QuizPost | null>,
    clock?: () => number,
    kept = QUIZ_RECORDS_KEPT,
  ) {
    this.known = new ExpiringMap(QUIZ_RECORD_TTL_MS, kept, clock);
  }

  /** The quiz's record, as read within QUIZ_RECORD_TTL_MS; read again when `messageId` is not the post it knows. */
  async get(channelId: string, day: IsoDate, messageId: string): Promise<QuizPost | null> {
    const key = `${channelId}\n${day}`;
    const known = this.known.get(key);
    if (known) {
      const record = await known.record;
      if (record && record.messageId === messageId) return record;
      // Another message (a newer post, or none known): the store says which is the quiz's.
      if (this.known.get(key) === known) this.known.delete(key);
    }
    return this.readAndKeep(key, channelId, day);
  }

  /** The quiz was found closed by an answer's write: later presses are told at once. */
  closed(channelId: string, day: IsoDate): void {
    const known = this.known.get(`${channelId}\n${day}`);
    if (!known) return;
    known.record = known.record.then((record) => (record ? { ...record, closed: true } : record));
    // A read still under way that fails is told to its presses; this copy of it is awaited by none yet.
    known.record.catch(() => undefined);
  }

  /** The quiz's record was written or found gone by this process: read it again next time. */
  forget(channelId: string, day: IsoDate): void {
    this.known.delete(`${channelId}\n${day}`);
  }

  private readAndKeep(key: string, channelId: string, day: IsoDate): Promise<QuizPost | null> {
    const record = this.read(channelId, day);
    const known: Known = { record };
    this.known.set(key, known);
    record.then(
      (found) => {
        if (found?.messageId === '' || !found) this.dropIfStill(key, known);
      },
      () => this.dropIfStill(key, known),
    );
    return record;
  }

  private dropIfStill(key: string, known: Known): void {
    if (this.known.get(key) === known) this.known.delete(key);
  }
}
