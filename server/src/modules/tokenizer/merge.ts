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
 * Parts as a linked list over byte offsets (a part starting at s ends where next[s] starts); candidate
 * merges in a binary heap ordered by (rank, start). A popped candidate is used only if both parts are still
 * as they were when it was pushed; merging pushes the two new neighbouring pairs.
 */
function mergeLarge(piece: Uint8Array, table: RankTable): number[] {
  const n = piece.length;
  const next = new Int32Array(n + 1);
  const prev = new Int32Array(n + 1);
  const alive = new Uint8Array(n + 1).fill(1);
  for (let i = 0; i <= n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  // Candidate merges: the pair starting at `start` and ending at `end`, with the rank of its bytes.
  const heap: { rank: number; start: number; end: number }[] = [];
  const less = (a: number, b: number) => {
    const x = heap[a] as (typeof heap)[number];
    const y = heap[b] as (typeof heap)[number];
    return x.rank < y.rank || (x.rank === y.rank && x.start < y.start);
  };
  const swap = (a: number, b: number) => {
    const t = heap[a] as (typeof heap)[number];
    heap[a] = heap[b] as (typeof heap)[number];
    heap[b] = t;
  };
  const push = (start: number) => {
    const middle = next[start] as number;
    if (middle >= n) return;
    const end = next[middle] as number;
    const rank = table.rank(piece, start, end);
    if (rank < 0) return;
    heap.push({ rank, start, end });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!less(i, parent)) break;
      swap(i, parent);
      i = parent;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(l, m)) m = l;
        if (r < heap.length && less(r, m)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
    return top;
  };
  for (let s = 0; s < n - 1; s++) push(s);
  for (let top = pop(); top; top = pop()) {
    const { start, end } = top;
    const middle = next[start] as number;
    // Stale: a part of the pair was merged into something else since it was pushed.
    if (!alive[start] || middle >= n || next[middle] !== end) continue;
    alive[middle] = 0;
    next[start] = end;
    prev[end] = start;
    const before = prev[start] as number;
    if (before >= 0) push(before);
    push(start);
  }
  const starts: number[] = [];
  for (let s = 0; s < n; s = next[s] as number) starts.push(s);
  starts.push(n);
  return starts;
}
