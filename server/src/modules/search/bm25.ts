// The ranking's constants and idf, a leaf: the SQL scoring (rank.ts), the block codec's impacts and the
// in-memory lists all read them.

/**
 * BM25F-style scoring, described in docs/search.md. For each query term t in document d:
 *   tf~ = W_TITLE·tf_title/(1−B+B·len_title/avg_title) + W_BODY·tf_body/(1−B+B·len_body/avg_body)
 *   score += w_t · ln(1 + (N − df + 0.5)/(df + 0.5)) · tf~·(K1+1)/(K1+tf~)
 * w_t is 1 in keyword mode and the trigram similarity in fuzzy mode.
 */
export const K1 = 1.2;
export const B = 0.75;
export const W_TITLE = 3;
export const W_BODY = 1;
/** Scores are rounded so that summation order cannot change the last bit between two pages. */
export const SCORE_DIGITS = 8;

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}
