/**
 * Operators: binary and unary operators and comparison chains folded on constants, text built from its parts, casts.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { foldBinary, truthy } from '../constants';
import { built, CLEAN, type Const, markSafe, unionTaint, type Val } from '../values';
import { arithmetic, checkCast } from './numbers';
import { CONCATENATING, field, namedChildren, numericFormatSafeFor, select } from './shared';
import type { WalkState } from './state';

export function binaryOperation(s: WalkState, node: SyntaxNode): Val {
  // Grammars without fields (Kotlin's `additive_expression`): operands by position, the operator between them.
  const operands = namedChildren(node);
  const left = field(node, 'left') ?? operands[0];
  const right = field(node, 'right') ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
  const op =
    field(node, 'operator') ?? node.children.find((c) => !c.named && c.startIndex >= (left?.endIndex ?? 0));
  const a = left ? s.evaluate(left) : CLEAN;
  const opText = op ? s.text(op) : '';
  // Short circuit: a constant left side decides whether the right side runs.
  if (a.constant && /^(&&|and|\|\||or)$/.test(opText)) {
    const t = truthy(a.constant.value);
    if ((t && /^(\|\||or)$/.test(opText)) || (!t && /^(&&|and)$/.test(opText))) return a;
  }
  const b = right ? s.evaluate(right) : CLEAN;
  // A number from input or chance: the operator is checked for what that range can make of it.
  const number = arithmetic(s, node, opText, left, right, a, b);
  if (a.constant && b.constant) {
    const v = foldBinary(opText, a.constant.value, b.constant.value);
    if (v !== undefined) return { constant: { value: v } };
  }
  if (/^(==|!=|<|>|<=|>=|===|!==|instanceof)$/.test(opText)) return CLEAN;
  // Numbers are no danger to the other sinks: text built from one is as clean as the parse made it.
  const ta = a.taint?.numeric ? undefined : a.taint;
  const tb = b.taint?.numeric ? undefined : b.taint;
  let taint =
    built(unionTaint(ta, tb)) ??
    (CONCATENATING.test(opText)
      ? s.auditOf(node, [
          { ...a, taint: ta },
          { ...b, taint: tb },
        ])
      : undefined) ??
    number;
  // Python's `"… %d" % value`: formatting with numeric conversions only.
  if (opText === '%' && typeof a.constant?.value === 'string')
    taint = markSafe(taint, numericFormatSafeFor(a.constant.value));
  return taint ? { taint } : CLEAN;
}

export function comparisonChain(s: WalkState, node: SyntaxNode): Val {
  const operands = namedChildren(node);
  const ops = node.children.filter((c) => c.field === 'operators');
  const vals = operands.map((o) => s.evaluate(o));
  let result: Const | undefined = true;
  for (let i = 0; i < ops.length; i += 1) {
    const a = vals[i]?.constant;
    const b = vals[i + 1]?.constant;
    const opNode = ops[i] as SyntaxNode;
    const op = s.source.slice(opNode.startIndex, opNode.endIndex).replace(/\s+/g, ' ');
    if (!a || !b) return CLEAN;
    const v = foldBinary(op, a.value, b.value);
    if (v === undefined) return CLEAN;
    result = result && v;
  }
  return { constant: { value: result ?? null } };
}

export function unaryOperation(s: WalkState, node: SyntaxNode, operandField: string): Val {
  const operand = field(node, operandField) ?? namedChildren(node)[0];
  const v = operand ? s.evaluate(operand) : CLEAN;
  const op = node.children.find((c) => !c.named);
  const opText = op ? s.text(op) : '';
  if (v.constant) {
    if (opText === '!' || opText === 'not') return { constant: { value: !truthy(v.constant.value) } };
    if (opText === '-' && typeof v.constant.value === 'number')
      return { constant: { value: -v.constant.value } };
  }
  return opText === '!' || opText === 'not' ? CLEAN : { taint: v.taint };
}

/** `(T) v`: the value converted; a narrowing numeric cast is checked (numbers.ts). */
export function castExpression(s: WalkState, node: SyntaxNode, valueSelector: string): Val {
  const value = select(node, valueSelector);
  const v = value ? s.evaluate(value) : CLEAN;
  const target = field(node, 'type');
  const out = target ? checkCast(s, node, s.text(target), value, v) : v;
  // `(string) $_POST['name']`: text cannot carry the operators an array or object adds to a NoSQL filter.
  if (target && out.taint && /^(string|String)$/.test(s.text(target)))
    return { ...out, taint: markSafe(out.taint, ['nosql-injection']) };
  return out;
}
