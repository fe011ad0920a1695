import { describe, expect, it } from 'vitest';
import { pacer, type TakeTurn } from '../../src/discord/post-pace.ts';
import type { TurnPriority } from '../../src/schedule/poster.ts';

/** Asks for a turn and notes `name` in `order` when it is given. */
function ask(take: TakeTurn, order: string[], name: string, priority?: TurnPriority): Promise<void> {
  return take(priority).then(() => {
    order.push(name);
  });
}

describe('the posts’ pace', () => {
  it('gives waiting posts their turns before pins that asked first, each kind in the order asked', async () => {
    const take = pacer(20);
    const order: string[] = [];
    await Promise.all([
      ask(take, order, 'pin 1', 'after'),
      ask(take, order, 'pin 2', 'after'),
      ask(take, order, 'post 1'),
      ask(take, order, 'post 2', 'first'),
      ask(take, order, 'post 3'),
    ]);
    expect(order).toEqual(['post 1', 'post 2', 'post 3', 'pin 1', 'pin 2']);
  });

  it('keeps a pin waiting while posts keep coming, and gives it its turn once none waits', async () => {
    const take = pacer(20);
    const order: string[] = [];
    // Three workers of a fan-out, each posting four times in a row: a post comes back to the pace as soon as its
    // turn is given, so there is always one waiting until the last round.
    const worker = async (name: string): Promise<void> => {
      for (let round = 1; round <= 4; round += 1) await ask(take, order, `${name}${round}`);
    };
    const posting = Promise.all([worker('a'), worker('b'), worker('c')]);
    const pins = Promise.all([ask(take, order, 'pin', 'after'), ask(take, order, 'unpin', 'after')]);
    await Promise.all([posting, pins]);
    expect(order.slice(-2)).toEqual(['pin', 'unpin']);
    expect(order.slice(0, -2).sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3', 'b4', 'c1', 'c2', 'c3', 'c4']);
  });

  it('decides who goes when the turn comes: a post asked while a pin waits goes first', async () => {
    const take = pacer(20);
    const order: string[] = [];
    let later: Promise<void> = Promise.resolve();
    // The first post's turn is given at once; the pin then waits a twentieth of a second for the next, during which
    // (as the first post's turn is given) the second post asks.
    const first = take().then(() => {
      order.push('post 1');
      later = ask(take, order, 'post 2');
    });
    const pin = ask(take, order, 'pin', 'after');
    await first;
    await Promise.all([later, pin]);
    expect(order).toEqual(['post 1', 'post 2', 'pin']);
  });

  it('gives every turn at once when pacing is off', async () => {
    const take = pacer(0);
    const order: string[] = [];
    await Promise.all([ask(take, order, 'pin', 'after'), ask(take, order, 'post')]);
    expect(order).toEqual(['pin', 'post']);
  });
});
