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
  textOf,
  unparen,
} from './syntax';

/**
 * Index and slice bounds that are out of range by construction (CWE-129, gosec G602): a buffer whose length and
 * capacity are literals (`make([]T, n, c)`, `[N]T`, `var s []T`, a slice of one of those) read at a constant index,
 * at a constant variable, or at a `for` counter whose range the loop header fixes (`for i := a; i < b; i++`,
 * `range N`, `range arr`), plus or minus a constant. An index must be below the length; a slice's bounds may reach
 * the capacity. Accesses under an `if`/`switch` that tests a `len(...)` are left alone (the check guards them).
 */

const RULE = {
  rule_id: 'bug/index-out-of-range',
  category: 'bug',
  severity: 'high',
  confidence: 'high',
  cwe: 'CWE-129',
} as const;

interface Shape {
  len: number;
  cap: number;
}
type Range = [number, number];

class BoundsChecker {
  constructor(
    private readonly parsed: ParsedSource,
    private readonly fn: SyntaxNode,
  ) {}

  private text = (n: SyntaxNode) => textOf(this.parsed, n);

  private int(n: SyntaxNode | undefined): number | undefined {
    if (!n) return undefined;
    const e = unparen(n);
    if (e.type === 'int_literal') return Number(this.text(e).replace(/_/g, ''));
    if (e.type === 'unary_expression' && this.text(e).startsWith('-')) {
      const v = this.int(field(e, 'operand'));
      return v === undefined ? undefined : -v;
    }
    return undefined;
  }

  /** Assignments to `name` in the function (declarations included), in order, and whether it is ever stepped. */
  private readonly writesByName = new Map<string, { at: SyntaxNode; value: SyntaxNode | undefined }[]>();
  private assignments: SyntaxNode[] | undefined;

  private writes(name: string): { at: SyntaxNode; value: SyntaxNode | undefined }[] {
    const cached = this.writesByName.get(name);
    if (cached) return cached;
    const out: { at: SyntaxNode; value: SyntaxNode | undefined }[] = [];
    const kinds = new Set([
      'short_var_declaration',
      'assignment_statement',
      'var_spec',
      'inc_statement',
      'dec_statement',
    ]);
    this.assignments ??= nodesOf(this.fn, kinds).filter((d) => enclosingFunction(d) === this.fn);
    for (const d of this.assignments) {
      if (d.type === 'inc_statement' || d.type === 'dec_statement') {
        if (this.text(namedChildren(d)[0] ?? d) === name) out.push({ at: d, value: undefined });
        continue;
      }
      const sides = assignmentSides(d);
      const i = sides?.left.findIndex((l) => l.type === 'identifier' && this.text(l) === name) ?? -1;
      if (!sides || i === -1) continue;
      const compound = d.type === 'assignment_statement' && !/^\s*=\s*$/.test(this.operatorOf(d));
      out.push({
        at: d,
        value: compound ? undefined : sides.right.length === sides.left.length ? sides.right[i] : undefined,
      });
      if (d.type === 'var_spec' && sides.right.length === 0)
        out[out.length - 1] = { at: d, value: field(d, 'type') };
    }
    return out;
  }

  private operatorOf(n: SyntaxNode): string {
    const op = n.children.find((c) => !c.named && c.field === 'operator');
    return op ? this.text(op) : '=';
  }

  /** A buffer's length and capacity at `at`: the last assignment before it, if every assignment is readable. */
  shape(expr: SyntaxNode, at: number, depth = 0): Shape | undefined {
    const e = unparen(expr);
    if (depth > 4) return undefined;
    if (e.type === 'array_type') {
      const n = this.int(field(e, 'length'));
      return n === undefined ? undefined : { len: n, cap: n };
    }
    if (e.type === 'slice_type') return { len: 0, cap: 0 }; // `var s []T`
    if (e.type === 'composite_literal') {
      const type = field(e, 'type');
      if (type?.type === 'array_type') return this.shape(type, at, depth + 1);
      return undefined;
    }
    if (e.type === 'call_expression') {
      const { callee, args } = callParts(this.parsed, e);
      if (callee !== 'make' || args[0]?.type !== 'slice_type') return undefined;
      const len = this.int(args[1]);
      const cap = args[2] ? this.int(args[2]) : len;
      return len === undefined || cap === undefined ? undefined : { len, cap };
    }
    if (e.type === 'slice_expression') {
      const base = field(e, 'operand');
      const s = base && this.shape(base, at, depth + 1);
      if (!s) return undefined;
      const lo = field(e, 'start') ? this.int(field(e, 'start')) : 0;
      const hi = field(e, 'end') ? this.int(field(e, 'end')) : s.len;
      const max = field(e, 'capacity') ? this.int(field(e, 'capacity')) : s.cap;
      if (lo === undefined || hi === undefined || max === undefined || hi > max || max > s.cap)
        return undefined;
      return { len: hi - lo, cap: max - lo };
    }
    if (e.type !== 'identifier') return undefined;
    const writes = this.writes(this.text(e));
    if (writes.length === 0 || writes.some((w) => !w.value)) return undefined;
    const last = writes.filter((w) => w.at.endIndex <= at).pop();
    if (!last?.value || writes.some((w) => w.value && !this.shape(w.value, w.at.startIndex, depth + 1)))
      return undefined;
    return this.shape(last.value, last.at.startIndex, depth + 1);
  }

