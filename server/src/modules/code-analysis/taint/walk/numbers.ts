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
import { NAME_LIKE } from '../syntax';
import type { NumericKind } from '../types';
import { type Taint, type Val, withStep } from '../values';
import { WalkerBase } from './base';
import { field, namedChildren } from './shared';

const FIELD_LIKE = /^(field_access|member_access_expression|selector_expression|member_expression)$/;

/**
 * Numbers from input, chance or a type's extreme, and the sinks they must not reach unchecked (CodeQL's
 * java/tainted-arithmetic, java/uncontrolled-arithmetic, tainted array index and numeric cast queries): arithmetic
 * that can wrap, a divisor that can be zero, an index that can be out of bounds, a narrowing cast that can truncate,
 * a count, delay or capacity with no upper bound. The range a value may hold rides on its taint (`Taint.numeric`)
 * and the branches' comparisons narrow it (numeric/refine.ts).
 */
export abstract class NumberWalker extends WalkerBase {
  protected get numbers(): NumericModel | undefined {
    return NUMERIC_MODELS[this.ctx.parsed.language];
  }

  /** The language's `Math.abs`: a comparison of it bounds its argument on both sides. */
  get absFunction(): RegExp | undefined {
    return this.numbers?.abs;
  }

  calleeText(node: SyntaxNode): string | undefined {
    return this.lang.calls.includes(node.type) ? this.shape(node).callee : undefined;
  }

  /** The declared type of a name or field (`int data`, a field's declaration), where the language declares one. */
  declaredType(node: SyntaxNode): string | undefined {
    if (!NAME_LIKE.test(node.type) && !FIELD_LIKE.test(node.type) && node.children.length > 0)
      return undefined;
    const text = this.text(node);
    return this.env.types.get(text) ?? this.ctx.fieldTypes.get(text);
  }

  /**
   * The value as a number from input or chance: its own numeric taint, or input held in a name declared as a number
   * (a parameter `int n` a caller passes input to).
   */
  numericTaint(v: Val, node: SyntaxNode | undefined): Taint | undefined {
    const t = v.taint;
    if (!t || t.weak || t.audit) return undefined;
    if (t.numeric) return t;
    const type = node ? this.declaredType(node) : undefined;
    const range = type ? fullRange(type) : undefined;
    return range ? { ...t, numeric: range } : undefined;
  }

  /** `Integer.MAX_VALUE`, `INT_MIN`, `math.MaxInt32`: the constant, carrying where it came from. */
  protected extremeValue(node: SyntaxNode, text: string): Val | undefined {
    if (!this.numbers || !/MAX|MIN|Max|Min/.test(text)) return undefined;
    const named = namedExtreme(text);
    const range = named ? typeRange(named.type) : undefined;
    if (!named || !range) return undefined;
    const value = named.end === 'MAX' ? range[1] : range[0];
    const taint: Taint = {
      ...this.newTaint(node, text),
      numeric: { ...constantRange(value), type: named.type },
      uncontrolled: true,
    };
    return { constant: { value }, taint };
  }

  /** A call that parses input into a number, or draws one at random: the number's taint. */
  protected numberFromCall(
    call: SyntaxNode,
    matches: (re: RegExp) => boolean,
    vals: Val[],
    input: Taint | undefined,
  ): Val | undefined {
    const model = this.numbers;
    if (!model) return undefined;
    const parser = model.parsers.find((p) => matches(p.callee));
    if (parser) {
      if (!input || input.weak || input.audit || input.numeric) return undefined;
      const range = fullRange(parser.type);
      if (!range) return undefined;
      return {
        taint: { ...(withStep(input, this.step(call, `parsed as ${parser.type}`)) as Taint), numeric: range },
      };
    }
    const random = model.randoms.find((r) => matches(r.callee));
    if (!random) return undefined;
    let range = random.unit ? { lo: 0, hi: 1, float: true } : fullRange(random.type);
    const bound = random.bound === undefined ? undefined : vals[random.bound]?.constant?.value;
    if (typeof bound === 'number' && vals.length === 1) range = { lo: 0, hi: bound - 1, type: random.type };
    if (!range) return undefined;
    const text = this.text(call);
    return { taint: { ...this.newTaint(call, text), numeric: range, uncontrolled: true } };
  }

