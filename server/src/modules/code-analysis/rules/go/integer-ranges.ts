import type { SyntaxNode } from '../../parsing/tree';
import { FUNCTION_TYPES, field, namedChildren, unparen } from './syntax';

/**
 * The range a checked value can hold where it is converted (gosec G115's range analysis, narrowed to what reads
 * reliably from the tree): the conditions that dominate the conversion — an enclosing `if` (its condition holds in
 * the body, fails in the `else`) and earlier `if cond { return | continue | break | panic(…) }` guards in the
 * enclosing blocks (the condition fails after them) — give the value an interval when every comparison of it is
 * with a constant, combined through `&&`, `||` and `!`. Arithmetic with a constant (`x*10`, `x<<4`, `x-1`, `^x`)
 * then moves the interval, so a check that tests the wrong bound (`x < 30` before `uint8(x*10)`, `r > 255` without
 * `r < 0` before `byte(r)`) is told from one that covers the target type.
 */

/** Inclusive bounds; undefined is unbounded. */
export interface Interval {
  lo?: bigint;
  hi?: bigint;
}

const FULL: Interval = {};
const max = (a: bigint | undefined, b: bigint | undefined) =>
  a === undefined ? b : b === undefined ? a : a > b ? a : b;
const min = (a: bigint | undefined, b: bigint | undefined) =>
  a === undefined ? b : b === undefined ? a : a < b ? a : b;

export const intersect = (a: Interval, b: Interval): Interval => ({
  lo: max(a.lo, b.lo),
  hi: min(a.hi, b.hi),
});
const hull = (a: Interval, b: Interval): Interval => ({
  lo: a.lo === undefined || b.lo === undefined ? undefined : min(a.lo, b.lo),
  hi: a.hi === undefined || b.hi === undefined ? undefined : max(a.hi, b.hi),
});
export const empty = (i: Interval): boolean => i.lo !== undefined && i.hi !== undefined && i.lo > i.hi;
export const within = (i: Interval, lo: bigint, hi: bigint): boolean =>
  i.lo !== undefined && i.hi !== undefined && i.lo >= lo && i.hi <= hi;

/** How the analysis reads the source: the text of a node, a constant's value, the operator of an expression. */
export interface RangeReader {
  text(n: SyntaxNode): string;
  constant(n: SyntaxNode | undefined): bigint | undefined;
}

export const operatorOf = (reader: RangeReader, n: SyntaxNode): string => {
  const op = n.children.find((c) => !c.named && c.field === 'operator');
  return op ? reader.text(op) : '';
};

const RELATIONAL = new Set(['<', '>', '<=', '>=', '==', '!=']);
const FLIP: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '==': '==', '!=': '!=' };
const NEGATE: Record<string, string> = { '<': '>=', '>': '<=', '<=': '>', '>=': '<', '==': '!=', '!=': '==' };

/** `key op c` as an interval of key. */
function compare(op: string, c: bigint): Interval {
  switch (op) {
    case '<':
      return { hi: c - 1n };
    case '<=':
      return { hi: c };
    case '>':
      return { lo: c + 1n };
    case '>=':
      return { lo: c };
    case '==':
      return { lo: c, hi: c };
    default:
      return FULL;
  }
}

