import { z } from 'zod';
import { failureReasonSchema } from './failure-reason.ts';

/**
 * What went wrong with the `pin` setting on a posted day: pinning today's post or unpinning the previous one, and why
 * (a code, said in the reader's language when shown). The post itself stands.
 */
export const pinFailureSchema = z.object({ what: z.enum(['pin', 'unpin']), reason: failureReasonSchema });

export type PinFailure = z.output<typeof pinFailureSchema>;

/** At most the pin and the unpin failed. A stored value that cannot be read is left out, not the record's damage. */
export const pinFailuresSchema = z.array(pinFailureSchema).min(1).max(2).optional().catch(undefined);

/**
 * A pin still owed for a recorded post: the previous post to unpin after it, if any. A stored value that cannot be
 * read is left out (the pin is not made), not the record's damage.
 */
export const pinOwedSchema = z.object({ unpin: z.string().min(1).max(32).optional() }).optional().catch(undefined);
