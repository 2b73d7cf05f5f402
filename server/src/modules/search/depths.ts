/**
 * How deep top-k reads each scored term's impact-ordered list in its next round (topk.ts). Any
 * depths give an exact answer (a round proves its page or does not); they only decide the cost.
 *
 * The first round reads every list to the same depth. When a round fails because what is unread
 * may still add too much (or too many candidates would need verifying), and a lower bound theta on
 * the page's last score is known, the depths follow MaxScore (Turtle and Flood) over the lists: the
 * terms whose bounds on their unread part sum below half of theta (three quarters, or all of it,
 * when half reads too much) are "non-essential" (the common words of a question or paragraph) and
 * stay where they are; every other list is read to its end, which makes its bound 0. A document
 * then reaches the page only through an essential list, whose postings are all read, plus at most
 * the non-essential bounds; so the round after proves the page unless verification runs out.
 * Reading the essential lists whole costs their document frequencies, which are small for the
 * informative words that essential terms are; when that sum is past the budget, every list grows
 * fourfold instead, as before.
 */
export const FULL_DEPTH = 2_147_483_647;
/** Shares of theta the non-essential bounds may sum to, tried in this order (see nextDepths). */
export const NON_ESSENTIAL_SHARES = [0.5, 0.75, 1];

export interface DepthTerm {
  df: number;
}

/** Postings a round reads with these depths (a list holds at most df). */
export function readCost(terms: DepthTerm[], depths: number[]): number {
  return terms.reduce((sum, t, i) => sum + Math.min(depths[i] ?? 0, Math.max(t.df, 0)), 0);
}

/**
 * The next round's depths after one whose page the unread postings kept from being proven.
 * `bounds[i]` is what term i's unread postings may add (0 once its list is exhausted); `theta` a
 * lower bound on the page's last score (−Infinity when none is known); `maxRead` the budget in
 * postings when lists grow, `maxWholeRead` when MaxScore reads lists whole. Undefined when no deeper reading fits the budget.
 */
export function nextDepths(
  terms: DepthTerm[],
  depths: number[],
  bounds: number[],
  theta: number,
  maxRead: number,
  maxDepth: number,
  maxWholeRead = maxRead,
): number[] | undefined {
  const open = terms.map((_, i) => i).filter((i) => (bounds[i] ?? 0) > 0);
  if (Number.isFinite(theta) && theta > 0) {
    // Smallest bounds first, while their sum stays under a share of theta: those lists need not be
    // read further. Half of theta first: a document seen in an essential list then needs a
    // verification only when its seen part reaches the other half, which keeps verification small;
    // larger shares (fewer lists read whole, more verification) when half costs too much to read.
    const byBound = [...open].sort((x, y) => (bounds[x] ?? 0) - (bounds[y] ?? 0));
    for (const share of NON_ESSENTIAL_SHARES) {
      const limit = theta * share * (1 - 1e-6);
      let sum = 0;
      let kept = 0;
      for (const i of byBound) {
        if (sum + (bounds[i] ?? 0) >= limit) break;
        sum += bounds[i] ?? 0;
        kept++;
      }
      const essential = new Set(byBound.slice(kept));
      const next = depths.map((d, i) => (essential.has(i) ? FULL_DEPTH : d));
      const changed = next.some((d, i) => d !== depths[i]);
      if (changed && readCost(terms, next) <= maxWholeRead) return next;
    }
  }
  const grown = depths.map((d, i) => (open.includes(i) && d < FULL_DEPTH ? d * 4 : d));
  const tooDeep = grown.some((d, i) => open.includes(i) && d < FULL_DEPTH && d > maxDepth);
  return tooDeep || readCost(terms, grown) > maxRead ? undefined : grown;
}
