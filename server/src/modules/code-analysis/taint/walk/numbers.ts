/**
 * Numbers from input, chance or a type's extreme, and the sinks they must not reach unchecked (CodeQL's
 * java/tainted-arithmetic, java/uncontrolled-arithmetic, tainted array index and numeric cast queries): arithmetic
 * that can wrap, a divisor that can be zero, an index that can be out of bounds, a narrowing cast that can truncate,
 * a count, delay or capacity with no upper bound. The range a value may hold rides on its taint (`Taint.numeric`)
 * and the branches' comparisons narrow it (numeric/refine.ts).
 */
import type { SyntaxNode } from '../../parsing/tree';
import { NUMERIC_MODELS, type NumericModel, namedExtreme } from '../numeric/models';
import {
  combine,
  constantRange,
  fullRange,
  isFloatType,
  mayBeZero,
  over,
  type Range,
  typeRange,
  unboundedAbove,
  under,
} from '../numeric/ranges';
import type { RefineHost } from '../numeric/refine';
import { NAME_LIKE } from '../syntax';
import type { NumericKind } from '../types';
import { type Taint, type Val, withStep } from '../values';
import { callShape } from './shape';
import { field, namedChildren } from './shared';
import type { WalkState } from './state';

const FIELD_LIKE = /^(field_access|member_access_expression|selector_expression|member_expression)$/;

export function numericModel(s: WalkState): NumericModel | undefined {
  return NUMERIC_MODELS[s.ctx.parsed.language];
}

/** The language's `Math.abs`: a comparison of it bounds its argument on both sides. */
export function absFunction(s: WalkState): RegExp | undefined {
  return numericModel(s)?.abs;
}

/** What the branches' refinement of numbers (numeric/refine.ts) reads of this walk. */
export function refineHost(s: WalkState): RefineHost {
  return {
    evaluate: (node) => s.evaluate(node),
    nodeText: (node) => s.text(node),
    numericTaint: (v, node) => numericTaint(s, v, node),
    calleeText: (node) => calleeText(s, node),
    absFunction: absFunction(s),
  };
}

export function calleeText(s: WalkState, node: SyntaxNode): string | undefined {
  return s.lang.calls.includes(node.type) ? callShape(s, node).callee : undefined;
}

/** The declared type of a name or field (`int data`, a field's declaration), where the language declares one. */
export function declaredType(s: WalkState, node: SyntaxNode): string | undefined {
  if (!NAME_LIKE.test(node.type) && !FIELD_LIKE.test(node.type) && node.children.length > 0) return undefined;
  const text = s.text(node);
  return s.env.types.get(text) ?? s.ctx.fieldTypes.get(text);
}

/**
 * The value as a number from input or chance: its own numeric taint, or input held in a name declared as a number
 * (a parameter `int n` a caller passes input to).
 */
export function numericTaint(s: WalkState, v: Val, node: SyntaxNode | undefined): Taint | undefined {
  const t = v.taint;
  if (!t || t.weak || t.audit) return undefined;
  if (t.numeric) return t;
  const type = node ? declaredType(s, node) : undefined;
  const range = type ? fullRange(type) : undefined;
  return range ? { ...t, numeric: range } : undefined;
}

/** `Integer.MAX_VALUE`, `INT_MIN`, `math.MaxInt32`: the constant, carrying where it came from. */
export function extremeValue(s: WalkState, node: SyntaxNode, text: string): Val | undefined {
  if (!numericModel(s) || !/MAX|MIN|Max|Min/.test(text)) return undefined;
  const named = namedExtreme(text);
  const range = named ? typeRange(named.type) : undefined;
  if (!named || !range) return undefined;
  const value = named.end === 'MAX' ? range[1] : range[0];
  const taint: Taint = {
    ...s.newTaint(node, text),
    numeric: { ...constantRange(value), type: named.type },
    uncontrolled: true,
  };
  return { constant: { value }, taint };
}

