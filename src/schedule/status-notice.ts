import { z } from 'zod';

/** A change of state of a subscription that its admin is to be told about (see admin-notices.ts). */
export const statusNoticeSchema = z.object({
  kind: z.enum(['failing', 'disabled', 'recovered']),
  /** The failure's reason as /wotd-subscriptions shows it (absent for a recovery). */
  reason: z.string().optional(),
  /** Disabled because the channel is gone: the fix is another channel, not a permission. */
  channelGone: z.boolean().optional(),
  /** Disabled because the bot was removed from the server: the fix is to add it back. */
  botRemoved: z.boolean().optional(),
  at: z.string(),
});
export type StatusNotice = z.output<typeof statusNoticeSchema>;
