/**
 * Waiting work kept per owner (an account) and served round-robin: each owner's items in the order they came, the
 * owners in turn, so one owner's flood waits behind its own items and never ahead of another owner's first. The
 * caller decides which owners may be served now (`eligible`: e.g. those under their share of the workers).
 */
export class FairQueue<T> {
  // A Map keeps insertion order: the owner served last is moved to the end, which is the rotation.
  private readonly queues = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** How many of `owner`'s items wait. */
  waiting(owner: string): number {
    return this.queues.get(owner)?.length ?? 0;
  }

  push(owner: string, item: T): void {
    const queue = this.queues.get(owner);
    if (queue) queue.push(item);
    else this.queues.set(owner, [item]);
    this.count += 1;
  }

  /**
   * Puts an item back at the front of its owner's queue (work taken and only partly done), the owner keeping
   * the place in the rotation that `take` gave it: after the others.
   */
  unshift(owner: string, item: T): void {
    const queue = this.queues.get(owner);
    if (queue) queue.unshift(item);
    else this.queues.set(owner, [item]);
    this.count += 1;
  }

  /** The next item of the first owner in turn that `eligible` allows, or undefined when none may be served. */
  take(eligible: (owner: string) => boolean = () => true): { owner: string; item: T } | undefined {
    for (const [owner, queue] of this.queues) {
      if (!eligible(owner)) continue;
      const item = queue.shift() as T;
      this.count -= 1;
      this.queues.delete(owner);
      if (queue.length > 0) this.queues.set(owner, queue);
      return { owner, item };
    }
    return undefined;
  }

  /** Removes and returns every waiting item. */
  drain(): T[] {
    const items = [...this.queues.values()].flat();
    this.queues.clear();
    this.count = 0;
    return items;
  }
}
