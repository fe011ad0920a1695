import type { OutgoingMessage } from '../replies/interactions.ts';

/**
 * Told of everything a context sends, whichever method sends it, without the handler knowing (the router's
 * InteractionWatch): each sending method calls `sending` first and `responded` once it is done. Given to the context
 * when it is made: wrapping a made context's methods in place, as this once did, kept each interaction's objects
 * alive through young-generation collections (bench:commands' GC pauses).
 */
export interface SendingHooks {
  /** Something is about to be handed to discord.js: `message` is what the handler asked to send, if anything. */
  sending(message?: object): void;
  /** discord.js accepted it. */
  responded(): void;
}

/** What the router needs beyond the commands' view, to report a failure without destroying a good answer. */
export interface TrackedResponses {
  /** A real answer (not just a deferral) has reached the member. */
  readonly answered: boolean;
  /** Sends a new message after the answer, leaving the answer alone. */
  followUp(message: OutgoingMessage): Promise<void>;
}