/** A call that parses input into a number, or draws one at random: the number's taint. */
export function numberFromCall(
  s: WalkState,
  call: SyntaxNode,
  matches: (re: RegExp) => boolean,
  vals: Val[],
  input: Taint | undefined,
): Val | undefined {
  const model = numericModel(s);
  if (!model) return undefined;
  const parser = model.parsers.find((p) => matches(p.callee));
  if (parser) {
    if (!input || input.weak || input.audit || input.numeric) return undefined;
    const range = fullRange(parser.type);
    if (!range) return undefined;
    return {
      taint: { ...(withStep(input, s.step(call, `parsed as ${parser.type}`)) as Taint), numeric: range },
    };
  }
  const random = model.randoms.find((r) => matches(r.callee));
  if (!random) return undefined;
  let range = random.unit ? { lo: 0, hi: 1, float: true } : fullRange(random.type);
  const bound = random.bound === undefined ? undefined : vals[random.bound]?.constant?.value;
  if (typeof bound === 'number' && vals.length === 1) range = { lo: 0, hi: bound - 1, type: random.type };
  if (!range) return undefined;
  const text = s.text(call);
  return { taint: { ...s.newTaint(call, text), numeric: range, uncontrolled: true } };
}

/** The type arithmetic on these operands is done in: a declared operand's, else the operands' own. */
function resultType(s: WalkState, nodes: (SyntaxNode | undefined)[], ranges: Range[]): string {
  for (const n of nodes) {
    const t = n ? declaredType(s, n) : undefined;
    if (t && typeRange(t)) return t;
  }
  for (const r of ranges) if (r.type && typeRange(r.type)) return r.type;
  return numericModel(s)?.defaultType ?? 'int';
}

/**
 * `a + b`, `a - b`, `a * b`, `a / b`, `a % b` where an operand is a number from input or chance: reports what can go
 * wrong in this range, and returns the result's numeric taint (none once reported, or for text concatenation).
 */
export function arithmetic(
  s: WalkState,
  node: SyntaxNode,
  op: string,
  left: SyntaxNode | undefined,
  right: SyntaxNode | undefined,
  a: Val,
  b: Val,
): Taint | undefined {
  // Most operators see no input at all: nothing to check.
  if ((!a.taint && !b.taint) || !numericModel(s)) return undefined;
  const ta = numericTaint(s, a, left);
  const tb = numericTaint(s, b, right);
  if (!ta && !tb) return undefined;
  if (op === '/' || op === '%') {
    if (tb?.numeric && mayBeZero(tb.numeric) && hasFlowed(s, tb, right))
      reportNumeric(s, 'divide-by-zero', node, tb);
    return undefined;
  }
  if (!/^[-+*]$/.test(op)) return undefined;
  if (op === '+' && (typeof a.constant?.value === 'string' || typeof b.constant?.value === 'string'))
    return undefined;
  const ra = operandRange(s, op, a, left, ta);
  const rb = operandRange(s, op, b, right, tb);
  if (!ra || !rb) return undefined;
  const result = combine(op, ra, rb);
  const taint = (ta ?? tb) as Taint;
  if (!result) return undefined;
  const type = resultType(s, [left, right], [ra, rb]);
  const limits = typeRange(type);
  if (!limits || result.float || isFloatType(type)) return { ...taint, numeric: { ...result, type } };
  const flowed = (ta && hasFlowed(s, ta, left)) || (tb && hasFlowed(s, tb, right));
  const high = over(result.hi, limits[1]) && !result.hiChecked;
  const low = under(result.lo, limits[0]) && !result.loChecked;
  if (flowed && (high || low)) {
    reportNumeric(s, low && (op === '-' || !high) ? 'integer-underflow' : 'integer-overflow', node, taint);
    return undefined;
  }
  return { ...taint, numeric: { ...result, type } };
}

/**
 * An operand's range: the numeric taint's, a constant's; an other operand of unknown value counts as a small
 * amount, so that it is the unchecked input operand that overflows (as CodeQL's queries read it), and where its
 * type is not known to be a number, `+` may join text and is left alone.
 */
function operandRange(
  s: WalkState,
  op: string,
  v: Val,
  node: SyntaxNode | undefined,
  taint: Taint | undefined,
): Range | undefined {
  if (taint?.numeric) return taint.numeric;
  if (typeof v.constant?.value === 'number') return constantRange(v.constant.value);
  if (op === '+' && !(node && declaredType(s, node) && typeRange(declaredType(s, node)))) return undefined;
  return op === '*' ? { lo: -2, hi: 2 } : { lo: -1, hi: 1 };
}

