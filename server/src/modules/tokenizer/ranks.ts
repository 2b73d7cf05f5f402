/**
 * A BPE's merge ranks (token bytes → rank, rank → bytes) in a few typed arrays instead of js-tiktoken's two Maps.
 * Those held o200k_base's 200,000 tokens as 200,000 strings and 200,000 Uint8Arrays: 66 MB of JavaScript heap
 * that every major garbage collection had to mark, in each process and each thread that counted tokens, and a
 * string joined per look-up. Here the tokens' bytes sit end to end in one buffer, found through an open-addressing
 * hash table of ranks: about 5 MB, in arrays the collector does not look into.
 */
export class RankTable {
  /** Every token's bytes, end to end. */
  private readonly data: Uint8Array;
  /** By rank: where its bytes start in `data`, and how many there are (0: no token has this rank). */
  private readonly starts: Uint32Array;
  private readonly lengths: Uint16Array;
  /** Open addressing, linear probing: rank + 1, or 0 for an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** How many ranks there are. */
  readonly size: number;
  /** No token is longer than this many bytes: longer spans need no look-up. */
  readonly maxTokenBytes: number;

  /** From js-tiktoken's compressed ranks: lines of `<name> <first rank> <base64 token> <base64 token> …`. */
  constructor(bpeRanks: string) {
    const tokens = new Map<string, number>();
    let maxRank = -1;
    for (const line of bpeRanks.split('\n')) {
      if (line.length === 0) continue;
      const fields = line.split(' ');
      const offset = Number.parseInt(fields[1] ?? '', 10);
      for (let i = 2; i < fields.length; i++) {
        // A token listed twice keeps its last rank, as js-tiktoken's constructor does.
        tokens.set(fields[i] as string, offset + i - 2);
        maxRank = Math.max(maxRank, offset + i - 2);
      }
    }
    const decoded: [Uint8Array, number][] = [];
    let total = 0;
    for (const [token, rank] of tokens) {
      const bytes = Buffer.from(token, 'base64');
      decoded.push([bytes, rank]);
      total += bytes.length;
    }
    this.size = maxRank + 1;
    this.data = new Uint8Array(total);
    this.starts = new Uint32Array(this.size);
    this.lengths = new Uint16Array(this.size);
    let capacity = 1;
    while (capacity < decoded.length * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    let at = 0;
    let longest = 1;
    for (const [bytes, rank] of decoded) {
      this.data.set(bytes, at);
      this.starts[rank] = at;
      this.lengths[rank] = bytes.length;
      at += bytes.length;
      longest = Math.max(longest, bytes.length);
      const found = this.slotOf(bytes, 0, bytes.length);
      this.slots[found] = rank + 1;
    }
    this.maxTokenBytes = longest;
  }

  /** The rank of `bytes[from, to)`, or -1 when no token has those bytes. */
  rank(bytes: Uint8Array, from: number, to: number): number {
    if (to - from > this.maxTokenBytes) return -1;
    return (this.slots[this.slotOf(bytes, from, to)] as number) - 1;
  }

  /** A token's bytes (a view; not to be written to), or undefined for a rank no token has. */
  bytesOf(rank: number): Uint8Array | undefined {
    const length = this.lengths[rank];
    if (!length) return undefined;
    const start = this.starts[rank] as number;
    return this.data.subarray(start, start + length);
  }

  /** The slot that holds these bytes' rank, or the empty slot where it would go. */
  private slotOf(bytes: Uint8Array, from: number, to: number): number {
    // FNV-1a over the bytes.
    let hash = 0x811c9dc5;
    for (let i = from; i < to; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
    const length = to - from;
    const { slots, mask, data, starts, lengths } = this;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] as number;
      if (entry === 0) return slot;
      const rank = entry - 1;
      if (lengths[rank] !== length) continue;
      const start = starts[rank] as number;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (data[start + i] !== bytes[from + i]) {
          same = false;
          break;
        }
      }
      if (same) return slot;
    }
  }
}