  /** The type arithmetic on these operands is done in: a declared operand's, else the operands' own. */
  private resultType(nodes: (SyntaxNode | undefined)[], ranges: Range[]): string {
    for (const n of nodes) {
      const t = n ? this.declaredType(n) : undefined;
      if (t && typeRange(t)) return t;
    }
    for (const r of ranges) if (r.type && typeRange(r.type)) return r.type;
    return this.numbers?.defaultType ?? 'int';
  }

  /**
   * `a + b`, `a - b`, `a * b`, `a / b`, `a % b` where an operand is a number from input or chance: reports what can go
   * wrong in this range, and returns the result's numeric taint (none once reported, or for text concatenation).
   */
  protected arithmetic(
    node: SyntaxNode,
    op: string,
    left: SyntaxNode | undefined,
    right: SyntaxNode | undefined,
    a: Val,
    b: Val,
  ): Taint | undefined {
    // Most operators see no input at all: nothing to check.
    if ((!a.taint && !b.taint) || !this.numbers) return undefined;
    const ta = this.numericTaint(a, left);
    const tb = this.numericTaint(b, right);
    if (!ta && !tb) return undefined;
    if (op === '/' || op === '%') {
      if (tb?.numeric && mayBeZero(tb.numeric) && this.flowed(tb, right))
        this.report('divide-by-zero', node, tb);
      return undefined;
    }
    if (!/^[-+*]$/.test(op)) return undefined;
    if (op === '+' && (typeof a.constant?.value === 'string' || typeof b.constant?.value === 'string'))
      return undefined;
    const ra = this.operandRange(op, a, left, ta);
    const rb = this.operandRange(op, b, right, tb);
    if (!ra || !rb) return undefined;
    const result = combine(op, ra, rb);
    const taint = (ta ?? tb) as Taint;
    if (!result) return undefined;
    const type = this.resultType([left, right], [ra, rb]);
    const limits = typeRange(type);
    if (!limits || result.float || isFloatType(type)) return { ...taint, numeric: { ...result, type } };
    const flowed = (ta && this.flowed(ta, left)) || (tb && this.flowed(tb, right));
    const high = over(result.hi, limits[1]) && !result.hiChecked;
    const low = under(result.lo, limits[0]) && !result.loChecked;
    if (flowed && (high || low)) {
      this.report(low && (op === '-' || !high) ? 'integer-underflow' : 'integer-overflow', node, taint);
      return undefined;
    }
    return { ...taint, numeric: { ...result, type } };
  }

  /**
   * An operand's range: the numeric taint's, a constant's; an other operand of unknown value counts as a small
   * amount, so that it is the unchecked input operand that overflows (as CodeQL's queries read it), and where its
   * type is not known to be a number, `+` may join text and is left alone.
   */
  private operandRange(
    op: string,
    v: Val,
    node: SyntaxNode | undefined,
    taint: Taint | undefined,
  ): Range | undefined {
    if (taint?.numeric) return taint.numeric;
    if (typeof v.constant?.value === 'number') return constantRange(v.constant.value);
    if (op === '+' && !(node && this.declaredType(node) && typeRange(this.declaredType(node))))
      return undefined;
    return op === '*' ? { lo: -2, hi: 2 } : { lo: -1, hi: 1 };
  }

  /**
   * A type's extreme matters once it has been stored and used elsewhere; written at the operation
   * (`Integer.MAX_VALUE - 1`) it is a deliberate constant.
   */
  private flowed(taint: Taint, node: SyntaxNode | undefined): boolean {
    if (!taint.uncontrolled || !node) return true;
    return !namedExtreme(this.text(node));
  }