/**
 * A type's extreme matters once it has been stored and used elsewhere; written at the operation
 * (`Integer.MAX_VALUE - 1`) it is a deliberate constant.
 */
function hasFlowed(s: WalkState, taint: Taint, node: SyntaxNode | undefined): boolean {
  if (!taint.uncontrolled || !node) return true;
  return !namedExtreme(s.text(node));
}

/** `(byte) n`, `(int) f`: a narrowing cast of a number whose range does not fit the target type. */
export function checkCast(
  s: WalkState,
  node: SyntaxNode,
  target: string,
  valueNode: SyntaxNode | undefined,
  v: Val,
): Val {
  if (!numericModel(s)) return v;
  const taint = numericTaint(s, v, valueNode);
  const limits = typeRange(target);
  if (!taint?.numeric || !limits) return v;
  const r = taint.numeric;
  const fromFloat = r.float || isFloatType(r.type) || (valueNode && isFloatType(declaredType(s, valueNode)));
  const toFloat = isFloatType(target);
  const fits = (!over(r.hi, limits[1]) || r.hiChecked) && (!under(r.lo, limits[0]) || r.loChecked);
  const narrowed: Taint = {
    ...taint,
    numeric: { ...(fullRange(target) ?? r), ...(fits && { lo: r.lo, hi: r.hi }) },
  };
  if (fits || (toFloat && !fromFloat)) return { ...v, taint: narrowed };
  if (hasFlowed(s, taint, valueNode))
    reportNumeric(s, fromFloat ? 'numeric-conversion' : 'numeric-truncation', node, taint);
  return { ...v, taint: narrowed };
}

/** `a[i]` where `i` is a number from input or chance not checked to lie in `0 ≤ i` and below a bound. */
export function checkIndex(
  s: WalkState,
  at: SyntaxNode,
  indexNode: SyntaxNode | undefined,
  index: Val,
): void {
  if (!numericModel(s) || !indexNode) return;
  const taint = numericTaint(s, index, indexNode);
  const r = taint?.numeric;
  if (!taint || !r || r.float) return;
  if ((r.lo < 0 && !r.loChecked) || unboundedAbove(r)) reportNumeric(s, 'array-index', at, taint);
}

/** `for (i = 0; i < n; i++)` where `n` is a number from input with no upper bound checked. */
export function checkLoopBound(s: WalkState, condition: SyntaxNode | undefined): void {
  if (!numericModel(s) || !condition) return;
  const visit = (node: SyntaxNode): void => {
    const parts = namedChildren(node);
    const op = field(node, 'operator') ?? node.children.find((c) => !c.named && /[<>=]/.test(c.type));
    const opText = op ? s.text(op) : '';
    if (/^(&&|\|\||and|or)$/.test(opText) || /parenthesized/.test(node.type)) {
      for (const p of parts) visit(p);
      return;
    }
    const [l, r] = parts;
    if (!l || !r || !/^(<|<=|>|>=|!=)$/.test(opText)) return;
    const bound = /^</.test(opText) ? r : /^>/.test(opText) ? l : undefined;
    for (const side of bound ? [bound] : [l, r]) {
      if (!NAME_LIKE.test(side.type) && !FIELD_LIKE.test(side.type)) continue;
      const taint = numericTaint(s, s.env.get(s.text(side)), side);
      if (taint?.numeric && hasFlowed(s, taint, side))
        s.flag('unchecked-loop-condition', condition, s.text(condition), taint);
    }
  };
  visit(condition);
}

/** A count, delay or capacity argument (`Thread.sleep(n)`, `new ArrayList<>(n)`, `malloc(n)`). */
export function checkSizes(
  s: WalkState,
  call: SyntaxNode,
  matches: (re: RegExp) => boolean,
  args: SyntaxNode[],
  vals: Val[],
): void {
  for (const sink of numericModel(s)?.sizeSinks ?? []) {
    if (!matches(sink.callee)) continue;
    const taint = numericTaint(s, vals[sink.arg] ?? {}, args[sink.arg]);
    if (taint && hasFlowed(s, taint, args[sink.arg]))
      s.flag(sink.kind, call, s.text(call).slice(0, 60), taint);
  }
}

function reportNumeric(s: WalkState, kind: NumericKind, at: SyntaxNode, taint: Taint): void {
  s.flag(kind, at, s.text(at), taint);
}
