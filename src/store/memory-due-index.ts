import { emptyCounts, type DeliveryWrite, type DueEntry, type DueIndex, type DueMove, type IndexedState } from './due-index.ts';

/** The due-time index of a memory:// store: a map, sorted when read (such a store is small and private to one process). */
export class MemoryDueIndex implements DueIndex {
  private readonly byChannel = new Map<string, DueEntry>();
  private built: string | null = null;

  /** `records`: the Map a memory:// Keyv store keeps its deliveries in. */
  constructor(private readonly records: Map<unknown, unknown>) {}

  async *due(at: number, pageSize: number): AsyncGenerator<Array<{ channelId: string; dueAt: number }>> {
    const due = [...this.byChannel.values()]
      .flatMap(({ channelId, dueAt }) => (dueAt !== null && dueAt <= at ? [{ channelId, dueAt }] : []))
      .sort((a, b) => a.dueAt - b.dueAt || (a.channelId < b.channelId ? -1 : 1));
    for (let start = 0; start < due.length; start += pageSize) yield due.slice(start, start + pageSize);
  }

  async get(channelIds: readonly string[]): Promise<Map<string, DueEntry>> {
    const found = new Map<string, DueEntry>();
    for (const channelId of channelIds) {
      const entry = this.byChannel.get(channelId);
      if (entry) found.set(channelId, { ...entry });
    }
    return found;
  }

  async put(entries: readonly DueEntry[]): Promise<void> {
    for (const entry of entries) this.byChannel.set(entry.channelId, { ...entry });
  }

  async putMissing(entries: readonly DueEntry[]): Promise<void> {
    for (const entry of entries) if (!this.byChannel.has(entry.channelId)) this.byChannel.set(entry.channelId, { ...entry });
  }

  async move(moves: readonly DueMove[]): Promise<void> {
    for (const move of moves) this.moveOne(move);
  }

  async remove(channelIds: readonly string[]): Promise<void> {
    for (const channelId of channelIds) this.byChannel.delete(channelId);
  }

  async *entries(pageSize: number): AsyncGenerator<DueEntry[]> {
    const all = [...this.byChannel.values()].map((entry) => ({ ...entry }));
    for (let start = 0; start < all.length; start += pageSize) yield all.slice(start, start + pageSize);
  }

  async counts(): Promise<Record<IndexedState, number>> {
    const counts = emptyCounts();
    for (const { state } of this.byChannel.values()) counts[state] += 1;
    return counts;
  }

  async writeWithDelivery(record: DeliveryWrite, move: DueMove): Promise<void> {
    this.records.set(record.storedKey, record.serialized);
    this.moveOne(move);
  }

  async builtFor(): Promise<string | null> {
    return this.built;
  }

  async setBuiltFor(mark: string | null): Promise<void> {
    this.built = mark;
  }

  async close(): Promise<void> {}

  private moveOne({ channelId, from, to }: DueMove): void {
    const entry = this.byChannel.get(channelId);
    if (!entry || entry.dueAt !== from) return;
    if (to === null) this.byChannel.delete(channelId);
    else entry.dueAt = to;
  }
}