/** Whether `text` mentions `key` as a whole operand. */
export function mentions(text: string, key: string): boolean {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.])${escaped}($|[^\\w])`).test(text);
}

/**
 * The interval of `key` when `cond` is `holds`; undefined when the condition tests key in a way not read here
 * (`x-1000 < 10`, `10000/x < 5`, a call on it), which leaves the conversion to the caller's caution.
 */
export function conditionRange(
  reader: RangeReader,
  cond: SyntaxNode,
  key: string,
  holds: boolean,
): Interval | undefined {
  const e = unparen(cond);
  if (!mentions(reader.text(e), key)) return FULL;
  if (e.type === 'unary_expression' && operatorOf(reader, e) === '!') {
    const operand = field(e, 'operand');
    return operand && conditionRange(reader, operand, key, !holds);
  }
  if (e.type !== 'binary_expression') return undefined;
  const op = operatorOf(reader, e);
  const left = field(e, 'left');
  const right = field(e, 'right');
  if (!left || !right) return undefined;
  if (op === '&&' || op === '||') {
    const a = conditionRange(reader, left, key, holds);
    const b = conditionRange(reader, right, key, holds);
    if (!a || !b) return undefined;
    return (op === '&&') === holds ? intersect(a, b) : hull(a, b);
  }
  if (!RELATIONAL.has(op)) return undefined;
  const keyLeft = reader.text(unparen(left)) === key;
  const keyRight = reader.text(unparen(right)) === key;
  const c = reader.constant(keyLeft ? right : left);
  if (keyLeft === keyRight || c === undefined) return undefined;
  const oriented = keyLeft ? op : (FLIP[op] as string);
  return compare(holds ? oriented : (NEGATE[oriented] as string), c);
}

/** Whether a block's statements always leave it: return, continue, break, goto, panic, os.Exit, log.Fatal…. */
function exits(reader: RangeReader, block: SyntaxNode): boolean {
  const list = namedChildren(block).find((c) => c.type === 'statement_list');
  const last = namedChildren(list).at(-1);
  if (!last) return false;
  if (/^(return_statement|continue_statement|break_statement|goto_statement)$/.test(last.type)) return true;
  return (
    last.type === 'expression_statement' &&
    /^(panic|os\.Exit|log\.(Fatal|Fatalf|Fatalln|Panic|Panicf|Panicln))\(/.test(reader.text(last))
  );
}

/**
 * The conditions dominating `at` inside `fn`, each with whether it holds there, or undefined when `at` lies in an
 * `if`'s initialiser or condition.
 */
export function dominatingConditions(
  reader: RangeReader,
  at: SyntaxNode,
  fn: SyntaxNode,
): { cond: SyntaxNode; holds: boolean }[] {
  const out: { cond: SyntaxNode; holds: boolean }[] = [];
  let child = at;
  for (let p = at.parent; p && p !== fn && !FUNCTION_TYPES.has(p.type); child = p, p = p.parent) {
    if (p.type === 'if_statement') {
      const cond = field(p, 'condition');
      if (cond && child === field(p, 'consequence')) out.push({ cond, holds: true });
      else if (cond && child === field(p, 'alternative')) out.push({ cond, holds: false });
    }
    if (p.type !== 'statement_list') continue;
    for (const s of namedChildren(p)) {
      if (s === child) break;
      const cond = field(s, 'condition');
      const then = field(s, 'consequence');
      if (s.type === 'if_statement' && cond && then && !field(s, 'alternative') && exits(reader, then))
        out.push({ cond, holds: false });
    }
  }
  return out;
}

/**
 * The interval of `arg` given the interval of `key` in it: `key`, or `key` with a constant (`+ - * / << >> & %`),
 * `-key`, `^key`. `width` is the operand type's range, where a result outside it wraps. Undefined for other shapes.
 */
export function expressionRange(
  reader: RangeReader,
  arg: SyntaxNode,
  key: string,
  range: Interval,
  width: [bigint, bigint],
): Interval | undefined {
  const e = unparen(arg);
  if (reader.text(e) === key) return range;
  const { lo, hi } = range;
  const [wlo, whi] = width;
  let out: Interval | undefined;
  if (e.type === 'unary_expression') {
    const operand = field(e, 'operand');
    if (!operand || reader.text(unparen(operand)) !== key) return undefined;
    const op = operatorOf(reader, e);
    if (op === '-') out = { lo: hi === undefined ? undefined : -hi, hi: lo === undefined ? undefined : -lo };
    // ^x is -x-1 for signed operands and max-x for unsigned ones.
    else if (op === '^' && wlo < 0n)
      out = { lo: hi === undefined ? undefined : -hi - 1n, hi: lo === undefined ? undefined : -lo - 1n };
    else if (op === '^')
      out = { lo: hi === undefined ? undefined : whi - hi, hi: lo === undefined ? undefined : whi - lo };
    else return undefined;
  } else if (e.type === 'binary_expression') {
    const left = field(e, 'left');
    const right = field(e, 'right');
    if (!left || !right) return undefined;
    const keyLeft = reader.text(unparen(left)) === key;
    if (!keyLeft && reader.text(unparen(right)) !== key) return undefined;
    const k = reader.constant(keyLeft ? right : left);
    if (k === undefined) return undefined;
    out = arithmetic(operatorOf(reader, e), range, k, keyLeft);
    if (!out) return undefined;
  } else return undefined;
  if (out.lo === undefined || out.hi === undefined || out.lo < wlo || out.hi > whi)
    return { lo: wlo, hi: whi };
  return out;
}

function arithmetic(op: string, { lo, hi }: Interval, k: bigint, keyLeft: boolean): Interval | undefined {
  if (lo === undefined || hi === undefined) return op === '&' && k >= 0n ? { lo: 0n, hi: k } : {};
  const span = (a: bigint, b: bigint): Interval => (a <= b ? { lo: a, hi: b } : { lo: b, hi: a });
  switch (op) {
    case '+':
      return { lo: lo + k, hi: hi + k };
    case '-':
      return keyLeft ? { lo: lo - k, hi: hi - k } : { lo: k - hi, hi: k - lo };
    case '*':
      return span(lo * k, hi * k);
    case '/':
      return keyLeft && k !== 0n ? span(lo / k, hi / k) : undefined;
    case '<<':
      return keyLeft && k >= 0n && k < 128n ? { lo: lo << k, hi: hi << k } : undefined;
    case '>>':
      return keyLeft && k >= 0n ? { lo: lo >> k, hi: hi >> k } : undefined;
    case '&':
      return k >= 0n ? { lo: 0n, hi: k } : undefined;
    case '%':
      return keyLeft && k > 0n ? { lo: lo < 0n ? 1n - k : 0n, hi: k - 1n } : undefined;
    default:
      return undefined;
  }
}
