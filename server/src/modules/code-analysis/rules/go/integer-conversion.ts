import type { Finding, FindingConfidence } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import {
  conditionRange,
  dominatingConditions,
  empty,
  expressionRange,
  type Interval,
  intersect,
  mentions,
  within,
} from './integer-ranges';
import {
  assignmentSides,
  callParts,
  enclosingFunction,
  field,
  finding,
  namedChildren,
  nodesOf,
  parameters,
  textOf,
  unparen,
} from './syntax';

/**
 * Integer conversions that can wrap (CWE-190; gosec G115, and G109 for `strconv.Atoi` results): `int32(x)`,
 * `uint8(x)`, … of a variable whose integer type does not fit the target (narrower, or of the other signedness),
 * where the function never compares that variable (a range check before the conversion is what makes it safe).
 * A variable that holds one constant is judged by its value. The variable's type is read from its declaration,
 * its parameter, or the call that produced it (`rand.Int63()`, `strconv.ParseInt(s, 10, 32)`, `len(x)`); values
 * of unknown type are left alone. Checks that test the wrong bound are not told apart from right ones.
 */

interface IntType {
  bits: number;
  signed: boolean;
}
const TYPES: Record<string, IntType> = {
  int8: { bits: 8, signed: true },
  int16: { bits: 16, signed: true },
  int32: { bits: 32, signed: true },
  rune: { bits: 32, signed: true },
  int64: { bits: 64, signed: true },
  int: { bits: 64, signed: true },
  uint8: { bits: 8, signed: false },
  byte: { bits: 8, signed: false },
  uint16: { bits: 16, signed: false },
  uint32: { bits: 32, signed: false },
  uint64: { bits: 64, signed: false },
  uint: { bits: 64, signed: false },
  uintptr: { bits: 64, signed: false },
};
/** What calls return, where the result is an integer of a known type. */
const RESULTS: Record<string, string> = {
  'rand.Int': 'int',
  'rand.Intn': 'int',
  'rand.Int31': 'int32',
  'rand.Int31n': 'int32',
  'rand.Int63': 'int64',
  'rand.Int63n': 'int64',
  'rand.Uint32': 'uint32',
  'rand.Uint64': 'uint64',
  'strconv.Atoi': 'int',
  'strconv.ParseInt': 'int64',
  'strconv.ParseUint': 'uint64',
  len: 'int',
  cap: 'int',
};
const MATH_LIMITS: Record<string, bigint> = {
  MaxInt8: 127n,
  MinInt8: -128n,
  MaxInt16: 32767n,
  MinInt16: -32768n,
  MaxInt32: 2147483647n,
  MinInt32: -2147483648n,
  MaxInt64: 9223372036854775807n,
  MinInt64: -9223372036854775808n,
  MaxInt: 9223372036854775807n,
  MinInt: -9223372036854775808n,
  MaxUint8: 255n,
  MaxUint16: 65535n,
  MaxUint32: 4294967295n,
  MaxUint64: 18446744073709551615n,
  MaxUint: 18446744073709551615n,
};

const limits = (t: IntType): [bigint, bigint] =>
  t.signed ? [-(2n ** BigInt(t.bits - 1)), 2n ** BigInt(t.bits - 1) - 1n] : [0n, 2n ** BigInt(t.bits) - 1n];

/** Whether every value of `from` (`nonNegative`: only its non-negative ones) fits `to`. */
function fits(from: IntType, to: IntType, nonNegative: boolean): boolean {
  const [lo, hi] = limits(from);
  const [tlo, thi] = limits(to);
  return (nonNegative || lo >= tlo) && hi <= thi;
}

/**
 * int, uint and uintptr converted into each other: one machine word, the conversion every Go program makes between
 * sizes and indexes; flagging it would drown the rest (gosec leaves it alone too).
 */
const sameWord = (a: IntType, b: IntType): boolean => a.bits === 64 && b.bits === 64 && a.signed !== b.signed;

interface Source {
  type: IntType;
  /** The one constant the variable holds, when it holds one. */
  value?: bigint;
  nonNegative: boolean;
  external: boolean;
  /** Computed from another variable (`y := x % 10`): reported only through the range checks. */
  derived?: boolean;
}

const RELATIONAL = new Set(['<', '>', '<=', '>=', '==', '!=']);

class ConversionChecker {
  constructor(private readonly parsed: ParsedSource) {}
  text = (n: SyntaxNode): string => textOf(this.parsed, n);

