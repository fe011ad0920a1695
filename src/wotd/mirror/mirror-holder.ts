/**
 * The mirror the lookups read: one immutable MirrorModel at a time, swapped whole by the refresher. A lookup takes
 * `current()` once and answers from that model, so a swap in the middle of it changes nothing it sees.
 */
import type { MirrorModel } from './mirror-model.ts';

/** What the lookups need of the mirror (src/wotd/entry-lookup.ts, history-lookup.ts, find-lookup.ts). */
export interface MirrorReader {
  /** The mirror in use, or null while there is none (off, not loaded yet, or nothing published). */
  current(): MirrorModel | null;
}

export class MirrorHolder implements MirrorReader {
  private model: MirrorModel | null = null;
  /** The stored copy the model was built from (its generation), or null. */
  private generation: string | null = null;

  current(): MirrorModel | null {
    return this.model;
  }

  get loadedGeneration(): string | null {
    return this.generation;
  }

  swap(model: MirrorModel, generation: string): void {
    this.model = model;
    this.generation = generation;
  }
}
