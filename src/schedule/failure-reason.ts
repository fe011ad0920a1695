import { z } from 'zod';

/**
 * Why a daily post failed, or a subscription is failing or switched off: a code and its parameters, never a sentence.
 * It is stored so, and said in the reader's language when it is shown (src/replies/failure-reason-text.ts, whose
 * REASON_KEYS gives each kind its catalog message). What Discord said in its own words (`message`) and what a
 * network error said (`detail`) are kept verbatim, as data.
 *
 * A new kind: one more object below, one more line in REASON_KEYS, one more `reason.<kind>` in every catalog.
 */

/** Discord's own text, and a network error's, is kept to this many characters. */
export const REASON_TEXT_LIMIT = 300;

const text = z.string().max(REASON_TEXT_LIMIT);
/** What Discord answered: its HTTP status (absent in records from before it was kept), JSON error code and message. */
const discordAnswer = {
  status: z.number().int().min(100).max(599).optional(),
  code: z.number().int().min(0),
  message: text,
};

export const failureReasonSchema = z.discriminatedUnion('kind', [
  /** The bot lacks a permission in the channel (Discord's flag name, `EmbedLinks`), as subscribed (`channelName`). */
  z.object({
    kind: z.literal('missingPermission'),
    permission: z.string().regex(/^[A-Za-z]{1,64}$/),
    channelName: z.string().max(100).optional(),
    /** The post Discord took without its embed, a bare mention, could not be removed. */
    mentionLeft: z.literal(true).optional(),
  }),
  z.object({ kind: z.literal('missingAccess') }),
  z.object({ kind: z.literal('missingPermissions') }),
  z.object({ kind: z.literal('forbidden'), ...discordAnswer }),
  z.object({ kind: z.literal('channelGone') }),
  z.object({ kind: z.literal('channelDeleted') }),
  z.object({ kind: z.literal('serverGone') }),
  z.object({ kind: z.literal('botRemoved') }),
  z.object({ kind: z.literal('dmsClosed') }),
  z.object({ kind: z.literal('noSharedServer') }),
  z.object({ kind: z.literal('userGone') }),
  z.object({ kind: z.literal('notFound'), ...discordAnswer }),
  z.object({ kind: z.literal('refused'), ...discordAnswer }),
  // The transient ones, shown on a day's retrying record.
  z.object({ kind: z.literal('discordError'), ...discordAnswer }),
  z.object({ kind: z.literal('httpStatus'), status: z.number().int().min(100).max(599) }),
  z.object({ kind: z.literal('timeout') }),
  z.object({ kind: z.literal('unreachable'), detail: text }),
  z.object({ kind: z.literal('noTurn'), detail: text }),
  z.object({ kind: z.literal('noMessageId') }),
  /** Discord's list of the server's active threads, looked through for a forum post of the day, had no list. */
  z.object({ kind: z.literal('noThreadList') }),
  /** The forum requires a tag on each post (40067), and the subscription's tag is unset or was deleted since. */
  z.object({ kind: z.literal('forumTagRequired') }),
  /** The channel has as many pinned messages as Discord allows (30003). */
  z.object({ kind: z.literal('pinLimit') }),
  /** Discord opened the member's DM channel, but its answer carried no channel id. */
  z.object({ kind: z.literal('noDmChannel') }),
  /** Discord said the channel was unknown, but it is there (or looking it up failed): not taken as gone. */
  z.object({ kind: z.literal('goneUnconfirmed'), lookupFailed: z.boolean() }),
  /** The bot's webhook in the channel was deleted, and deleted again at once when the bot created it anew. */
  z.object({ kind: z.literal('webhookDeletedAgain'), channelName: z.string().max(100).optional() }),
  /** Discord answered for the channel's webhook without its id or token. */
  z.object({ kind: z.literal('webhookIncomplete') }),
  z.object({ kind: z.literal('unexpected'), detail: text }),
  /** A reason stored as an English sentence by an earlier version, not recognised: shown as it was stored. */
  z.object({ kind: z.literal('recorded'), text: z.string().max(1000) }),
]);

export type FailureReason = z.output<typeof failureReasonSchema>;
export type FailureKind = FailureReason['kind'];

/** Error text from outside (a network error, Discord's message) as a reason keeps it: one line, within the limit. */
export function reasonText(value: string): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > REASON_TEXT_LIMIT ? `${line.slice(0, REASON_TEXT_LIMIT - 1)}…` : line;
}

/** The reason of an error that is not a delivery failure of a known kind. */
export function unexpectedReason(error: unknown): FailureReason {
  return { kind: 'unexpected', detail: reasonText(error instanceof Error ? error.message : String(error)) };
}

type Legacy = { reason: FailureReason; failedDays?: number };

/**
 * Earlier versions stored the reason as an English sentence. Those it wrote are read back as the codes they stand
 * for; anything else is kept as written (`recorded`). `failedDays`: the "… on 3 days in a row" of a switched-off one.
 */
export function legacyReason(stored: string): Legacy {
  const repeated = /^(.*) on (\d{1,3}) days in a row$/s.exec(stored);
  if (repeated) return { reason: sentenceReason(repeated[1] ?? ''), failedDays: Number(repeated[2]) };
  return { reason: sentenceReason(stored) };
}

const PLAIN: ReadonlyArray<[RegExp, FailureReason]> = [
  [/^Missing Access: the bot cannot see the channel$/, { kind: 'missingAccess' }],
  [/^Missing Permissions: the bot may not post or embed links there$/, { kind: 'missingPermissions' }],
  [/^Unknown Channel: the channel no longer exists$/, { kind: 'channelGone' }],
  [/^Unknown Guild: the bot is no longer in the server$/, { kind: 'serverGone' }],
  [/^the channel was deleted$/, { kind: 'channelDeleted' }],
  [/^the bot was removed from the server$/, { kind: 'botRemoved' }],
  [/^Discord would not deliver it: your DMs are closed to me$/, { kind: 'dmsClosed' }],
  [/^Discord would not deliver it: we share no server and I am not installed to your account$/, { kind: 'noSharedServer' }],
  [/^Unknown User: the account no longer exists$/, { kind: 'userGone' }],
];

const ANSWERED: ReadonlyArray<[RegExp, 'refused' | 'forbidden' | 'notFound']> = [
  [/^Discord refused the post: (.*) \((\d{1,10})\)$/s, 'refused'],
  [/^Forbidden: (.*) \((\d{1,10})\)$/s, 'forbidden'],
  [/^Not found: (.*) \((\d{1,10})\)$/s, 'notFound'],
];

function sentenceReason(sentence: string): FailureReason {
  for (const [pattern, reason] of PLAIN) if (pattern.test(sentence)) return reason;
  const embed = /^Missing Embed Links in (?:#(.*?)|the channel)( \(the mention posted without the word could not be removed: .*\))?$/s.exec(sentence);
  if (embed) {
    return {
      kind: 'missingPermission',
      permission: 'EmbedLinks',
      ...(embed[1] !== undefined ? { channelName: embed[1].slice(0, 100) } : {}),
      ...(embed[2] !== undefined ? { mentionLeft: true as const } : {}),
    };
  }
  for (const [pattern, kind] of ANSWERED) {
    const answer = pattern.exec(sentence);
    if (answer) return { kind, code: Number(answer[2]), message: reasonText(answer[1] ?? '') };
  }
  return { kind: 'recorded', text: sentence.slice(0, 1000) };
}

/** A stored reason: the structured form, or an earlier version's sentence, read as above. */
export const storedReasonSchema = z.union([failureReasonSchema, z.string().transform((stored) => legacyReason(stored).reason)]);
