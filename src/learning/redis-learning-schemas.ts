import { z } from 'zod';
import type { QuizPost } from './learning-store.ts';

/** The Redis learning store's records as stored (JSON), checked when read. */

export const savedWordSchema = z.object({
  date: z.string(),
  word: z.string(),
  pos: z.string(),
  savedAt: z.number(),
  due: z.number(),
  card: z.string().nullable(),
});
export const answerSchema = z.object({
  channelId: z.string(),
  day: z.string(),
  guildId: z.string(),
  userId: z.string(),
  choice: z.number().int(),
  correct: z.boolean(),
  answeredAt: z.number(),
});
export const streakSchema = z.object({
  guildId: z.string(),
  userId: z.string(),
  run: z.number().int(),
  current: z.number().int(),
  best: z.number().int(),
  total: z.number().int(),
  lastDay: z.string(),
});
export const postSchema = z.object({
  channelId: z.string(),
  day: z.string(),
  guildId: z.string(),
  messageId: z.string(),
  entryDate: z.string(),
  correct: z.number().int(),
  closesAt: z.number(),
  language: z.string().nullable(),
  // Absent on a quiz recorded before the choices were kept.
  choices: z.array(z.string()).length(4).nullable().default(null),
});

export function parsed<T>(schema: z.ZodType<T>, text: string, what: string): T {
  const result = schema.safeParse(JSON.parse(text));
  if (!result.success) throw new Error(`learning store: a damaged ${what} record`);
  return result.data;
}

/** A quiz hash's fields as the quiz: its record (`json`) and its state ('closed': '0' open, '2' closed, '1' revealed). */
export function quizFromFields(fields: Record<string, string>): QuizPost | null {
  if (!fields.json) return null;
  return {
    ...parsed(postSchema, fields.json, 'quiz'),
    closed: fields.closed === '1' || fields.closed === '2',
    revealed: fields.closed === '1',
    answered: Number(fields.answered ?? 0),
    right: Number(fields.right ?? 0),
  };
}
