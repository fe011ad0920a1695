import { z } from 'zod';
import { storedReasonSchema } from './failure-reason.ts';

/** A change of state of a subscription that its admin is to be told about (see admin-notices.ts). */
export const statusNoticeSchema = z.object({
  kind: z.enum(['failing', 'disabled', 'recovered']),
  /** The failure's reason (absent for a recovery). */
  reason: storedReasonSchema.optional(),
  /** Switched off after the post was refused on this many days in a row. */
  failedDays: z.number().int().positive().max(10_000).optional(),
  /** Disabled because the channel is gone: the fix is another channel, not a permission. */
  channelGone: z.boolean().optional(),
  /** Disabled because the bot was removed from the server: the fix is to add it back. */
  botRemoved: z.boolean().optional(),
  at: z.string(),
});
export type StatusNotice = z.output<typeof statusNoticeSchema>;
