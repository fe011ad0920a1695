import { Counter, Histogram, type Registry } from 'prom-client';
import type { InteractionDone, InteractionObserver } from '../replies/interaction-outcome.ts';

const INTERACTION_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30];

/** Commands, buttons and autocompletes: how many, how they ended, how long they took. Returns the router's observer. */
export function registerInteractionMetrics(registers: Registry[]): InteractionObserver {
  const interactions = new Counter({
    name: 'wotd_bot_interactions_total',
    help: 'Commands, buttons and autocompletes handled, by kind, name and outcome (ok, user_error, upstream_error, internal_error).',
    labelNames: ['kind', 'name', 'outcome'] as const,
    registers,
  });
  const firstResponse = new Histogram({
    name: 'wotd_bot_interaction_first_response_seconds',
    help: 'From receiving an interaction to Discord accepting its first acknowledgement (reply, deferral, update).',
    labelNames: ['kind', 'name'] as const,
    buckets: INTERACTION_BUCKETS,
    registers,
  });
  const interactionDuration = new Histogram({
    name: 'wotd_bot_interaction_duration_seconds',
    help: 'From receiving an interaction to its handling being complete (the final answer accepted by Discord).',
    labelNames: ['kind', 'name', 'outcome'] as const,
    buckets: INTERACTION_BUCKETS,
    registers,
  });

  return (event: InteractionDone) => {
    const { kind, name, outcome } = event;
    interactions.inc({ kind, name, outcome });
    const firstAt = event.firstResponseAt ?? event.doneAt;
    firstResponse.observe({ kind, name }, Math.max(0, firstAt - event.receivedAt) / 1000);
    interactionDuration.observe({ kind, name, outcome }, Math.max(0, event.doneAt - event.receivedAt) / 1000);
  };
}
