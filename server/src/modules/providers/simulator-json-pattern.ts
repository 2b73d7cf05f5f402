import type { RootNode } from 'regjsparser';
import * as regjsparser from 'regjsparser';

// regjsparser is CommonJS, and Node.js's ESM loader finds none of its exports by name: `parse` is on the default.
const { parse } = (regjsparser as unknown as { default?: typeof regjsparser }).default ?? regjsparser;

/**
 * Strings for a JSON Schema `pattern`: the client's regular expression is parsed (regjsparser, the parser Babel's
 * regex transforms use) and a string is built from its tree, with the choice's random sequence, aiming at a length
 * within `minLength`..`maxLength`. The expression itself is run only to check a short candidate, and only when it
 * cannot backtrack for long (`checkable`): `(a+)+$` on the event loop would hold the server.
 */

type Node = RootNode<typeof FEATURES>;

const FEATURES = { lookbehind: true, namedGroups: true, unicodePropertyEscape: true } as const;
// Longer patterns are not followed: building a string costs a scan of each character class, and the schema is
// the client's.
const MAX_PATTERN_LENGTH = 2_000;
// The most nodes one string's building may visit: `(?:){1000000000}` repeats nothing a billion times.
const MAX_STEPS = 100_000;
// Where a length is unbounded (`*`, `+`, `{n,}`), this is its bound: the planner's arithmetic stays finite.
const UNBOUNDED = 1_000_000;
// Without a minimum length, a string is its pattern's shortest plus up to this many characters.
const NATURAL_SLACK = 12;
const ATTEMPTS = 8;
// A candidate is checked with the client's expression only when the expression cannot backtrack for long and the
// candidate is short: a polynomial backtracker on 256 characters stays well under a millisecond.
const MAX_CHECKED_LENGTH = 256;
const ASCII: string[] = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
// Where no printable ASCII character fits a class: Latin-1, Greek, Cyrillic, a few CJK ideographs and kana.
const WIDER: string[] = [
  [0xa1, 0xff],
  [0x391, 0x3c9],
  [0x410, 0x44f],
  [0x3041, 0x3096],
  [0x4e00, 0x4e3f],
].flatMap(([from = 0, to = 0]) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i)),
);

class OutOfBudget extends Error {}

function clamp(value: number, lo: number, hi: number): number {
  return Math.min(Math.max(value, lo), hi);
}

/** Whether a node's repetition can match more than once. */
function repeats(node: Node): boolean {
  return node.type === 'quantifier' && (node.max === undefined || node.max > 1);
}

/**
 * Whether running the expression on a short string cannot take long: no repetition holds another repetition or an
 * alternation (`(a+)+`, `(a|ab)*`), the shapes whose backtracking is exponential.
 */
export function checkable(pattern: string): boolean {
  const tree = parsed(pattern);
  return tree !== undefined && backtracksLittle(tree);
}

function backtracksLittle(tree: Node): boolean {
  const risky = (node: Node, inRepeat: boolean): boolean => {
    if (inRepeat && (repeats(node) || node.type === 'disjunction')) return true;
    const children = 'body' in node && Array.isArray(node.body) ? (node.body as Node[]) : [];
    return children.some((child) => risky(child, inRepeat || repeats(node)));
  };
  return !risky(tree, false);
}

function parsed(pattern: string): Node | undefined {
  for (const flags of ['u', '']) {
    try {
      return parse(pattern, flags, FEATURES);
    } catch {
      // Not valid with these flags: JSON Schema's patterns are ECMA-262's, with or without Unicode mode.
    }
  }
  return undefined;
}

function compiled(pattern: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // As above.
    }
  }
  return undefined;
}

/** Builds strings from one pattern's tree. */
class Builder {
  private readonly ranges = new Map<Node, [number, number]>();
  private readonly pools = new Map<Node, string[]>();
  private readonly captureIndex = new Map<Node, number>();
  private readonly namedCapture = new Map<string, number>();
  private captures: string[] = [];
  private steps = 0;

