/** Graded nDCG@k (gain 2^g − 1, log2 discount) over the judged documents. */
export function ndcgAt(k: number, ranked: string[], judgements: Map<string, number>): number {
  const gain = (g: number) => 2 ** g - 1;
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += gain(judgements.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judgements.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + gain(g) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Share of the judged-relevant documents found in the first k. */
export function recallAt(k: number, ranked: string[], judgements: Map<string, number>): number {
  if (judgements.size === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  let found = 0;
  for (const id of judgements.keys()) if (top.has(id)) found++;
  return found / judgements.size;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
