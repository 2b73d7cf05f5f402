import { decodeTsvector } from './analyse';
import type { CollectionIndex } from './memory-index';
import { type MatchNode, phraseMatches } from './memory-match';
import { fieldNorm, roundScore, termShare, termWeights } from './memory-score';
import type { RankedRow, RankQuery } from './query';
import { type WordBounds, wordBounds } from './snippet';

/**
 * A page from a small collection's index in memory (memory.ts): matching as bitmaps over the
 * collection (memory-match.ts parses the tsquery), scoring term at a time (memory-score.ts, the SQL's
 * expression and rounding), keyset and offset paging, exactly as query.ts's SQL pages.
 */

/** A document's positions, decoded from its tsvector the first time they are read. */
export function positionsOf(index: CollectionIndex, i: number): Map<string, number[]> {
  const held = index.positions[i] as string | Map<string, number[]>;
  if (typeof held !== 'string') return held;
  const decoded = new Map(Object.entries(decodeTsvector(Buffer.from(held, 'base64')).pos));
  index.positions[i] = decoded;
  return decoded;
}

/**
 * `tsv @@ query` for every document at once, as a bitmap: a lexeme's documents from its postings,
 * `&`, `|` and `!` combined document by document, a phrase checked on the positions of the documents
 * holding all its lexemes.
 */
export function matching(index: CollectionIndex, node: MatchNode): Uint8Array {
  const n = index.ids.length;
  const out = new Uint8Array(n);
  switch (node.kind) {
    case 'lex': {
      for (const i of index.postings.get(node.term)?.docs ?? []) out[i] = 1;
      return out;
    }
    case 'not': {
      const arg = matching(index, node.arg);
      for (let i = 0; i < n; i++) out[i] = 1 - (arg[i] as number);
      return out;
    }
    case 'and':
    case 'or': {
      const left = matching(index, node.left);
      const right = matching(index, node.right);
      for (let i = 0; i < n; i++)
        out[i] =
          node.kind === 'and'
            ? (left[i] as number) & (right[i] as number)
            : (left[i] as number) | (right[i] as number);
      return out;
    }
    case 'phrase': {
      const holding = new Uint8Array(n);
      node.chain.forEach((c, k) => {
        for (const i of index.postings.get(c.term)?.docs ?? []) if (holding[i] === k) holding[i] = k + 1;
      });
      for (let i = 0; i < n; i++)
        if (holding[i] === node.chain.length && phraseMatches(node.chain, positionsOf(index, i))) out[i] = 1;
      return out;
    }
  }
}

/**
 * rankDocuments (query.ts) over the index: the matches (filtered), scored, after the keyset, ordered
 * by (score desc, id), offset, limit + 1. Undefined when the cursor names a document the index does
 * not hold (its place in the collation's order is then the database's to say).
 */
export function rankInMemory(
  index: CollectionIndex,
  node: MatchNode,
  rq: RankQuery,
  passes: Uint8Array | undefined,
): RankedRow[] | undefined {
  const { after, plan } = rq;
  const n = index.ids.length;
  let afterRank = -1;
  if (after?.score !== undefined) {
    const found = index.byId.get(after.id);
    if (found === undefined) return undefined;
    afterRank = found;
  }
  const matched = matching(index, node);
  // Scores term at a time in the plan's order, which is the SQL's order of summation.
  const sums = new Float64Array(n);
  const weights = termWeights(plan);
  const tn = new Float64Array(n);
  const bn = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    tn[i] = fieldNorm(index.titleLen[i] as number, plan.avgTitle);
    bn[i] = fieldNorm(index.bodyLen[i] as number, plan.avgBody);
  }
  plan.terms.forEach((t, k) => {
    const p = index.postings.get(t.term);
    if (!p) return;
    const w = weights[k] as number;
    for (let j = 0; j < p.docs.length; j++) {
      const i = p.docs[j] as number;
      sums[i] =
        (sums[i] as number) +
        termShare(w, p.title[j] as number, p.body[j] as number, tn[i] as number, bn[i] as number);
    }
  });
  const hits: number[] = [];
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (matched[i] !== 1 || (passes && passes[i] !== 1)) continue;
    const s = roundScore(sums[i] as number);
    if (after?.score !== undefined && !(s < after.score || (s === after.score && i > afterRank))) continue;
    scores[i] = s;
    hits.push(i);
  }
  hits.sort((x, y) => (scores[y] as number) - (scores[x] as number) || x - y);
  return hits.slice(rq.offset, rq.offset + rq.limit + 1).map((i) => ({
    id: index.ids[i] as string,
    score: scores[i] as number,
    title: index.titles[i] as string,
    metadata: index.metadata[i] as Record<string, unknown>,
    text: index.texts[i] as string,
    words: wordsOf(index, i),
  }));
}

/** A document's snippet source's words, found the first time it is on a page. */
export function wordsOf(index: CollectionIndex, i: number): WordBounds {
  const known = index.words[i];
  if (known) return known;
  const found = wordBounds(index.texts[i] as string);
  index.words[i] = found;
  return found;
}
