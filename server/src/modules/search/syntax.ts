/**
 * The search box's syntax, read in TypeScript (the words themselves are analysed by Postgres later,
 * plan.ts). What people type is mostly plain words, questions and pasted paragraphs; the operators
 * are those of web search engines and Lucene's query string:
 *   word       optional: ranks documents, any one of them is enough to match (operator "or"),
 *              or required (operator "and")
 *   +word      required        -word      excluded
 *   "a phrase" the words in this order; a clause like a word (+"…" required, -"…" excluded)
 *   a OR b     either (only meaningful with operator "and", or between phrases)
 * Anything else is a word: punctuation never fails, an unclosed quote runs to the end.
 */
export type Occur = 'should' | 'must' | 'must_not';

/** A word or phrase whose exact analysed form matters (required, excluded, quoted, or in an OR). */
export interface Unit {
  text: string;
  phrase: boolean;
}

export interface Clause {
  occur: Occur;
  /** One unit, or the alternatives of an OR group (any of them matches). */
  units: Unit[];
}

export interface ParsedQuery {
  /** Plain words (no operator), in order, repeats kept: their analysed lexemes are the ranked terms. */
  words: string[];
  /** Every other clause, deduplicated (the same unit with the same occur counts once). */
  clauses: Clause[];
}

interface Token {
  kind: 'word' | 'phrase' | 'or';
  text: string;
  prefix: '' | '+' | '-';
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = query.length;
  const isSpace = (ch: string | undefined) => ch === undefined || /\s/.test(ch);
  while (i < n) {
    while (i < n && isSpace(query[i])) i++;
    if (i >= n) break;
    let prefix: Token['prefix'] = '';
    const ch = query[i];
    if ((ch === '+' || ch === '-') && !isSpace(query[i + 1]) && query[i + 1] !== ch) {
      prefix = ch;
      i++;
    }
    if (query[i] === '"') {
      const end = query.indexOf('"', i + 1);
      const stop = end === -1 ? n : end;
      tokens.push({ kind: 'phrase', text: query.slice(i + 1, stop), prefix });
      i = stop + 1;
      continue;
    }
    let j = i;
    while (j < n && !isSpace(query[j]) && query[j] !== '"') j++;
    const text = query.slice(i, j);
    tokens.push({ kind: prefix === '' && text === 'OR' ? 'or' : 'word', text, prefix });
    i = j;
  }
  return tokens;
}

const key = (occur: Occur, units: Unit[]) =>
  JSON.stringify([occur, ...units.map((u) => [u.phrase, u.text.toLowerCase().replace(/\s+/g, ' ').trim()])]);

export function parseQuery(query: string): ParsedQuery {
  const tokens = tokenize(query);
  const words: string[] = [];
  const clauses = new Map<string, Clause>();
  const add = (occur: Occur, units: Unit[]) => {
    const k = key(occur, units);
    if (!clauses.has(k)) clauses.set(k, { occur, units });
  };
  const operand = (t: Token | undefined) => t !== undefined && t.kind !== 'or' && t.prefix === '';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t || t.kind === 'or') continue; // an OR with nothing to join is dropped
    // An OR group: plain operands joined by OR (a OR b OR "c d").
    if (operand(t) && tokens[i + 1]?.kind === 'or' && operand(tokens[i + 2])) {
      const units: Unit[] = [{ text: t.text, phrase: t.kind === 'phrase' }];
      while (tokens[i + 1]?.kind === 'or' && operand(tokens[i + 2])) {
        const next = tokens[i + 2] as Token;
        units.push({ text: next.text, phrase: next.kind === 'phrase' });
        i += 2;
      }
      add('should', units);
      continue;
    }
    const unit: Unit = { text: t.text, phrase: t.kind === 'phrase' };
    if (t.prefix === '+') add('must', [unit]);
    else if (t.prefix === '-') add('must_not', [unit]);
    else if (t.kind === 'phrase') add('should', [unit]);
    else words.push(t.text);
  }
  return { words, clauses: [...clauses.values()] };
}