  /** The values an index expression can take at `use`, when they are fixed by constants and loop headers. */
  range(expr: SyntaxNode, use: SyntaxNode): Range | undefined {
    const e = unparen(expr);
    const n = this.int(e);
    if (n !== undefined) return [n, n];
    if (e.type === 'binary_expression') {
      const op = this.operatorOf(e);
      const l = field(e, 'left');
      const r = field(e, 'right');
      const a = l && this.range(l, use);
      const b = r && this.range(r, use);
      if (!a || !b) return undefined;
      if (op === '+') return [a[0] + b[0], a[1] + b[1]];
      if (op === '-') return [a[0] - b[1], a[1] - b[0]];
      return undefined;
    }
    if (e.type !== 'identifier') return undefined;
    const name = this.text(e);
    const loop = this.loopRange(name, use);
    if (loop) return loop;
    const writes = this.writes(name);
    const only = writes.length === 1 ? this.int(writes[0]?.value) : undefined;
    return only === undefined ? undefined : [only, only];
  }

  /** The range of a counter declared by an enclosing loop header and not written in the body. */
  private loopRange(name: string, use: SyntaxNode): Range | undefined {
    for (let p = use.parent; p && p !== this.fn; p = p.parent) {
      if (p.type !== 'for_statement') continue;
      const clause = namedChildren(p)[0];
      if (clause?.type === 'range_clause') {
        const left = namedChildren(field(clause, 'left'));
        if (left[0] && this.text(left[0]) === name) {
          const right = field(clause, 'right');
          const n = this.int(right) ?? (right ? this.shape(right, p.startIndex)?.len : undefined);
          return n === undefined || n < 1 ? undefined : [0, n - 1];
        }
      }
      if (clause?.type !== 'for_clause') continue;
      const init = field(clause, 'initializer');
      const sides = init && assignmentSides(init);
      if (sides?.left.length !== 1 || this.text(sides.left[0] as SyntaxNode) !== name) continue;
      const start = this.int(sides.right[0]);
      const cond = field(clause, 'condition');
      const update = field(clause, 'update');
      if (start === undefined || cond?.type !== 'binary_expression' || update?.type !== 'inc_statement')
        return undefined;
      if (this.text(field(cond, 'left') ?? cond) !== name) return undefined;
      const bound = field(cond, 'right');
      const lenOf = bound && /^len\((\w+)\)$/.exec(this.text(bound))?.[1];
      const limit =
        this.int(bound) ??
        (lenOf && bound
          ? this.shape(namedChildren(field(bound, 'arguments'))[0] ?? bound, p.startIndex)?.len
          : undefined);
      const op = this.operatorOf(cond);
      if (limit === undefined || (op !== '<' && op !== '<=')) return undefined;
      const body = field(p, 'body');
      const stepped =
        body &&
        this.writes(name).some((w) => w.at.startIndex >= body.startIndex && w.at.endIndex <= body.endIndex);
      const hi = op === '<' ? limit - 1 : limit;
      return stepped || hi < start ? undefined : [start, hi];
    }
    return undefined;
  }
}

/** Whether `n` sits under an if/switch whose condition reads a length (`if len(s) > 3`). */
function lengthGuarded(parsed: ParsedSource, n: SyntaxNode, fn: SyntaxNode): boolean {
  for (let p = n.parent; p && p !== fn; p = p.parent) {
    const cond =
      p.type === 'if_statement'
        ? field(p, 'condition')
        : p.type === 'expression_switch_statement'
          ? field(p, 'value')
          : undefined;
    if (cond && /\blen\(/.test(textOf(parsed, cond))) return true;
  }
  return false;
}

export function sliceBounds(parsed: ParsedSource): Finding[] {
  const out: Finding[] = [];
  const checkers = new Map<SyntaxNode, BoundsChecker>();
  for (const access of nodesOf(parsed.root, new Set(['index_expression', 'slice_expression']))) {
    const fn = enclosingFunction(access);
    const operand = field(access, 'operand');
    if (!fn || !operand || lengthGuarded(parsed, access, fn)) continue;
    const checker = checkers.get(fn) ?? new BoundsChecker(parsed, fn);
    checkers.set(fn, checker);
    const shape = checker.shape(operand, access.startIndex);
    if (!shape) continue;
    let bad = false;
    if (access.type === 'index_expression') {
      const index = field(access, 'index');
      const r = index && checker.range(index, access);
      bad = !!r && (r[0] < 0 || r[1] >= shape.len);
    } else {
      const bounds = ['start', 'end', 'capacity'].map((f) => {
        const b = field(access, f);
        return b ? checker.range(b, access) : undefined;
      });
      const [lo, hi, max] = bounds;
      bad =
        bounds.some((b) => b && (b[0] < 0 || b[1] > shape.cap)) ||
        (!!lo && !field(access, 'end') && lo[1] > shape.len);
      if (lo && hi && lo[0] > hi[1]) bad = true;
      if (hi && max && hi[0] > max[1]) bad = true;
    }
    if (bad)
      out.push(
        finding(parsed, access, {
          ...RULE,
          message: `\`${textOf(parsed, access).slice(0, 60)}\` is out of range: the buffer has length ${shape.len} and capacity ${shape.cap} here, so this panics; check the bounds or size the buffer.`,
        }),
      );
  }
  return out;
}
