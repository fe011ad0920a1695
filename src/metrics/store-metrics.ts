import { Counter, Gauge, type Registry } from 'prom-client';
import type { SubscriptionStatus } from '../schedule/subscription.ts';
import type { StoreCheck } from '../store/store-watch.ts';

const SUBSCRIPTION_STATES: ReadonlyArray<SubscriptionStatus['state']> = ['active', 'failing', 'disabled'];

/** What the metrics read from the stores when scraped. */
export interface StoreReads {
  /** Every store watched. */
  storeChecks(): StoreCheck[];
  /** Subscriptions by state (a count reused for a few seconds), or null with no store watched. */
  countSubscriptions(): Promise<Record<string, number>> | null;
}

/** The stores' failed operations and the subscriptions by state, read when scraped. */
export function registerStoreMetrics(registers: Registry[], stores: StoreReads): void {
  new Counter({
    name: 'wotd_bot_store_errors_total',
    help: 'Store operations that failed, by store (subscriptions, deliveries, wotd-cache, locks) and operation (read, write, scan, lock, probe).',
    labelNames: ['store', 'operation'] as const,
    registers,
    collect() {
      this.reset();
      for (const check of stores.storeChecks()) {
        for (const [operation, count] of check.errorCounts()) this.inc({ store: check.name, operation }, count);
      }
    },
  });
  new Gauge({
    name: 'wotd_bot_subscriptions',
    help: 'Daily-post subscriptions by state (active, failing, disabled); counted at most every few seconds.',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      this.reset();
      const pending = stores.countSubscriptions();
      const counts = pending ? await pending.catch(() => null) : null;
      if (counts) for (const state of SUBSCRIPTION_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
}
