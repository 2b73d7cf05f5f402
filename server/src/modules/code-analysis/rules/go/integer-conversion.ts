import type { Finding, FindingConfidence } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
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
}

const RELATIONAL = new Set(['<', '>', '<=', '>=', '==', '!=']);

class ConversionChecker {
  constructor(private readonly parsed: ParsedSource) {}
  private text = (n: SyntaxNode) => textOf(this.parsed, n);

  private constant(n: SyntaxNode | undefined): bigint | undefined {
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
    if (arg.type === 'identifier') source = checker.source(textOf(parsed, arg), fn);
    else if (arg.type === 'call_expression' && /^(len|cap)$/.test(callParts(parsed, arg).callee))
      source = { type: TYPES.int as IntType, nonNegative: true, external: false };
    if (!source) continue;
    let confidence: FindingConfidence;
    if (source.value !== undefined) {
      const [lo, hi] = limits(target);
      if (source.value >= lo && source.value <= hi) continue;
      confidence = 'high';
    } else {
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
