import { describe, expect, it } from 'vitest';
import { Deadline, DeadlineQueue } from '../../src/replies/deadlines.ts';

class Named extends Deadline {
  constructor(readonly name: string) {
    super();
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineQueue', () => {
  it('fires each deadline not cancelled, in the order they were added, on one queue', async () => {
    const fired: string[] = [];
    const queue = new DeadlineQueue<Named>(20, (deadline) => fired.push(deadline.name));
    const [a, b, c] = [new Named('a'), new Named('b'), new Named('c')];
    queue.add(a);
    queue.add(b);
    await wait(5);
    queue.add(c);
    queue.cancel(b);
    await wait(60);
    expect(fired).toEqual(['a', 'c']);
    // Cancelling what already fired, or twice, changes nothing.
    queue.cancel(a);
    queue.cancel(b);
    expect(a.queued || b.queued || c.queued).toBe(false);
  });

  it('keeps firing after the queue emptied and filled again', async () => {
    const fired: string[] = [];
    const queue = new DeadlineQueue<Named>(5, (deadline) => fired.push(deadline.name));
    const first = new Named('first');
    queue.add(first);
    queue.cancel(first);
    queue.add(new Named('second'));
    await wait(30);
    queue.add(new Named('third'));
    await wait(30);
    expect(fired).toEqual(['second', 'third']);
  });

  it('fires none of the deadlines cancelled before they were due', async () => {
    const fired: string[] = [];
    const queue = new DeadlineQueue<Named>(10, (deadline) => fired.push(deadline.name));
    const all = Array.from({ length: 50 }, (_, i) => new Named(String(i)));
    for (const deadline of all) queue.add(deadline);
    for (const deadline of all) if (Number(deadline.name) % 2 === 0) queue.cancel(deadline);
    await wait(40);
    expect(fired).toEqual(all.filter((deadline) => Number(deadline.name) % 2 === 1).map((deadline) => deadline.name));
  });
});
