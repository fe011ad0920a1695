import type { Invoker, OutgoingMessage, Respondable } from '../replies/interactions.ts';
import { invokerOf } from './invoker.ts';
import { Responder, type RepliableInteraction } from './responder.ts';
import type { SendingHooks, TrackedResponses } from './sending-hooks.ts';

/**
 * What command and button contexts share: who asked, and answers tracked by the responder (read live). Classes, not
 * object literals: a literal's getter is a new closure per interaction, kept in a map of its own in the old
 * generation, and that kept every interaction's objects alive through young-generation collections (bench:commands).
 */
export abstract class RespondableContext implements Respondable, TrackedResponses {
  readonly invoker: Invoker;
  protected readonly responder: Responder;

  constructor(
    interaction: RepliableInteraction,
    protected readonly hooks: SendingHooks | undefined,
  ) {
    this.invoker = invokerOf(interaction);
    this.responder = new Responder(interaction, hooks);
  }

  get acknowledged(): boolean {
    return this.responder.acknowledged;
  }

  get answered(): boolean {
    return this.responder.answered;
  }

  followUp(message: OutgoingMessage): Promise<void> {
    return this.responder.followUp(message);
  }

  respond(message: OutgoingMessage): Promise<void> {
    return this.responder.respond(message);
  }

  abstract defer(options?: { ephemeral?: boolean }): Promise<void>;
}