  constant(n: SyntaxNode | undefined): bigint | undefined {
    if (!n) return undefined;
    const e = unparen(n);
    const t = this.text(e).replace(/_/g, '');
    if (e.type === 'int_literal' && /^(0x[\da-f]+|\d+)$/i.test(t)) return BigInt(t);
    if (e.type === 'unary_expression' && t.startsWith('-')) {
      const v = this.constant(field(e, 'operand'));
      return v === undefined ? undefined : -v;
    }
    const math = /^math\.(\w+)$/.exec(t)?.[1];
    if (math && MATH_LIMITS[math] !== undefined) return MATH_LIMITS[math];
    if (e.type === 'call_expression' && TYPES[callParts(this.parsed, e).callee])
      return this.constant(callParts(this.parsed, e).args[0]);
    return undefined;
  }

  /** The integer type and facts of `name` in `fn`, from its only definition. */
  source(name: string, fn: SyntaxNode): Source | undefined {
    const param = parameters(this.parsed, fn).find((p) => p.name === name);
    if (param) {
      const type = TYPES[param.type];
      return type && { type, nonNegative: false, external: false };
    }
    const defs: { node: SyntaxNode; index: number; sides: { left: SyntaxNode[]; right: SyntaxNode[] } }[] =
      [];
    const kinds = new Set([
      'short_var_declaration',
      'assignment_statement',
      'var_spec',
      'const_spec',
      'inc_statement',
    ]);
    for (const d of nodesOf(fn, kinds)) {
      if (d.type === 'inc_statement') {
        if (this.text(namedChildren(d)[0] ?? d) === name) return undefined;
        continue;
      }
      const sides = assignmentSides(d);
      const index = sides?.left.findIndex((l) => l.type === 'identifier' && this.text(l) === name) ?? -1;
      if (sides && index !== -1) defs.push({ node: d, index, sides });
    }
    const ranged = this.rangeValue(name, fn);
    if (ranged) return defs.length === 0 ? ranged : undefined;
    const def = defs[0];
    if (defs.length !== 1 || !def) return undefined;
    const declared = field(def.node, 'type');
    const value = def.sides.right.length === def.sides.left.length ? def.sides.right[def.index] : undefined;
    const constant = this.constant(value);
    if (declared) {
      const type = TYPES[this.text(declared)];
      return type && { type, value: constant, nonNegative: false, external: false };
    }
    const single = def.sides.right.length === 1 ? unparen(def.sides.right[0] as SyntaxNode) : undefined;
    // `v := -x`, `v := x + 1`: the operand's type.
    if (single && /^(unary|binary)_expression$/.test(single.type) && def.sides.left.length === 1) {
      const operands = namedChildren(single).filter((c) => c.type === 'identifier' && this.text(c) !== name);
      const only = operands.length === 1 && operands[0] ? this.text(operands[0]) : undefined;
      const inner = only ? this.source(only, fn) : undefined;
      return inner && { type: inner.type, nonNegative: false, external: inner.external, derived: true };
    }
    if (single?.type !== 'call_expression') return undefined;
    const { callee, args } = callParts(this.parsed, single);
    if (TYPES[callee]) {
      // `v := int8(x)` after a range check of x: v holds what the check allowed.
      const from = args[0] && unparen(args[0]);
      if (from?.type === 'identifier' && this.compared(this.text(from), fn)) return undefined;
      return { type: TYPES[callee], value: constant, nonNegative: false, external: false };
    }
    const result = RESULTS[callee];
    const type = result ? TYPES[result] : undefined;
    if (!type || (def.index > 0 && def.sides.right.length === 1)) return undefined;
    // strconv.ParseInt(s, base, 32) returns an int64 holding only int32 values.
    const bitSize = /^strconv\.Parse(Int|Uint)$/.test(callee) ? this.constant(args[2]) : undefined;
    const sized = bitSize && bitSize > 0n ? { bits: Number(bitSize), signed: type.signed } : type;
    return {
      type: sized,
      nonNegative: callee === 'len' || callee === 'cap',
      external: callee.startsWith('strconv.'),
    };
  }

  /** The element type of a slice or array parameter (`data []int32`), as an integer type. */
  private elementOf(collection: string, fn: SyntaxNode): IntType | undefined {
    const param = parameters(this.parsed, fn).find((p) => p.name === collection);
    const element = param && /^(\[\d*\])(\w+)$/.exec(param.type)?.[2];
    return element ? TYPES[element] : undefined;
  }

