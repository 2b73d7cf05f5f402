/**
 * How many documents a query may match, from its lexemes' document frequencies alone (no statement).
 */

/**
 * An upper estimate of how many documents match a tsquery, from its lexemes' document frequencies:
 * a lexeme matches df documents, `a & b` and `a <-> b` at most the smaller, `a | b` at most the sum,
 * `!a` at most n − (what a matches). Used to pick between scoring every match (cheap when few
 * match) and top-k. Infinity when the text cannot be read.
 */
export function estimateMatches(tsquery: string, dfs: Map<string, number>, n: number): number {
  const tokens = tsquery.match(/'(?:[^']|'')*'(?::[*A-D]+)?|<\d*->|<\d+>|[&|!()]/g);
  if (!tokens) return Number.POSITIVE_INFINITY;
  let pos = 0;
  const fail = () => {
    throw new Error('unreadable tsquery');
  };
  const atom = (): number => {
    const tok = tokens[pos++];
    if (tok === undefined) return fail();
    if (tok === '!') return Math.max(0, n - atom());
    if (tok === '(') {
      const value = or();
      if (tokens[pos++] !== ')') fail();
      return value;
    }
    if (!tok.startsWith("'")) return fail();
    const end = tok.lastIndexOf("'");
    if (tok.slice(end + 1).includes('*')) return n;
    return dfs.get(tok.slice(1, end).replaceAll("''", "'")) ?? 0;
  };
  const phrase = (): number => {
    let value = atom();
    while (tokens[pos]?.startsWith('<')) {
      pos++;
      value = Math.min(value, atom());
    }
    return value;
  };
  const and = (): number => {
    let value = phrase();
    while (tokens[pos] === '&') {
      pos++;
      value = Math.min(value, phrase());
    }
    return value;
  };
  const or = (): number => {
    let value = and();
    while (tokens[pos] === '|') {
      pos++;
      value = Math.min(n, value + and());
    }
    return value;
  };
  try {
    const value = or();
    return pos === tokens.length ? value : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
