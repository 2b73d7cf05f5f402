/**
 * The CACM test collection (../shared/corpora/cacm, SMART format): documents (title and abstract),
 * the natural-language queries, and their relevance judgements (binary). Read-only test data: it is
 * never copied into the product.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface CacmDocument {
  id: string;
  title: string;
  text: string;
}

export interface CacmQuery {
  id: string;
  text: string;
  /** Relevant document id → 1. */
  judgements: Map<string, number>;
}

export const CACM_DIR = fileURLToPath(new URL('../../../shared/corpora/cacm/', import.meta.url));

/** SMART records: `.I n` starts one, `.X` lines name a field, everything up to the next field is its text. */
function records(text: string): { id: string; fields: Map<string, string> }[] {
  const out: { id: string; fields: Map<string, string> }[] = [];
  let current: { id: string; fields: Map<string, string> } | undefined;
  let field: string | undefined;
  for (const line of text.split('\n')) {
    const start = /^\.I\s+(\d+)/.exec(line);
    if (start?.[1]) {
      current = { id: String(Number(start[1])), fields: new Map() };
      out.push(current);
      field = undefined;
      continue;
    }
    const tag = /^\.([A-Z])\s*$/.exec(line);
    if (tag?.[1]) {
      field = tag[1];
      continue;
    }
    if (current && field) current.fields.set(field, `${current.fields.get(field) ?? ''}${line}\n`);
  }
  return out;
}

const clean = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

export function readCacm(dir = CACM_DIR): { documents: CacmDocument[]; queries: CacmQuery[] } {
  const documents = records(readFileSync(`${dir}CACM.ALL`, 'latin1')).map((r) => ({
    id: r.id,
    title: clean(r.fields.get('T')),
    text: clean(r.fields.get('W')),
  }));
  const judgements = new Map<string, Map<string, number>>();
  for (const line of readFileSync(`${dir}CACM.REL`, 'latin1').split('\n')) {
    const [q, d] = line.trim().split(/\s+/);
    if (!q || !d) continue;
    const id = String(Number(q));
    const map = judgements.get(id) ?? new Map<string, number>();
    map.set(String(Number(d)), 1);
    judgements.set(id, map);
  }
  const queries = records(readFileSync(`${dir}CACM.QRY`, 'latin1'))
    .map((r) => ({ id: r.id, text: clean(r.fields.get('W')), judgements: judgements.get(r.id) ?? new Map() }))
    .filter((q) => q.judgements.size > 0);
  return { documents, queries };
}
