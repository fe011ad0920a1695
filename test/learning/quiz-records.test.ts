import { describe, expect, it } from 'vitest';
import type { QuizPost } from '../../src/learning/learning-store.ts';
import { QUIZ_RECORD_TTL_MS, QuizRecords } from '../../src/learning/quiz-records.ts';

function post(overrides: Partial<QuizPost> = {}): QuizPost {
  return {
    channelId: 'c1',
    day: '2026-03-01',
    guildId: 'g1',
    messageId: 'm1',
    entryDate: '2026-03-01',
    correct: 2,
    choices: null,
    closesAt: 0,
    closed: false,
    revealed: false,
    answered: 0,
    right: 0,
    language: null,
    ...overrides,
  };
}

/** A store's getQuiz that counts its reads and answers what `stored` holds at the time. */
function reader(stored: { post: QuizPost | null; fail?: boolean }) {
  const calls = { reads: 0 };
  const read = async (): Promise<QuizPost | null> => {
    calls.reads += 1;
    await new Promise((resolve) => setImmediate(resolve));
    if (stored.fail) throw new Error('the store is down');
    return stored.post;
  };
  return { calls, read };
}

describe('quiz records (the daily quiz presses’ reads)', () => {
  it('reads a quiz once for a burst of presses, and again once its time is up', async () => {
    const stored = { post: post() };
    const { calls, read } = reader(stored);
    let now = 0;
    const records = new QuizRecords(read, () => now);
    const burst = await Promise.all(Array.from({ length: 20 }, () => records.get('c1', '2026-03-01', 'm1')));
    expect(burst.every((found) => found?.messageId === 'm1')).toBe(true);
    expect(calls.reads).toBe(1);
    stored.post = post({ closed: true });
    now += QUIZ_RECORD_TTL_MS - 1;
    expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ closed: false });
    now += 1;
    expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ closed: true });
    expect(calls.reads).toBe(2);
  });

  it('reads again for another message, after a write of this process, and when an answer found the quiz gone', async () => {
    const stored = { post: post() };
    const { calls, read } = reader(stored);
    const records = new QuizRecords(read, () => 0);
    await records.get('c1', '2026-03-01', 'm1');
    stored.post = post({ messageId: 'm2' });
    expect(await records.get('c1', '2026-03-01', 'm2')).toMatchObject({ messageId: 'm2' });
    expect(calls.reads).toBe(2);
    // The old post's press reads too (it is not the quiz's post any more), and is told so by the record.
    expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ messageId: 'm2' });
    expect(calls.reads).toBe(3);
    records.forget('c1', '2026-03-01');
    stored.post = post({ messageId: 'm3' });
    expect(await records.get('c1', '2026-03-01', 'm3')).toMatchObject({ messageId: 'm3' });
    expect(calls.reads).toBe(4);
  });

  it('tells later presses a quiz an answer found closed, without reading it', async () => {
    const { calls, read } = reader({ post: post() });
    const records = new QuizRecords(read, () => 0);
    await records.get('c1', '2026-03-01', 'm1');
    records.closed('c1', '2026-03-01');
    records.closed('c2', '2026-03-01');
    expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ closed: true });
    expect(calls.reads).toBe(1);
  });

  it('leaves no unheard failure when a read under way fails after an answer found the quiz closed', async () => {
    const unhandled: unknown[] = [];
    const hear = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', hear);
    try {
      const stored: { post: QuizPost | null; fail?: boolean } = { post: post(), fail: true };
      const { read } = reader(stored);
      const records = new QuizRecords(read, () => 0);
      const press = records.get('c1', '2026-03-01', 'm1');
      records.closed('c1', '2026-03-01');
      await expect(press).rejects.toThrow('the store is down');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      stored.fail = false;
      expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ closed: false });
    } finally {
      process.off('unhandledRejection', hear);
    }
  });

  it('keeps neither a quiz without its post yet, nor no quiz, nor a failed read', async () => {
    const stored: { post: QuizPost | null; fail?: boolean } = { post: post({ messageId: '' }) };
    const { calls, read } = reader(stored);
    const records = new QuizRecords(read, () => 0);
    expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ messageId: '' });
    stored.post = null;
    expect(await records.get('c1', '2026-03-01', 'm1')).toBeNull();
    stored.fail = true;
    await expect(records.get('c1', '2026-03-01', 'm1')).rejects.toThrow('the store is down');
    stored.fail = false;
    stored.post = post();
    expect(await records.get('c1', '2026-03-01', 'm1')).toMatchObject({ messageId: 'm1' });
    expect(calls.reads).toBe(4);
  });

  it('keeps a bounded number of quizzes, forgetting the oldest read first', async () => {
    const { calls, read } = reader({ post: post() });
    const records = new QuizRecords(read, () => 0, 2);
    for (const day of ['2026-03-01', '2026-03-02', '2026-03-03']) await records.get('c1', day, 'm1');
    await records.get('c1', '2026-03-03', 'm1');
    await records.get('c1', '2026-03-02', 'm1');
    expect(calls.reads).toBe(3);
    await records.get('c1', '2026-03-01', 'm1');
    expect(calls.reads).toBe(4);
  });

  it('forgets exactly the quiz read longest ago when full, a quiz read again after its time counting as read last', async () => {
    const { calls, read } = reader({ post: post() });
    let now = 0;
    const records = new QuizRecords(read, () => now, 3);
    await records.get('c1', '2026-03-01', 'm1');
    now = 1;
    await records.get('c1', '2026-03-02', 'm1');
    now = QUIZ_RECORD_TTL_MS;
    // The first day's record is out of time: read again, it is now the newest.
    await records.get('c1', '2026-03-01', 'm1');
    await records.get('c1', '2026-03-03', 'm1');
    await records.get('c1', '2026-03-04', 'm1');
    expect(calls.reads).toBe(5);
    await records.get('c1', '2026-03-01', 'm1');
    expect(calls.reads).toBe(5);
    await records.get('c1', '2026-03-02', 'm1');
    expect(calls.reads).toBe(6);
  });
});
