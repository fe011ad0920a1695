import { outcomeOf, worseOutcome, type InteractionDone, type InteractionKind, type InteractionOutcome } from '../replies/interaction-outcome.ts';
import type { SendingHooks } from './sending-hooks.ts';

/**
 * What happened to one interaction, for the router's observer: when its first acknowledgement was accepted, and
 * the worst outcome among the messages sent (see markOutcome) or recorded by the router. The router hands it to the
 * interaction's context as its SendingHooks, so whatever a handler sends is seen here without the handler knowing.
 */
export class InteractionWatch implements SendingHooks {
  kind: InteractionKind = 'command';
  name = 'unknown';
  private outcome: InteractionOutcome = 'ok';
  private firstResponseAt: number | null = null;
  private firstSentAt: number | null = null;

  constructor(
    private readonly interactionId: string,
    private readonly receivedAt: number,
  ) {}

  /** Something is about to be handed to discord.js to send: `message`, if given, may carry an outcome. */
  sending(message?: object): void {
    const marked = message === undefined ? undefined : outcomeOf(message);
    if (marked) this.record(marked);
    this.firstSentAt ??= performance.now();
  }

  /** Counts the interaction as `outcome` unless something worse already happened. */
  record(outcome: InteractionOutcome): void {
    this.outcome = worseOutcome(this.outcome, outcome);
  }

  /** Something was just accepted by Discord. */
  responded(): void {
    this.firstResponseAt ??= performance.now();
  }

  done(): InteractionDone {
    const doneAt = performance.now();
    return {
      interactionId: this.interactionId,
      kind: this.kind,
      name: this.name,
      outcome: this.outcome,
      receivedAt: this.receivedAt,
      firstResponseAt: this.firstResponseAt,
      firstSentAt: this.firstSentAt,
      doneAt,
    };
  }
}