  constructor(
    private readonly tree: Node,
    private readonly flags: string,
    private readonly random: () => number,
  ) {
    this.numberGroups(tree);
  }

  /** A string whose length (in code points) is as near `target` as the pattern allows. */
  build(target: number): string {
    this.captures = [];
    this.steps = 0;
    const [lo, hi] = this.range(this.tree);
    return this.make(this.tree, clamp(target, lo, hi));
  }

  /** The shortest and longest strings the node makes (lookarounds and references count as empty). */
  range(node: Node): [number, number] {
    const known = this.ranges.get(node);
    if (known) return known;
    let range: [number, number];
    switch (node.type) {
      case 'alternative':
        range = this.sum(node.body);
        break;
      case 'group':
        range = node.behavior === 'normal' || node.behavior === 'ignore' ? this.sum(node.body) : [0, 0];
        break;
      case 'disjunction': {
        const each = node.body.map((n) => this.range(n));
        range = [Math.min(...each.map((r) => r[0])), Math.max(...each.map((r) => r[1]))];
        break;
      }
      case 'quantifier': {
        const [a, b] = this.range(node.body[0]);
        const most = node.max ?? UNBOUNDED;
        range = [Math.min(node.min * a, UNBOUNDED), Math.min(most * b, UNBOUNDED)];
        break;
      }
      case 'anchor':
      case 'reference':
        range = [0, 0];
        break;
      default:
        range = [1, 1];
    }
    this.ranges.set(node, range);
    return range;
  }

  private sum(nodes: Node[]): [number, number] {
    let lo = 0;
    let hi = 0;
    for (const n of nodes) {
      const [a, b] = this.range(n);
      lo = Math.min(lo + a, UNBOUNDED);
      hi = Math.min(hi + b, UNBOUNDED);
    }
    return [lo, hi];
  }

  private numberGroups(node: Node): void {
    if (node.type === 'group' && node.behavior === 'normal') {
      const index = this.captureIndex.size + 1;
      this.captureIndex.set(node, index);
      if (node.name) this.namedCapture.set(node.name.value, index);
    }
    if ('body' in node && Array.isArray(node.body))
      for (const child of node.body as Node[]) this.numberGroups(child);
  }

