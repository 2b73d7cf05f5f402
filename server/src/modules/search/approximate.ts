import type { Db } from '../../db/client';
import { bestCandidates, type ListsOutcome, readLists } from './lists';
import { type RankedRow, type RankQuery, rankDocuments } from './query';

/**
 * The page when exactness would cost more than the search's budget (budget.ts, strategy.ts): what mature engines
 * do past their budget (Lucene's and Vespa's bounded candidate sets, block-max WAND's early
 * termination over the highest-impact postings). The scored terms' impact-ordered lists are read to
 * a bounded depth (lists.ts); the candidates with the highest upper bounds, a bounded set, are
 * checked on their live rows against the whole query (phrases, required and excluded parts, the
 * filter, the keyset) and scored exactly with the same expression as every other path, so every hit
 * is a real match with its real score and pages chain by cursor as usual. What is approximate is
 * only which documents were considered: a match outside the candidates (one whose terms all sit
 * deep in their lists, or a phrase match among many documents holding its words apart) can be
 * missing from the page. The response says `approximate: true`.
 */

/** Postings read at most over all scored terms. */
export const APPROXIMATE_READ = 65_536;
/** Candidates checked and scored at most (a document visit each). */
export const APPROXIMATE_CANDIDATES = 3_000;

/** Each term's depth: an equal share of the read budget, at least a few blocks, at most the list. */
function depthsFor(rq: RankQuery): number[] {
  const share = Math.floor(APPROXIMATE_READ / Math.max(1, rq.plan.terms.length));
  return rq.plan.terms.map((t) => Math.max(512, Math.min(share, Math.max(t.df, 1))));
}

const candidateCount = (need: number) => Math.min(APPROXIMATE_CANDIDATES, Math.max(1_000, 20 * need));

/** The best candidates by upper bound, as ascending ordinals (rankDocuments' `ords`). */
export function candidateOrds(lists: ListsOutcome, need: number): number[] {
  const all = Array.from({ length: lists.ords.length }, (_, k) => k);
  const { batch } = bestCandidates(all, lists.uppers, lists.ords, candidateCount(need));
  return batch.map((k) => lists.ords[k] as number).sort((x, y) => x - y);
}

/** The page scored over a bounded candidate set; `lists` when top-k already read some. */
export async function rankApproximately(db: Db, rq: RankQuery, lists?: ListsOutcome): Promise<RankedRow[]> {
  if (rq.plan.terms.length === 0) return [];
  const need = rq.offset + rq.limit + 1;
  const enough = lists && (lists.exhausted || lists.ords.length >= candidateCount(need));
  const read = enough ? lists : await readLists(db, rq, depthsFor(rq));
  const ords = candidateOrds(read, need);
  return ords.length === 0 ? [] : rankDocuments(db, { ...rq, ords });
}