  /** `(byte) n`, `(int) f`: a narrowing cast of a number whose range does not fit the target type. */
  protected checkCast(node: SyntaxNode, target: string, valueNode: SyntaxNode | undefined, v: Val): Val {
    if (!this.numbers) return v;
    const taint = this.numericTaint(v, valueNode);
    const limits = typeRange(target);
    if (!taint?.numeric || !limits) return v;
    const r = taint.numeric;
    const fromFloat =
      r.float || isFloatType(r.type) || (valueNode && isFloatType(this.declaredType(valueNode)));
    const toFloat = isFloatType(target);
    const fits = (!over(r.hi, limits[1]) || r.hiChecked) && (!under(r.lo, limits[0]) || r.loChecked);
    const narrowed: Taint = {
      ...taint,
      numeric: { ...(fullRange(target) ?? r), ...(fits && { lo: r.lo, hi: r.hi }) },
    };
    if (fits || (toFloat && !fromFloat)) return { ...v, taint: narrowed };
    if (this.flowed(taint, valueNode))
      this.report(fromFloat ? 'numeric-conversion' : 'numeric-truncation', node, taint);
    return { ...v, taint: narrowed };
  }

  /** `a[i]` where `i` is a number from input or chance not checked to lie in `0 ≤ i` and below a bound. */
  protected checkIndex(at: SyntaxNode, indexNode: SyntaxNode | undefined, index: Val): void {
    if (!this.numbers || !indexNode) return;
    const taint = this.numericTaint(index, indexNode);
    const r = taint?.numeric;
    if (!taint || !r || r.float) return;
    if ((r.lo < 0 && !r.loChecked) || unboundedAbove(r)) this.report('array-index', at, taint);
  }

  /** `for (i = 0; i < n; i++)` where `n` is a number from input with no upper bound checked. */
  protected checkLoopBound(condition: SyntaxNode | undefined): void {
    if (!this.numbers || !condition) return;
    const visit = (node: SyntaxNode): void => {
      const parts = namedChildren(node);
      const op = field(node, 'operator') ?? node.children.find((c) => !c.named && /[<>=]/.test(c.type));
      const opText = op ? this.text(op) : '';
      if (/^(&&|\|\||and|or)$/.test(opText) || /parenthesized/.test(node.type)) {
        for (const p of parts) visit(p);
        return;
      }
      const [l, r] = parts;
      if (!l || !r || !/^(<|<=|>|>=|!=)$/.test(opText)) return;
      const bound = /^</.test(opText) ? r : /^>/.test(opText) ? l : undefined;
      for (const side of bound ? [bound] : [l, r]) {
        if (!NAME_LIKE.test(side.type) && !FIELD_LIKE.test(side.type)) continue;
        const taint = this.numericTaint(this.env.get(this.text(side)), side);
        if (taint?.numeric && this.flowed(taint, side))
          this.flag('unchecked-loop-condition', condition, this.text(condition), taint);
      }
    };
    visit(condition);
  }

  /** A count, delay or capacity argument (`Thread.sleep(n)`, `new ArrayList<>(n)`, `malloc(n)`). */
  protected checkSizes(
    call: SyntaxNode,
    matches: (re: RegExp) => boolean,
    args: SyntaxNode[],
    vals: Val[],
  ): void {
    for (const sink of this.numbers?.sizeSinks ?? []) {
      if (!matches(sink.callee)) continue;
      const taint = this.numericTaint(vals[sink.arg] ?? {}, args[sink.arg]);
      if (taint && this.flowed(taint, args[sink.arg]))
        this.flag(sink.kind, call, this.text(call).slice(0, 60), taint);
    }
  }

  private report(kind: NumericKind, at: SyntaxNode, taint: Taint): void {
    this.flag(kind, at, this.text(at), taint);
  }
}
