import type { Db } from '../../db/client';
import { EPSILON } from './lists';
import type { PhraseCandidates } from './phrase';
import { type RankedRow, type RankQuery, rankDocuments } from './query';

/**
 * Ranks a phrase's candidates (phrase.ts). Without their scores, or when few, every candidate is
 * visited, checked and scored (query.ts). With their scores from the postings, only the best are
 * visited, as a threshold algorithm does: the V candidates of highest score are checked on their live
 * rows (full tsquery, filter, keyset) and scored by the same SQL; the page is proven when its last
 * hit scores above the best candidate left unvisited (nothing unvisited can rank before it), else V
 * grows fourfold. Exact. A frequent pair of 100k documents has thousands of candidates, of which a
 * page of 100 needs a few hundred visits. Undefined when proving it would visit more than `maxVisits`
 * (a filter or exclusion that rejects most candidates): the caller then takes the other paths.
 */
export async function rankPhraseCandidates(
  db: Db,
  rq: RankQuery,
  found: PhraseCandidates,
  maxVisits: number,
): Promise<RankedRow[] | undefined> {
  const { ords, scores } = found;
  const need = rq.offset + rq.limit + 1;
  const all = () => rankDocuments(db, { ...rq, ords: [...ords].sort((x, y) => x - y) });
  if (ords.length === 0) return [];
  if (!scores || ords.length <= Math.max(4 * need, 256)) return ords.length <= maxVisits ? all() : undefined;
  const order = Array.from({ length: ords.length }, (_, k) => k).sort(
    (x, y) => (scores[y] as number) - (scores[x] as number) || (ords[x] as number) - (ords[y] as number),
  );
  for (let v = 2 * need + 64; ; v *= 4) {
    if (v >= ords.length) return ords.length <= maxVisits ? all() : undefined;
    if (v > maxVisits) return undefined;
    const batch = order.slice(0, v).map((k) => ords[k] as number);
    const rows = await rankDocuments(db, { ...rq, ords: batch.sort((x, y) => x - y) });
    const last = rows[rq.limit];
    const next = scores[order[v] as number] as number;
    if (last && last.score > next + EPSILON * Math.max(1, Math.abs(next))) return rows;
  }
}