  private randomInt(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  /** Splits `target` among nodes, each within its range (the total clamped to what they can make together). */
  private split(target: number, ranges: [number, number][]): number[] {
    const least = ranges.reduce((s, r) => s + r[0], 0);
    let slack = Math.max(0, target - least);
    let roomAfter = ranges.reduce((s, r) => s + (r[1] - r[0]), 0);
    return ranges.map(([a, b]) => {
      roomAfter -= b - a;
      const extra = this.randomInt(Math.max(0, slack - roomAfter), Math.min(b - a, slack));
      slack -= extra;
      return a + extra;
    });
  }

  private sequence(nodes: Node[], target: number): string {
    const targets = this.split(
      target,
      nodes.map((n) => this.range(n)),
    );
    let text = '';
    for (let i = 0; i < nodes.length; i++) text += this.make(nodes[i] as Node, targets[i] ?? 0);
    return text;
  }

  private make(node: Node, target: number): string {
    this.steps += 1;
    if (this.steps > MAX_STEPS) throw new OutOfBudget();
    switch (node.type) {
      case 'alternative':
        return this.sequence(node.body, target);
      case 'group': {
        if (node.behavior !== 'normal' && node.behavior !== 'ignore') return '';
        const text = this.sequence(node.body, target);
        const index = this.captureIndex.get(node);
        if (index !== undefined) this.captures[index] = text;
        return text;
      }
      case 'disjunction': {
        const fitting = node.body.filter((n) => {
          const [a, b] = this.range(n);
          return a <= target && target <= b;
        });
        const options = fitting.length > 0 ? fitting : node.body;
        return this.make(options[this.randomInt(0, options.length - 1)] as Node, target);
      }
      case 'quantifier':
        return this.repeat(node, target);
      case 'anchor':
        return '';
      case 'reference': {
        const index = node.name ? this.namedCapture.get(node.name.value) : node.matchIndex;
        return (index !== undefined && this.captures[index]) || '';
      }
      case 'value':
        return String.fromCodePoint(node.codePoint);
      default: {
        const pool = this.pool(node);
        return pool[this.randomInt(0, pool.length - 1)] ?? '';
      }
    }
  }

  private repeat(node: Extract<Node, { type: 'quantifier' }>, target: number): string {
    const body = node.body[0];
    const [a, b] = this.range(body);
    const most = node.max ?? UNBOUNDED;
    if (b === 0) return node.min > 0 ? this.make(body, 0) : '';
    // How many times, so that the target can be met: n·a ≤ target ≤ n·b.
    const fewest = clamp(Math.ceil(target / b), node.min, most);
    const mostFit = a === 0 ? most : clamp(Math.floor(target / a), node.min, most);
    const count = this.randomInt(fewest, Math.max(fewest, mostFit));
    // Repetitions that may be empty make nothing beyond what the target needs.
    const made = a === 0 ? Math.min(count, Math.max(target, node.min > 0 ? 1 : 0)) : count;
    const targets = this.split(
      target,
      Array.from({ length: made }, () => [a, b] as [number, number]),
    );
    let text = '';
    for (const t of targets) text += this.make(body, t);
    return text;
  }

  /** The characters a one-character node matches: printable ASCII first, wider scripts when none does. */
  private pool(node: Node): string[] {
    const known = this.pools.get(node);
    if (known) return known;
    let pool: string[];
    if (node.type === 'dot') pool = ASCII;
    else {
      // The node's own text is one character class or escape: running it on one character cannot backtrack.
      const one = new RegExp(`^(?:${node.raw})$`, this.flags);
      pool = ASCII.filter((c) => one.test(c));
      if (pool.length === 0) {
        const ends =
          node.type === 'characterClass'
            ? node.body.flatMap((item) =>
                item.type === 'characterClassRange'
                  ? [
                      item.min.codePoint,
                      item.max.codePoint,
                      this.randomInt(item.min.codePoint, item.max.codePoint),
                    ]
                  : item.type === 'value'
                    ? [item.codePoint]
                    : [],
              )
            : [];
        pool = [...WIDER, ...ends.map((cp) => String.fromCodePoint(cp))].filter((c) => one.test(c));
      }
    }
    this.pools.set(node, pool);
    return pool;
  }
}

/**
 * A string the schema's `pattern` matches, within `least`..`most` code points, drawn with `random`; or undefined
 * when the pattern is not a valid expression, is longer than MAX_PATTERN_LENGTH, or no attempt gave a string that
 * fits. Lookarounds are not planned for: a string they refuse fails the check (when the pattern is checkable) and
 * the caller falls back to words. An uncheckable pattern's candidate is returned unchecked.
 */
export function stringForPattern(
  pattern: string,
  least: number,
  most: number,
  random: () => number,
): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return undefined;
  const regex = compiled(pattern);
  const tree = parsed(pattern);
  if (!regex || !tree) return undefined;
  const builder = new Builder(tree, regex.flags, random);
  const check = backtracksLittle(tree);
  const [shortest, longest] = builder.range(tree);
  const lo = Math.max(least, shortest);
  const hi = Math.min(most, longest);
  if (lo > hi) return undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const target = Math.floor(lo + random() * (Math.min(hi, lo + NATURAL_SLACK) - lo + 1));
    let text: string;
    try {
      text = builder.build(target);
    } catch {
      // Over budget, or a class the parser read in another mode than the engine (its one-character
      // expression does not compile): no string from this pattern.
      return undefined;
    }
    const length = Array.from(text).length;
    if (length < least || length > most) continue;
    if (check && text.length <= MAX_CHECKED_LENGTH && !regex.test(text)) continue;
    return text;
  }
  return undefined;
}
