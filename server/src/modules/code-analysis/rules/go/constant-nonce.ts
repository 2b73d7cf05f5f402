import type { Finding } from '@tessera/shared';
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
 * IVs and nonces that are not random where Go encrypts (CWE-1204, gosec G407): the value handed to
 * `cipher.NewCTR/NewOFB/NewCBCEncrypter/NewCFBEncrypter` or an AEAD's `Seal` is followed back through variables,
 * parameters (to the calls of the function in the file) and package-level values to a literal, or to a `make`
 * buffer that no reader (`rand.Read`, `io.ReadFull`, an `io.Reader`, a function we cannot see) fills before the
 * call, or that is partly written with constants afterwards. Decryption is left alone: it must reuse the IV it got.
 * A literal written at the call itself is the pattern rule's (hardcoded-iv.ts); this reports the rest.
 */

const ENCRYPT = /^(\w+\.)?(NewCBCEncrypter|NewCFBEncrypter|NewCTR|NewOFB)$/;
const INLINE_LITERAL = /^\[\]byte(\(\s*["`]|\{)/;
/** Calls known to fill their buffer argument with data from elsewhere (`io.ReadFull(r, buf)`, `r.Read(buf)`). */
const FILLERS = /(^|\.)(Read|ReadFull|ReadAtLeast)$|^copy$/;
const MAX_DEPTH = 6;

type Origin = { kind: 'constant' | 'zero'; length?: number } | { kind: 'dynamic' };
const DYNAMIC: Origin = { kind: 'dynamic' };

const RULE = {
  rule_id: 'security/hardcoded-iv',
  category: 'security',
  severity: 'high',
  cwe: 'CWE-1204',
} as const;
const MESSAGE =
  'The IV/nonce given here is not random: it comes from a literal or a buffer that is never (or only partly) filled from crypto/rand, so messages share it; fill it with crypto/rand (io.ReadFull(rand.Reader, iv)) per message.';

const intValue = (parsed: ParsedSource, n: SyntaxNode | undefined): number | undefined =>
  n && n.type === 'int_literal' ? Number(textOf(parsed, n).replace(/_/g, '')) : undefined;

class NonceTracer {
  private readonly declared = new Map<string, SyntaxNode>();
  /** The bytes the encrypting call reads (`buf[32:48]`), when its argument is a slice with literal bounds. */
  useRange: [number, number] | undefined;
  constructor(private readonly parsed: ParsedSource) {
    for (const d of nodesOf(parsed.root, 'function_declaration')) {
      const name = field(d, 'name');
      if (name) this.declared.set(textOf(parsed, name), d);
    }
  }

  /** Where the value of `expr`, read at `at` inside `fn`, comes from. */
  origin(expr: SyntaxNode, fn: SyntaxNode | undefined, at: number, depth: number): Origin {
    if (depth > MAX_DEPTH) return DYNAMIC;
    const e = unparen(expr);
    const p = this.parsed;
    switch (e.type) {
      case 'interpreted_string_literal':
      case 'raw_string_literal':
        return { kind: 'constant' };
      case 'composite_literal':
        return /byte$/.test(textOf(p, field(e, 'type') ?? e)) ? { kind: 'constant' } : DYNAMIC;
      case 'type_conversion_expression': {
        const operand = field(e, 'operand');
        return operand ? this.origin(operand, fn, at, depth + 1) : DYNAMIC;
      }
      case 'unary_expression':
      case 'slice_expression': {
        const operand = field(e, 'operand');
        return operand ? this.origin(operand, fn, at, depth + 1) : DYNAMIC;
      }
      case 'call_expression':
        return this.callOrigin(e, depth);
      case 'identifier':
        return this.identifierOrigin(textOf(p, e), fn, at, depth);
      default:
        return DYNAMIC;
    }
  }

  private callOrigin(call: SyntaxNode, depth: number): Origin {
    const { callee, fn: target, args } = callParts(this.parsed, call);
    if (callee === 'make' && /byte$/.test(textOf(this.parsed, args[0] ?? call)))
      return { kind: 'zero', length: intValue(this.parsed, args[1]) };
    if (target?.type === 'func_literal') {
      const returns = nodesOf(target, 'return_statement').filter((r) => enclosingFunction(r) === target);
      const values = returns.map((r) => namedChildren(namedChildren(r)[0])[0]);
      const constant = values.every(
        (v) => v && this.origin(v, target, v.startIndex, depth + 1).kind !== 'dynamic',
      );
      return returns.length > 0 && constant ? { kind: 'constant' } : DYNAMIC;
    }
    return DYNAMIC;
  }

  private identifierOrigin(name: string, fn: SyntaxNode | undefined, at: number, depth: number): Origin {
    const p = this.parsed;
    if (fn) {
      const def = this.lastDefinition(fn, name, at);
      if (def) {
        const origin = this.origin(def.value, fn, def.value.startIndex, depth + 1);
        return origin.kind === 'dynamic' ? origin : this.afterWrites(fn, name, def.end, at, origin);
      }
      const index = parameters(p, fn).findIndex((param) => param.name === name);
      if (index !== -1) return this.parameterOrigin(fn, index, depth);
    }
    for (const spec of nodesOf(p.root, new Set(['var_spec', 'const_spec']))) {
      if (enclosingFunction(spec)) continue;
      const sides = assignmentSides(spec);
      const i = sides?.left.findIndex((l) => textOf(p, l) === name) ?? -1;
      const value = sides?.right.length === sides?.left.length ? sides?.right[i] : undefined;
      if (value) return this.origin(value, undefined, value.startIndex, depth + 1);
    }
    return DYNAMIC;
  }

  /** The last `name := v` / `name = v` / `var name = v` in `fn` before `at`, with its value. */
  private lastDefinition(
    fn: SyntaxNode,
    name: string,
    at: number,
  ): { value: SyntaxNode; end: number } | undefined {
    let found: { value: SyntaxNode; end: number } | undefined;
    const kinds = new Set(['short_var_declaration', 'assignment_statement', 'var_spec']);
    for (const d of nodesOf(fn, kinds)) {
      if (d.endIndex > at || enclosingFunction(d) !== fn) continue;
      const sides = assignmentSides(d);
      const i =
        sides?.left.findIndex((l) => l.type === 'identifier' && textOf(this.parsed, l) === name) ?? -1;
      if (!sides || i === -1) continue;
      const value = sides.right.length === sides.left.length ? sides.right[i] : undefined;
      // `iv, err := f()`: a multi-value call is something we cannot read.
      found = value ? { value, end: d.endIndex } : { value: d, end: d.endIndex };
    }
    return found;
  }

  /** A parameter's value: constant when some call of the function in this file passes a constant. */
  private parameterOrigin(fn: SyntaxNode, index: number, depth: number): Origin {
    const nameNode = fn.type === 'function_declaration' ? field(fn, 'name') : undefined;
    if (!nameNode) return DYNAMIC;
    const name = textOf(this.parsed, nameNode);
    for (const call of nodesOf(this.parsed.root, 'call_expression')) {
      const { callee, args } = callParts(this.parsed, call);
      const arg = args[index];
      if (callee !== name || !arg) continue;
      const origin = this.origin(arg, enclosingFunction(call), call.startIndex, depth + 1);
      if (origin.kind !== 'dynamic') return origin;
    }
    return DYNAMIC;
  }

  /** Whether a call of a function declared here fills its parameter at `index` (reads into it, never writes it). */
  private fillsParameter(decl: SyntaxNode, index: number): boolean {
    const param = parameters(this.parsed, decl)[index]?.name;
    if (!param) return false;
    const body = field(decl, 'body');
    if (!body) return false;
    const reads = nodesOf(body, 'call_expression').some((c) => {
      const { callee, args } = callParts(this.parsed, c);
      return FILLERS.test(callee) && args.some((a) => this.base(a) === param);
    });
    return reads && this.indexWrites(body, new Set([param])).length === 0;
  }

  /** The variable a buffer expression reads (`iv`, `iv[2:]`, `&iv`), if any. */
  private base(expr: SyntaxNode): string | undefined {
    let e = unparen(expr);
    while (e.type === 'slice_expression' || e.type === 'unary_expression') {
      const operand = field(e, 'operand');
      if (!operand) return undefined;
      e = unparen(operand);
    }
    return e.type === 'identifier' ? textOf(this.parsed, e) : undefined;
  }

  private indexWrites(scope: SyntaxNode, names: Set<string>): SyntaxNode[] {
    return nodesOf(scope, 'assignment_statement').flatMap((a) =>
      (assignmentSides(a)?.left ?? []).filter((l) => {
        const operand = l.type === 'index_expression' ? field(l, 'operand') : undefined;
        return operand !== undefined && names.has(textOf(this.parsed, operand));
      }),
    );
  }

  /**
   * A constant or zeroed buffer after the statements between its definition and its use: readers fill it (the
   * bytes a slice covers, where the bounds are literals), constant index writes spoil single bytes again.
   */
  private afterWrites(fn: SyntaxNode, name: string, from: number, to: number, origin: Origin): Origin {
    const p = this.parsed;
    const aliases = new Set([name]);
    for (const d of nodesOf(fn, 'short_var_declaration')) {
      const sides = assignmentSides(d);
      if (sides?.right.length === 1 && textOf(p, sides.right[0] as SyntaxNode) === name)
        for (const l of sides.left) aliases.add(textOf(p, l));
    }
    const length = 'length' in origin ? origin.length : undefined;
    const size = length ?? 1;
    const filled: boolean[] = new Array(size).fill(false);
    const events: { at: number; apply: () => void }[] = [];
    const range = (e: SyntaxNode): [number, number] => {
      if (length === undefined || e.type !== 'slice_expression') return [0, size];
      const lo = field(e, 'start');
      const hi = field(e, 'end');
      return [lo ? (intValue(p, lo) ?? 0) : 0, hi ? (intValue(p, hi) ?? size) : size];
    };
    for (const call of nodesOf(fn, 'call_expression')) {
      if (call.startIndex < from || call.endIndex > to) continue;
      const { callee, fn: target, args } = callParts(p, call);
      args.forEach((arg, i) => {
        if (!aliases.has(this.base(arg) ?? '')) return;
        const decl = this.declared.get(callee);
        const fills = decl
          ? this.fillsParameter(decl, i)
          : FILLERS.test(callee) || target?.type === 'identifier';
        if (!fills || (callee === 'copy' && i !== 0)) return;
        const [lo, hi] = range(unparen(arg));
        events.push({ at: call.startIndex, apply: () => filled.fill(true, lo, Math.min(hi, size)) });
      });
    }
    for (const w of this.indexWrites(fn, aliases)) {
      if (w.startIndex < from || w.endIndex > to) continue;
      const i = intValue(p, field(w, 'index'));
      const [lo, hi] = this.useRange ?? [0, size];
      // A write at a computed index spoils the IV unless the call reads only part of the buffer.
      if (i === undefined && length !== undefined && (lo > 0 || hi < size)) continue;
      events.push({
        at: w.startIndex,
        apply: () => {
          if (i !== undefined && length !== undefined) filled[i] = false;
          else filled.fill(false);
        },
      });
    }
    for (const e of events.sort((a, b) => a.at - b.at)) e.apply();
    const [lo, hi] = this.useRange && length !== undefined ? this.useRange : [0, size];
    return filled.slice(lo, hi).every(Boolean) ? DYNAMIC : origin;
  }

  /** The IV argument of an encrypting call, if `call` is one (also through a variable holding `cipher.NewCTR`). */
  ivArgument(call: SyntaxNode): SyntaxNode | undefined {
    const p = this.parsed;
    const { callee, fn: target, args } = callParts(p, call);
    if (/\.Seal$/.test(callee) && args.length === 4) return args[1];
    if (ENCRYPT.test(callee)) return args[1];
    const fn = enclosingFunction(call);
    if (target?.type === 'identifier' && fn && args.length === 2) {
      const assigned = new RegExp(
        `\\b${callee}\\s*:?=\\s*cipher\\.(NewCTR|NewOFB|NewCBCEncrypter|NewCFBEncrypter)\\b`,
      );
      if (assigned.test(textOf(p, fn))) return args[1];
    }
    return undefined;
  }
}

export function constantNonces(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('crypto/cipher')) return [];
  const tracer = new NonceTracer(parsed);
  const out: Finding[] = [];
  for (const call of nodesOf(parsed.root, 'call_expression')) {
    const iv = tracer.ivArgument(call);
    if (!iv || INLINE_LITERAL.test(textOf(parsed, iv).trim())) continue;
    const lo = field(iv, 'start');
    const hi = field(iv, 'end');
    tracer.useRange =
      iv.type === 'slice_expression' && hi
        ? [lo ? Number(textOf(parsed, lo)) : 0, Number(textOf(parsed, hi))]
        : undefined;
    if (tracer.useRange?.some(Number.isNaN)) tracer.useRange = undefined;
    const origin = tracer.origin(iv, enclosingFunction(call), call.startIndex, 0);
    if (origin.kind === 'dynamic') continue;
    const confidence = origin.kind === 'constant' ? 'high' : 'medium';
    out.push(finding(parsed, call, { ...RULE, confidence, message: MESSAGE }));
  }
  return out;
}
