import { outcomeOf, worseOutcome, type InteractionDone, type InteractionKind, type InteractionOutcome } from '../interaction-outcome.ts';

/** The methods through which a context sends something to Discord. */
const SENDING_METHODS = ['defer', 'respond', 'update', 'followUp'] as const;

/**
 * What happened to one interaction, for the router's observer: when its first acknowledgement was accepted, and
 * the worst outcome among the messages sent (see markOutcome) or recorded by the router.
 */
export class InteractionWatch {
  kind: InteractionKind = 'command';
  name = 'unknown';
  private outcome: InteractionOutcome = 'ok';
  private firstResponseAt: number | null = null;
  private firstSentAt: number | null = null;

  constructor(
    private readonly interactionId: string,
    private readonly receivedAt: number,
  ) {}

  /** Something is about to be handed to discord.js to send. */
  sending(): void {
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

  /**
   * Wraps the context's sending methods in place (contexts are plain objects), so whatever a handler sends is seen
   * here without the handler knowing.
   */
  observe<T extends object>(context: T): T {
    const methods = context as Record<string, unknown>;
    for (const name of SENDING_METHODS) {
      const send = methods[name];
      if (typeof send !== 'function') continue;
      methods[name] = async (...args: unknown[]): Promise<unknown> => {
        const message = args[0];
        const marked = typeof message === 'object' && message !== null ? outcomeOf(message) : undefined;
        if (marked) this.record(marked);
        this.sending();
        const result: unknown = await (send as (...a: unknown[]) => Promise<unknown>).apply(context, args);
        this.responded();
        return result;
      };
    }
    return context;
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
