/**
 * Plain BM25 in memory, the reference a relevance benchmark compares Tessera's ranking with:
 * one field (title and text together), k1 1.2, b 0.75, Lucene's idf ln(1 + (N − df + 0.5)/(df + 0.5)),
 * each distinct query term once. It ranks over the lexemes Postgres's analysis produced for the
 * same documents and queries (stemming, stop words), so only the ranking differs.
 */
export interface ReferenceDocument {
  id: string;
  /** lexeme → frequency in the whole document. */
  tf: Map<string, number>;
  length: number;
}

export class Bm25Reference {
  private readonly postings = new Map<string, { doc: ReferenceDocument; tf: number }[]>();
  private readonly avgLength: number;

  constructor(
    private readonly documents: ReferenceDocument[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    for (const doc of documents) {
      for (const [term, tf] of doc.tf) {
        const list = this.postings.get(term) ?? [];
        list.push({ doc, tf });
        this.postings.set(term, list);
      }
    }
    this.avgLength = documents.reduce((sum, d) => sum + d.length, 0) / Math.max(documents.length, 1);
  }

  /** The ids of the best `limit` documents for the query's distinct lexemes (ties by id). */
  search(terms: string[], limit: number): string[] {
    const n = this.documents.length;
    const scores = new Map<string, number>();
    for (const term of new Set(terms)) {
      const list = this.postings.get(term) ?? [];
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = this.k1 * (1 - this.b + (this.b * doc.length) / this.avgLength);
        scores.set(doc.id, (scores.get(doc.id) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .slice(0, limit)
      .map(([id]) => id);
  }
}
