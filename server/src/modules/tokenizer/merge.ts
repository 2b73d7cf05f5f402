import type { RankTable } from './ranks';

/** Below this many bytes the plain quadratic merge is the faster one. */
const SMALL_PIECE = 64;

/**
 * How many tokens byte-pair encoding makes of one piece (a match of the pre-tokenising pattern): repeatedly
 * merge the adjacent pair whose bytes have the lowest rank, the leftmost on ties, until no pair has a rank;
 * then count the parts that have a rank. That is js-tiktoken's algorithm (a test holds the counts equal), but
 * its loop rescans every pair after each merge: O(n²) key joins, so a 30 KB word held the event loop for
 * minutes. Long pieces go through a heap of candidate pairs instead: O(n log n).
 */
export function countPieceTokens(piece: Uint8Array, table: RankTable): number {
  if (piece.length === 1) return 1;
  const parts = partsOf(piece, table);
  let count = 0;
  for (let i = 0; i < parts.length - 1; i++) {
    if (table.rank(piece, parts[i] as number, parts[i + 1] as number) >= 0) count += 1;
  }
  return count;
}

/** The tokens (ranks) byte-pair encoding makes of one piece, appended to `out`. */
export function encodePiece(piece: Uint8Array, table: RankTable, out: number[]): void {
  const whole = table.rank(piece, 0, piece.length);
  if (whole >= 0) {
    out.push(whole);
    return;
  }
  const parts = partsOf(piece, table);
  for (let i = 0; i < parts.length - 1; i++) {
    const rank = table.rank(piece, parts[i] as number, parts[i + 1] as number);
    if (rank >= 0) out.push(rank);
  }
}

/** Where the merged parts of a piece start, and its length last. */
function partsOf(piece: Uint8Array, table: RankTable): number[] {
  return piece.length < SMALL_PIECE ? mergeSmall(piece, table) : mergeLarge(piece, table);
}

function mergeSmall(piece: Uint8Array, table: RankTable): number[] {
  const starts = Array.from({ length: piece.length + 1 }, (_, i) => i);
  while (starts.length > 2) {
    let best = -1;
    let bestRank = Number.POSITIVE_INFINITY;
    for (let i = 0; i < starts.length - 2; i++) {
      const rank = table.rank(piece, starts[i] as number, starts[i + 2] as number);
      if (rank >= 0 && rank < bestRank) {
        bestRank = rank;
        best = i;
      }
    }
    if (best === -1) break;
    starts.splice(best + 1, 1);
  }
  return starts;
}

/**
 * Parts as a linked list over byte offsets (a part starting at s ends where next[s] starts); candidate merges in
 * a binary heap keyed by rank, then start (rank × 2^26 + start, exact in a double), with the end each candidate
 * had when pushed. A popped candidate is used only if its pair is still as it was; merging pushes the two new
 * neighbouring pairs. All in typed arrays reused between calls: an object per candidate made a 4 MB word
 * allocate tens of millions of objects, and ran the counting thread out of its heap at 8 MB.
 */
const START_BITS = 2 ** 26;
let capacity = 0;
let next = new Int32Array(0);
let prev = new Int32Array(0);
let alive = new Uint8Array(0);
let keys = new Float64Array(0);
let ends = new Int32Array(0);

function reserve(n: number): void {
  if (n <= capacity) return;
  capacity = Math.max(n, capacity * 2, 1_024);
  next = new Int32Array(capacity + 1);
  prev = new Int32Array(capacity + 1);
  alive = new Uint8Array(capacity + 1);
  // n - 1 candidates at first, then at most two a merge.
  keys = new Float64Array(3 * capacity);
  ends = new Int32Array(3 * capacity);
}

function mergeLarge(piece: Uint8Array, table: RankTable): number[] {
  const n = piece.length;
  if (n >= START_BITS) throw new RangeError(`a piece of ${n} bytes is longer than the merge supports`);
  reserve(n);
  const next_ = next;
  const prev_ = prev;
  const alive_ = alive;
  const keys_ = keys;
  const ends_ = ends;
  for (let i = 0; i <= n; i++) {
    next_[i] = i + 1;
    prev_[i] = i - 1;
    alive_[i] = 1;
  }
  let size = 0;
  const push = (start: number) => {
    const middle = next_[start] as number;
    if (middle >= n) return;
    const end = next_[middle] as number;
    const rank = table.rank(piece, start, end);
    if (rank < 0) return;
    const key = rank * START_BITS + start;
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = keys_[parent] as number;
      if (above <= key) break;
      keys_[i] = above;
      ends_[i] = ends_[parent] as number;
      i = parent;
    }
    keys_[i] = key;
    ends_[i] = end;
  };
  for (let s = 0; s < n - 1; s++) push(s);
  while (size > 0) {
    const top = keys_[0] as number;
    const end = ends_[0] as number;
    // Take the last entry out and sift it down from the root.
    size -= 1;
    if (size > 0) {
      const key = keys_[size] as number;
      const lastEnd = ends_[size] as number;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        const child = r < size && (keys_[r] as number) < (keys_[l] as number) ? r : l;
        if ((keys_[child] as number) >= key) break;
        keys_[i] = keys_[child] as number;
        ends_[i] = ends_[child] as number;
        i = child;
      }
      keys_[i] = key;
      ends_[i] = lastEnd;
    }
    const start = top % START_BITS;
    const middle = next_[start] as number;
    // Stale: a part of the pair was merged into something else since it was pushed.
    if (!alive_[start] || middle >= n || next_[middle] !== end) continue;
    alive_[middle] = 0;
    next_[start] = end;
    prev_[end] = start;
    const before = prev_[start] as number;
    if (before >= 0) push(before);
    push(start);
  }
  const starts: number[] = [];
  for (let s = 0; s < n; s = next_[s] as number) starts.push(s);
  starts.push(n);
  return starts;
}
