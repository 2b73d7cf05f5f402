import type { RootNode } from 'regjsparser';
import * as regjsparser from 'regjsparser';

// regjsparser is CommonJS, and Node.js's ESM loader finds none of its exports by name: `parse` is on the default.
const { parse } = (regjsparser as unknown as { default?: typeof regjsparser }).default ?? regjsparser;

/**
 * Whether a regular expression can backtrack exponentially (ReDoS, CWE-1333) in the backtracking engines of
 * JavaScript, Python, Java, .NET, Ruby, PHP (PCRE) and Swift: a repetition whose body can match one piece of input in
 * more than one way, as CodeQL's `js/redos` and Semgrep's ReDoS rules describe it.
 * - nested repetition: `(a+)+`, `(\w+\s?)*`, `(.*a){10}`: an unbounded repetition inside another, where everything
 *   else the outer body must match could also be matched by the inner one (`(\d+\.)+` is safe: the dot separates);
 * - overlapping alternatives under a repetition: `(\w|\d)+`, `(a|a)*`, `(.|\s)*`.
 * Characters are compared on a sample alphabet (printable ASCII and a few others), enough to tell classes apart.
 */
const FEATURES = { lookbehind: true, namedGroups: true, unicodePropertyEscape: true } as const;
type Node = RootNode<typeof FEATURES>;

const SAMPLE = [
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
  '\t',
  '\n',
  'é',
  'ß',
  '\u00a0',
];

const childrenOf = (node: Node): Node[] =>
  'body' in node && Array.isArray(node.body) ? (node.body as Node[]) : [];

/** Whether a node can match the empty string. */
function nullable(node: Node): boolean {
  switch (node.type) {
    case 'anchor':
    case 'reference':
      return true;
    case 'group':
      return node.behavior !== 'normal' && node.behavior !== 'ignore' ? true : node.body.every(nullable);
    case 'alternative':
      return node.body.every(nullable);
    case 'disjunction':
      return node.body.some(nullable);
    case 'quantifier':
      return node.min === 0 || nullable(node.body[0]);
    default:
      return false;
  }
}

/** The sample characters a single-character matcher accepts (tested with the engine itself). */
function charSet(raw: string, ignoreCase: boolean): Set<string> {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${raw})$`, ignoreCase ? 'iu' : 'u');
  } catch {
    try {
      re = new RegExp(`^(?:${raw})$`, ignoreCase ? 'i' : '');
    } catch {
      return new Set(SAMPLE);
    }
  }
  return new Set(SAMPLE.filter((c) => re.test(c)));
}

/** The characters a node's matches can start with. */
function first(node: Node, ic: boolean): Set<string> {
  switch (node.type) {
    case 'value':
    case 'characterClass':
    case 'characterClassEscape':
    case 'unicodePropertyEscape':
      return charSet(node.raw, ic);
    case 'dot':
      return new Set(SAMPLE.filter((c) => c !== '\n'));
    case 'quantifier':
      return first(node.body[0], ic);
    case 'disjunction':
      return union(node.body.map((n) => first(n, ic)));
    case 'group':
      if (node.behavior !== 'normal' && node.behavior !== 'ignore') return new Set();
      return sequenceFirst(node.body, ic);
    case 'alternative':
      return sequenceFirst(node.body, ic);
    default:
      return new Set();
  }
}

function sequenceFirst(terms: Node[], ic: boolean): Set<string> {
  const sets: Set<string>[] = [];
  for (const t of terms) {
    sets.push(first(t, ic));
    if (!nullable(t)) break;
  }
  return union(sets);
}

const union = (sets: Set<string>[]): Set<string> => new Set(sets.flatMap((s) => [...s]));
const overlaps = (a: Set<string>, b: Set<string>): boolean => [...a].some((c) => b.has(c));

/** The terms of a repetition's body, seen through groups (`((a+)b)+` → a+, b). */
function terms(node: Node): Node[] {
  if (node.type === 'group' && (node.behavior === 'normal' || node.behavior === 'ignore'))
    return node.body.length === 1 && node.body[0] ? terms(node.body[0]) : node.body;
  if (node.type === 'alternative') return node.body;
  return [node];
}

/** An unbounded repetition, itself or as a group's only term (`([a-z0-9]+)`). */
const unbounded = (n: Node): boolean => {
  if (n.type === 'quantifier') return n.max === undefined;
  const inner = terms(n);
  return (
    n.type === 'group' &&
    inner.length === 1 &&
    inner[0] !== undefined &&
    inner[0] !== n &&
    unbounded(inner[0])
  );
};
const single = (n: Node): boolean =>
  ['value', 'characterClass', 'characterClassEscape', 'unicodePropertyEscape', 'dot'].includes(n.type);

/** A repetition whose body matches the same input in several ways. */
function ambiguousRepeat(q: Node & { type: 'quantifier' }, ic: boolean): boolean {
  if (q.max !== undefined && q.max < 2) return false;
  const body = q.body[0];
  const seq = terms(body);
  // Overlapping alternatives: `(\w|\d)+`.
  const disjunction = seq.length === 1 && seq[0]?.type === 'disjunction' ? seq[0] : undefined;
  if (disjunction) {
    const alts = disjunction.body.map((a) => terms(a));
    const singles = alts
      .filter((a) => a.length === 1 && a[0] !== undefined && single(a[0]))
      .map((a) => first(a[0] as Node, ic));
    for (let i = 0; i < singles.length; i += 1)
      for (let j = i + 1; j < singles.length; j += 1)
        if (overlaps(singles[i] as Set<string>, singles[j] as Set<string>)) return true;
    const raws = disjunction.body.map((a) => a.raw);
    if (new Set(raws).size < raws.length) return true;
  }
  // Nested repetition: an unbounded inner repetition that every other required term could also feed.
  for (const inner of seq.filter(unbounded)) {
    const chars = first(inner, ic);
    if (chars.size === 0) continue;
    const others = seq.filter((t) => t !== inner && !nullable(t));
    if (others.every((t) => overlaps(first(t, ic), chars))) return true;
  }
  return false;
}

function walk(node: Node, ic: boolean): boolean {
  if (node.type === 'quantifier' && ambiguousRepeat(node, ic)) return true;
  return childrenOf(node).some((c) => walk(c, ic));
}

/** Whether the pattern (the regex source, without delimiters) can backtrack exponentially. */
export function catastrophicRegex(pattern: string, ignoreCase = false): boolean {
  if (pattern.length > 2000 || !/[+*}]/.test(pattern)) return false;
  for (const flags of ['u', '']) {
    try {
      return walk(parse(pattern, flags, FEATURES), ignoreCase);
    } catch {
      // Not valid in this mode (or another dialect's syntax, such as possessive quantifiers): try the other.
    }
  }
  return false;
}