  /** `for i, v := range data` over a slice parameter: i is a non-negative int, v the element type. */
  private rangeValue(name: string, fn: SyntaxNode): Source | undefined {
    for (const clause of nodesOf(fn, 'range_clause')) {
      const left = namedChildren(field(clause, 'left'));
      const index = left.findIndex((l) => this.text(l) === name);
      const right = field(clause, 'right');
      if (index === 0) return { type: TYPES.int as IntType, nonNegative: true, external: false };
      const type = index === 1 && right ? this.elementOf(this.text(right), fn) : undefined;
      if (type) return { type, nonNegative: false, external: false };
    }
    return undefined;
  }

  /** `data[i]` of a slice or array parameter. */
  element(arg: SyntaxNode, fn: SyntaxNode): Source | undefined {
    const operand = field(arg, 'operand');
    const type = operand?.type === 'identifier' ? this.elementOf(this.text(operand), fn) : undefined;
    return type && { type, nonNegative: false, external: false };
  }

  /**
   * Whether the range checks that dominate the conversion keep `arg` inside `target` ('fits') or not
   * ('overflows'); undefined when `key` is not compared, is compared or reassigned in ways not read here.
   */
  guardedRange(
    arg: SyntaxNode,
    key: string,
    source: Source,
    at: SyntaxNode,
    fn: SyntaxNode,
    target: IntType,
  ): 'fits' | 'overflows' | undefined {
    if (!this.checked(key, fn, 0)) return undefined;
    const range = this.rangeOf(key, source, at, fn, 0);
    if (!range) return undefined;
    if (empty(range)) return 'fits';
    const value = expressionRange(this, arg, key, range, limits(source.type));
    if (!value) return undefined;
    const [lo, hi] = limits(target);
    return within(value, lo, hi) ? 'fits' : 'overflows';
  }

  /** The relational comparisons in `fn` that mention `key`. */
  private comparisons(key: string, fn: SyntaxNode): SyntaxNode[] {
    return nodesOf(fn, 'binary_expression').filter((b) => {
      const op = b.children.find((c) => !c.named && c.field === 'operator');
      return op && RELATIONAL.has(this.text(op)) && mentions(this.text(b), key);
    });
  }

  /** Whether `key`, or a value it was computed from (`y := x % 10`), is compared somewhere in `fn`. */
  private checked(key: string, fn: SyntaxNode, depth: number): boolean {
    if (this.comparisons(key, fn).length > 0) return true;
    const derived = depth < 4 ? this.derivation(key, fn) : undefined;
    return derived !== undefined && this.checked(derived.inner, fn, depth + 1);
  }

  /** `key := <expression of one other variable and constants>`, its only definition. */
  private derivation(
    key: string,
    fn: SyntaxNode,
  ): { def: SyntaxNode; value: SyntaxNode; inner: string } | undefined {
    const defs = nodesOf(fn, new Set(['short_var_declaration', 'assignment_statement', 'var_spec'])).filter(
      (d) => assignmentSides(d)?.left.some((l) => this.text(l) === key),
    );
    const def = defs.length === 1 ? defs[0] : undefined;
    const sides = def && assignmentSides(def);
    const value =
      sides?.left.length === 1 && sides.right.length === 1
        ? unparen(sides.right[0] as SyntaxNode)
        : undefined;
    const inner = value && operandKey(this.parsed, value);
    return def && value && inner && inner !== key && value.type !== 'identifier'
      ? { def, value, inner }
      : undefined;
  }

  /**
   * The interval `key` holds at `at`: its type's range (or, for a derived value, what its definition computes from
   * the range of its operand there), narrowed by the dominating checks. Undefined when it is compared or written
   * anywhere else, or in a way these intervals cannot read.
   */
  private rangeOf(
    key: string,
    source: Source,
    at: SyntaxNode,
    fn: SyntaxNode,
    depth: number,
  ): Interval | undefined {
    const width = limits(source.type);
    let range: Interval = { lo: source.nonNegative ? 0n : width[0], hi: width[1] };
    const derived = depth < 4 ? this.derivation(key, fn) : undefined;
    if (derived) {
      const innerSource = this.source(derived.inner, fn);
      const inner = innerSource && this.rangeOf(derived.inner, innerSource, derived.def, fn, depth + 1);
      const computed =
        inner && expressionRange(this, derived.value, derived.inner, inner, limits(innerSource.type));
      if (!computed) return undefined;
      range = intersect(range, computed);
    }
    const written = nodesOf(fn, new Set(['assignment_statement', 'inc_statement', 'dec_statement'])).some(
      (a) => {
        if (a === derived?.def) return false;
        const left = a.type === 'assignment_statement' ? field(a, 'left') : namedChildren(a)[0];
        return left !== undefined && mentions(this.text(left), key);
      },
    );
    if (written) return undefined;
    const guards = dominatingConditions(this, at, fn).filter((g) => mentions(this.text(g.cond), key));
    const inside = (n: SyntaxNode) =>
      guards.some((g) => g.cond.startIndex <= n.startIndex && n.endIndex <= g.cond.endIndex);
    if (!this.comparisons(key, fn).every(inside)) return undefined;
    for (const g of guards) {
      const r = conditionRange(this, g.cond, key, g.holds);
      if (!r) return undefined;
      range = intersect(range, r);
    }
    return range;
  }

