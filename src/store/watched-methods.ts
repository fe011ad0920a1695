import { checkLease } from './lease-fence.ts';
import type { StoreWatch } from './store-watch.ts';

type AsyncMethod = (...args: never[]) => Promise<unknown>;

/** The names of an adapter's methods that answer a promise. */
export type AsyncMethodName<Adapter> = {
  [Name in keyof Adapter]: Adapter[Name] extends AsyncMethod ? Name : never;
}[keyof Adapter];

/**
 * Makes each named method of a store adapter (as its class defines it, called on the adapter) run as one `operation`
 * of `watch`: a failure is counted and rethrown as a StoreError naming the store, a write that went through is noted.
 * A write under a lock whose lease may have run out is refused first (lease-fence.ts).
 * Called from the adapter's constructor; `super.<method>` inside the adapter still reaches the unwatched method.
 */
export function watchMethods<Adapter extends object>(
  adapter: Adapter,
  watch: StoreWatch,
  operation: 'read' | 'write',
  names: readonly AsyncMethodName<Adapter>[],
): void {
  if (operation === 'write') watch.notesWrites();
  for (const name of names) {
    const method = adapter[name] as unknown as AsyncMethod;
    // A write made under a lock whose lease may have run out is not made (lease-fence.ts): a failed write like any.
    const watched = (...args: never[]): Promise<unknown> =>
      watch.run(operation, () => {
        if (operation === 'write') checkLease();
        return method.apply(adapter, args);
      });
    Object.defineProperty(adapter, name, { value: watched, writable: true, configurable: true });
  }
}
