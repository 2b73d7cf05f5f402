import type { SyntaxNode } from '../../parsing/tree';
import type { Taint, Val } from '../values';
import { above, below, type Range } from './ranges';

/** What refinement needs of the walker: values, names' numeric taint, text, and the language's `abs`. */
export interface RefineHost {
  evaluate(node: SyntaxNode): Val;
  nodeText(node: SyntaxNode): string;
  numericTaint(v: Val, node: SyntaxNode | undefined): Val['taint'];
  calleeText(node: SyntaxNode): string | undefined;
  absFunction: RegExp | undefined;
}

/** The names' taints a refinement reads and narrows (an overlay: the state is copied only when one changes). */
export interface NumberView {
  get(name: string): Taint | undefined;
  set(name: string, taint: Taint): void;
}

const FLIP: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '==': '==', '!=': '!=' };
const NEGATE: Record<string, string> = { '<': '>=', '>=': '<', '>': '<=', '<=': '>', '==': '!=', '!=': '==' };
const NAMED =
  /^(identifier|simple_identifier|field_access|member_access_expression|selector_expression|this_expression)$/;
const HAS_CALL = /call|invocation|creation|assignment|update/;

const named = (node: SyntaxNode) => node.children.filter((c) => c.named && !/comment/.test(c.type));

function operatorOf(node: SyntaxNode, host: RefineHost): string {
  const op = node.children.find((c) => c.field === 'operator') ?? node.children.find((c) => !c.named);
  return op ? host.nodeText(op) : '';
}

function hasCall(node: SyntaxNode): boolean {
  return HAS_CALL.test(node.type) || node.children.some(hasCall);
}

/** A comparison's other side: a number, or a value of unknown size (`a.length`, another variable). */
function boundOf(node: SyntaxNode, host: RefineHost): number | 'unknown' {
  if (hasCall(node)) return 'unknown';
  const v = host.evaluate(node).constant?.value;
  return typeof v === 'number' ? v : 'unknown';
}

/** `x op bound` holds: the range `x` is left with. */
function narrow(r: Range, op: string, bound: number | 'unknown'): Range {
  const out: Range = { ...r };
  if (bound === 'unknown') {
    if (op === '<' || op === '<=') out.hiChecked = true;
    if (op === '>' || op === '>=') out.loChecked = true;
    return out;
  }
  const float = Boolean(r.float) || !Number.isInteger(bound);
  if (op === '<') out.hi = Math.min(r.hi, below(bound, float));
  else if (op === '<=') out.hi = Math.min(r.hi, bound);
  else if (op === '>') out.lo = Math.max(r.lo, above(bound, float));
  else if (op === '>=') out.lo = Math.max(r.lo, bound);
  else if (op === '==') {
    out.lo = Math.max(r.lo, bound);
    out.hi = Math.min(r.hi, bound);
  } else if (op === '!=' && bound === 0) out.nonzero = true;
  if ((op === '>' && bound >= 0) || (op === '<' && bound <= 0) || out.lo > 0 || out.hi < 0)
    out.nonzero = true;
  return out;
}

/** `abs(x) op bound` holds: `x` lies within ±bound, or away from zero. */
function narrowAbs(r: Range, op: string, bound: number | 'unknown'): Range {
  const out: Range = { ...r };
  if (op === '<' || op === '<=') {
    if (bound === 'unknown') return { ...out, loChecked: true, hiChecked: true };
    out.lo = Math.max(r.lo, -bound);
    out.hi = Math.min(r.hi, bound);
  } else if ((op === '>' || op === '!=') && (bound === 'unknown' || bound >= 0)) out.nonzero = true;
  else if (op === '>=' && typeof bound === 'number' && bound > 0) out.nonzero = true;
  return out;
}

function update(env: NumberView, host: RefineHost, subject: SyntaxNode, change: (r: Range) => Range): void {
  if (!NAMED.test(subject.type)) return;
  const name = host.nodeText(subject);
  const current = env.get(name);
  if (!current) return;
  const taint = host.numericTaint({ taint: current }, subject);
  if (!taint?.numeric) return;
  env.set(name, { ...taint, numeric: change(taint.numeric) });
}

/**
 * Narrows the numbers a condition compares on the path where it is `truth` (`if (n >= 0 && n < a.length)`: `n` is
 * an index there; the else path of `if (d == 0)`: `d` is not zero). Only names holding a number from input or chance
 * change; constants are decided by the folding already.
 */
export function refineNumbers(
  env: NumberView,
  host: RefineHost,
  condition: SyntaxNode,
  truth: boolean,
): void {
  const parts = named(condition);
  if (/parenthesized|condition_clause/.test(condition.type) && parts.length === 1 && parts[0]) {
    refineNumbers(env, host, parts[0], truth);
    return;
  }
  const op = operatorOf(condition, host);
  if (/unary|prefix/.test(condition.type) && (op === '!' || op === 'not') && parts[0]) {
    refineNumbers(env, host, parts[0], !truth);
    return;
  }
  if (parts.length !== 2) return;
  const [l, r] = parts as [SyntaxNode, SyntaxNode];
  if ((op === '&&' && truth) || (op === '||' && !truth)) {
    refineNumbers(env, host, l, truth);
    refineNumbers(env, host, r, truth);
    return;
  }
  if (!(op in FLIP)) return;
  const holds = truth ? op : (NEGATE[op] as string);
  const absOf = (n: SyntaxNode): SyntaxNode | undefined => {
    if (!host.absFunction || !/call|invocation/.test(n.type)) return undefined;
    const callee = host.calleeText(n);
    if (!callee || !host.absFunction?.test(callee)) return undefined;
    const args = named(n).find((c) => /argument/.test(c.type));
    return args ? named(args)[0] : undefined;
  };
  for (const [subject, other, o] of [
    [l, r, holds],
    [r, l, FLIP[holds] as string],
  ] as [SyntaxNode, SyntaxNode, string][]) {
    const inner = absOf(subject);
    if (inner) {
      const bound = boundOf(other, host);
      update(env, host, inner, (range) => narrowAbs(range, o, bound));
      continue;
    }
    if (!NAMED.test(subject.type) || !env.get(host.nodeText(subject))) continue;
    const bound = boundOf(other, host);
    update(env, host, subject, (range) => narrow(range, o, bound));
  }
}
