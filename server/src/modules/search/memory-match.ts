/**
 * tsquery text (what plan.ts builds: lexemes, `!`, `&`, `|`, `<N>` phrase chains, parentheses) parsed
 * for the in-memory path (memory.ts), which evaluates it over the collection's documents. It answers exactly as `tsv @@ query` does for that grammar; anything else (prefix or
 * weight suffixes, a phrase whose right side is not one lexeme, a negation inside a phrase) is
 * `undefined` from `parseTsquery`, and the search takes the SQL path instead.
 */

export type MatchNode =
  | { kind: 'lex'; term: string }
  | { kind: 'not'; arg: MatchNode }
  | { kind: 'and' | 'or'; left: MatchNode; right: MatchNode }
  /** Lexemes at fixed offsets from the first one's position (`'a' <-> 'b' <2> 'c'`: 0, 1, 3). */
  | { kind: 'phrase'; chain: { term: string; offset: number }[] };

class Unsupported extends Error {}

type Token = { t: 'lex'; v: string } | { t: 'op'; v: '&' | '|' | '!' | '(' | ')' } | { t: 'dist'; v: number };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === ' ') {
      i++;
    } else if (ch === "'") {
      // Quoted lexeme: '' is a quote, a backslash escapes the next character.
      let v = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Unsupported('unterminated lexeme');
        const c = text[i] as string;
        if (c === '\\') {
          v += text[i + 1] ?? '';
          i += 2;
        } else if (c === "'") {
          if (text[i + 1] === "'") {
            v += "'";
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          v += c;
          i++;
        }
      }
      // A prefix (:*) or weight (:A) suffix: not what plan.ts builds.
      if (text[i] === ':') throw new Unsupported('lexeme suffix');
      out.push({ t: 'lex', v });
    } else if (ch === '<') {
      const end = text.indexOf('>', i);
      if (end < 0) throw new Unsupported('bad phrase operator');
      const inner = text.slice(i + 1, end);
      const n = inner === '-' ? 1 : /^\d+$/.test(inner) ? Number(inner) : Number.NaN;
      if (!Number.isFinite(n)) throw new Unsupported('bad phrase distance');
      out.push({ t: 'dist', v: n });
      i = end + 1;
    } else if (ch === '&' || ch === '|' || ch === '!' || ch === '(' || ch === ')') {
      out.push({ t: 'op', v: ch });
      i++;
    } else {
      throw new Unsupported(`unexpected '${ch}'`);
    }
  }
  return out;
}

/** Postgres's precedence: `!` binds tightest, then `<N>`, then `&`, then `|`; binary operators left-associative. */
function parse(tokens: Token[]): MatchNode {
  let at = 0;
  const peek = () => tokens[at];
  const isOp = (v: string) => {
    const tok = peek();
    return tok?.t === 'op' && tok.v === v;
  };
  const primary = (): MatchNode => {
    const tok = tokens[at++];
    if (!tok) throw new Unsupported('unexpected end');
    if (tok.t === 'lex') return { kind: 'lex', term: tok.v };
    if (tok.t === 'op' && tok.v === '!') return { kind: 'not', arg: primary() };
    if (tok.t === 'op' && tok.v === '(') {
      const inner = or();
      if (!isOp(')')) throw new Unsupported('unbalanced parenthesis');
      at++;
      return inner;
    }
    throw new Unsupported('unexpected token');
  };
  const phrase = (): MatchNode => {
    let left = primary();
    while (peek()?.t === 'dist') {
      const dist = (tokens[at++] as { v: number }).v;
      const right = primary();
      // Only chains of lexemes, grown to the right (how phraseto_tsquery prints them).
      if (right.kind !== 'lex') throw new Unsupported('phrase with a composite right side');
      const chain =
        left.kind === 'lex'
          ? [{ term: left.term, offset: 0 }]
          : left.kind === 'phrase'
            ? left.chain
            : undefined;
      if (!chain) throw new Unsupported('phrase with a composite left side');
      const last = chain[chain.length - 1] as { offset: number };
      left = { kind: 'phrase', chain: [...chain, { term: right.term, offset: last.offset + dist }] };
    }
    return left;
  };
  const and = (): MatchNode => {
    let left = phrase();
    while (isOp('&')) {
      at++;
      left = { kind: 'and', left, right: phrase() };
    }
    return left;
  };
  const or = (): MatchNode => {
    let left = and();
    while (isOp('|')) {
      at++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  const node = or();
  if (at !== tokens.length) throw new Unsupported('trailing tokens');
  return node;
}

/** The tsquery's tree, or undefined when it uses anything this evaluator does not answer exactly. */
export function parseTsquery(text: string): MatchNode | undefined {
  try {
    return parse(tokenize(text));
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

function has(list: ArrayLike<number>, p: number): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid] as number;
    if (v === p) return true;
    if (v < p) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Whether a document's positions (its tsvector's, ascending per lexeme) hold the chain: the first
 * lexeme at some p and each other at p + its offset, as Postgres's phrase operator decides a chain
 * grown to the right (`(a <1> b) <2> c`: b one after a, c two after that b).
 */
export function phraseMatches(
  chain: { term: string; offset: number }[],
  positions: Map<string, number[]>,
): boolean {
  const lists = chain.map((c) => positions.get(c.term));
  if (lists.some((l) => l === undefined)) return false;
  const first = lists[0] as number[];
  for (const p of first) {
    let all = true;
    for (let i = 1; i < lists.length; i++) {
      if (!has(lists[i] as number[], p + (chain[i] as { offset: number }).offset)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}