  /** Whether the function compares `name` anywhere (a range check, or a test of its sign). */
  compared(name: string, fn: SyntaxNode): boolean {
    return nodesOf(fn, 'binary_expression').some((b) => {
      const op = b.children.find((c) => !c.named && c.field === 'operator');
      if (!op || !RELATIONAL.has(this.text(op))) return false;
      return [field(b, 'left'), field(b, 'right')].some(
        // `x < 0`, `x-1000 < 10`; not `int16(x) < 0`, which tests the converted value.
        (s) => s && !this.text(s).includes('(') && new RegExp(`\\b${name}\\b`).test(this.text(s)),
      );
    });
  }
}

/** The value a conversion's argument is built on: `x`, `data[i]`, or the one identifier in `x*10`, `^x`, `x-1`. */
function operandKey(parsed: ParsedSource, arg: SyntaxNode): string | undefined {
  if (arg.type === 'identifier' || arg.type === 'index_expression') return textOf(parsed, arg);
  if (arg.type !== 'unary_expression' && arg.type !== 'binary_expression') return undefined;
  const operands = namedChildren(arg).map(unparen);
  const names = operands.filter((o) => o.type === 'identifier' || o.type === 'index_expression');
  return names.length === 1 && names[0] ? textOf(parsed, names[0]) : undefined;
}

export function integerConversions(parsed: ParsedSource): Finding[] {
  const checker = new ConversionChecker(parsed);
  const out: Finding[] = [];
  for (const call of nodesOf(parsed.root, 'call_expression')) {
    const { callee, args } = callParts(parsed, call);
    const target = TYPES[callee];
    const arg = args.length === 1 && args[0] ? unparen(args[0]) : undefined;
    const fn = enclosingFunction(call);
    if (!target || !arg || !fn) continue;
    let source: Source | undefined;
    const key = operandKey(parsed, arg);
    if (arg.type === 'identifier') source = checker.source(textOf(parsed, arg), fn);
    else if (arg.type === 'index_expression') source = checker.element(arg, fn);
    else if (arg.type === 'call_expression' && /^(len|cap)$/.test(callParts(parsed, arg).callee))
      source = { type: TYPES.int as IntType, nonNegative: true, external: false };
    else if (key) source = checker.source(key, fn);
    if (!source) continue;
    let confidence: FindingConfidence;
    const guarded =
      source.value === undefined && key && !sameWord(source.type, target)
        ? checker.guardedRange(arg, key, source, call, fn, target)
        : undefined;
    if (guarded === 'fits') continue;
    if (guarded === 'overflows') confidence = 'medium';
    else if (source.value !== undefined) {
      const [lo, hi] = limits(target);
      if (source.value >= lo && source.value <= hi) continue;
      confidence = 'high';
    } else {
      // Arithmetic on an unchecked value (`byte(v >> 8)`) is how encoders take a value apart on purpose.
      if ((arg.type !== 'identifier' && arg.type !== 'index_expression') || source.derived) continue;
      if (fits(source.type, target, source.nonNegative) || sameWord(source.type, target)) continue;
      if (arg.type === 'identifier' && checker.compared(textOf(parsed, arg), fn)) continue;
      confidence = source.external ? 'medium' : source.nonNegative ? 'low' : 'medium';
    }
    out.push(
      finding(parsed, call, {
        rule_id: 'security/integer-conversion-overflow',
        category: 'security',
        severity: 'medium',
        confidence,
        cwe: 'CWE-190',
        message: `\`${textOf(parsed, call).slice(0, 60)}\` converts a value that may not fit ${callee}, so it wraps silently; check the value against math.Min/Max of ${callee} first.`,
      }),
    );
  }
  return out;
}
