import type { RootNode } from 'regjsparser';
import type { SchemaBudget } from './simulator-json-budget';

export const FEATURES = { lookbehind: true, namedGroups: true, unicodePropertyEscape: true } as const;
export type Node = RootNode<typeof FEATURES>;

// A character pool is made by testing each candidate with the node's one-character expression: about a tenth of a
// step each.
const POOL_TESTS_PER_STEP = 10;
// Where a length is unbounded (`*`, `+`, `{n,}`), this is its bound: the planner's arithmetic stays finite.
const UNBOUNDED = 1_000_000;
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

function clamp(value: number, lo: number, hi: number): number {
  return Math.min(Math.max(value, lo), hi);
}

/**
 * Builds strings from one pattern's tree (regjsparser's), each aimed at a length: repetitions and alternatives are
 * chosen so that the lengths add up. Lookarounds and backreferences count as empty in the plan. Every node built
 * and every repetition planned is spent from the answer's budget before it is made: `(?:){1000000000}` repeats
 * nothing a billion times, and `x{2147483647}` would plan two billion repetitions.
 */
export class Builder {
  private readonly ranges = new Map<Node, [number, number]>();
  private readonly pools = new Map<Node, string[]>();
  private readonly captureIndex = new Map<Node, number>();
  private readonly namedCapture = new Map<string, number>();
  private captures: string[] = [];
  private random: () => number = Math.random;

  constructor(
    private readonly tree: Node,
    private readonly flags: string,
    private readonly budget: SchemaBudget,
  ) {
    this.numberGroups(tree);
  }

  /** A string whose length (in code points) is as near `target` as the pattern allows, drawn with `random`. */
  build(target: number, random: () => number): string {
    this.random = random;
    this.captures = [];
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
    this.budget.spend(1);
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
        // Each alternative's range is looked at: a repeated alternation of hundreds costs that many each time.
        this.budget.spend(Math.ceil(node.body.length / 2));
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
    this.budget.spend(made);
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
      this.budget.spend(Math.ceil(ASCII.length / POOL_TESTS_PER_STEP));
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
        this.budget.spend(Math.ceil((WIDER.length + ends.length) / POOL_TESTS_PER_STEP));
        pool = [...WIDER, ...ends.map((cp) => String.fromCodePoint(cp))].filter((c) => one.test(c));
      }
    }
    this.pools.set(node, pool);
    return pool;
  }
}
