/**
 * Group commit: work items that arrive while a batch of the same key is being written wait and go together into the
 * next one, so a burst of answers to one quiz costs one transaction (and one fsync) per batch instead of one each.
 * A batch starts at once when none of its key is running: a lone item waits for nothing. Each item is told its own
 * result, and only once its batch has committed; a batch that fails rejects every item in it.
 *
 * Batches of different keys run side by side (the store serializes what it must); batches of one key run one after
 * the other, in arrival order.
 */

interface Pending<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (error: unknown) => void;
}

interface KeyQueue<I, O> {
  waiting: Pending<I, O>[];
  running: boolean;
}

export class GroupCommit<I, O> {
  private readonly queues = new Map<string, KeyQueue<I, O>>();

  /**
   * `write` takes one batch and returns one outcome per item, in its order. `maxBatch` caps a batch (its statements'
   * parameters grow with it); more wait for the next.
   */
  constructor(
    private readonly write: (key: string, items: I[]) => Promise<O[]>,
    private readonly maxBatch: number,
  ) {}

  submit(key: string, item: I): Promise<O> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { waiting: [], running: false };
      this.queues.set(key, queue);
    }
    const outcome = new Promise<O>((resolve, reject) => queue.waiting.push({ item, resolve, reject }));
    if (!queue.running) void this.drain(key, queue);
    return outcome;
  }

  private async drain(key: string, queue: KeyQueue<I, O>): Promise<void> {
    queue.running = true;
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0, this.maxBatch);
      try {
        const outcomes = await this.write(key, batch.map((pending) => pending.item));
        if (outcomes.length !== batch.length) throw new Error(`group commit: ${outcomes.length} outcomes for ${batch.length} items`);
        batch.forEach((pending, index) => pending.resolve(outcomes[index] as O));
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    queue.running = false;
    this.queues.delete(key);
  }
}
