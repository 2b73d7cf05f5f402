import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue';

describe('FairQueue', () => {
  it("serves owners in turn, each owner's items in order", () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3', 'a4']) queue.push('a', item);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    const order = Array.from({ length: 7 }, () => queue.take()?.item);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
    expect(queue.take()).toBeUndefined();
  });

  it('skips owners that may not be served now, and keeps their place', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a1');
    queue.push('b', 'b1');
    expect(queue.take((owner) => owner !== 'a')).toEqual({ owner: 'b', item: 'b1' });
    expect(queue.take((owner) => owner !== 'a')).toBeUndefined();
    expect(queue.waiting('a')).toBe(1);
    expect(queue.drain()).toEqual(['a1']);
  });

  it('takes back partly done work at the front of its owner, the owner after the others', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    queue.push('b', 'b1');
    const first = queue.take();
    expect(first?.item).toBe('a1');
    queue.unshift('a', 'a1 (rest)');
    expect([queue.take()?.item, queue.take()?.item, queue.take()?.item]).toEqual(['b1', 'a1 (rest)', 'a2']);
  });
});
