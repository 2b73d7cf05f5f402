import type { SyntaxNode } from '../../parsing/tree';
import { parseNumber, unescapeLiteral } from '../constants';
import type { FlowSyntax } from '../flow/types';
import { CLEAN, markSafe, type Val } from '../values';
import { branch, ternaryExpression } from './branches';
import { dictLiteral, listLiteral, subscriptRead } from './containers';
import { declareTypes } from './declarations';
import { stringLiteral } from './literals';
import { foreachStatement, loopStatement } from './loops';
import { checkCast } from './numbers';
import { binaryOperation, comparisonChain, unaryOperation } from './operators';
import { field, joinVals, namedChildren, select } from './shared';
import type { WalkState } from './state';
import { switchOn } from './switches';
import { tryStatement } from './tries';

export function evaluateFlow(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val | undefined {
  const type = node.type;
  if (flow.branches[type]) return branch(s, flow, node);
  if (flow.elses?.[type]) {
    const body = select(node, flow.elses[type] as string);
    return body ? s.evaluate(body) : CLEAN;
  }
  const ternary = flow.ternaries[type];
  if (ternary) return ternaryExpression(s, node, ternary);
  if (flow.switches[type]) return switchOn(s, flow, node);
  if (flow.loops[type]) return loopStatement(s, flow, node);
  if (flow.foreach[type]) return foreachStatement(s, flow, node);
  if (flow.tries[type]) return tryStatement(s, flow, node);
  const jump = flow.jumps?.includes(type) ? node.children[0]?.type : undefined;
  if (jump === 'throw') {
    s.evaluateChildren(node);
    s.env.dead = true;
    return CLEAN;
  }
  if (flow.returns.includes(type) || jump === 'return') {
    const value = namedChildren(node)[0];
    const v = value ? s.evaluate(value) : CLEAN;
    s.returned = s.returned ? joinVals(s.returned, v) : v;
    if (value && s.closures === 0) s.ctx.onReturn(s, s.unit, value, v);
    s.env.dead = true;
    return v;
  }
  if (flow.exits.includes(type)) {
    s.evaluateChildren(node);
    // A module's own top-level `raise` or `exit()` (a script that refuses to run, an example file) does not hide
    // the statements written after it: they are code a reader edits and runs, and what they do is reported.
    if (node.parent !== s.unit || s.ctx.isFunction(s.unit)) s.env.dead = true;
    return CLEAN;
  }
  const lit = flow.literals;
  if (lit.strings.includes(type)) return stringLiteral(s, flow, node);
  if (lit.leafStrings?.includes(type) && node.children.length === 0) {
    // Scala's `"abc"` is one token: its text between the quotes (escapes read as written).
    const raw = s.source.slice(node.startIndex, node.endIndex);
    const quotes = raw.startsWith('"""') ? 3 : 1;
    return { constant: { value: unescapeLiteral(raw.slice(quotes, raw.length - quotes)) } };
  }
  if (lit.numbers.includes(type)) {
    const n = parseNumber(s.text(node));
    return n === undefined ? CLEAN : { constant: { value: n } };
  }
  if (lit.chars.includes(type)) return { constant: { value: unescapeLiteral(s.text(node).slice(1, -1)) } };
  if (lit.trues.includes(type)) return { constant: { value: true } };
  if (lit.booleans?.includes(type)) return { constant: { value: s.text(node) === 'true' } };
  if (lit.falses.includes(type)) return { constant: { value: false } };
  if (lit.nulls.includes(type)) return { constant: { value: null } };
  if (flow.binaries.includes(type)) return binaryOperation(s, node);
  if (flow.comparisons.includes(type)) return comparisonChain(s, node);
  const operand = flow.unaries[type];
  if (operand !== undefined) return unaryOperation(s, node, operand);
  if (flow.tuples?.includes(type) && namedChildren(node).length === 1) {
    const inner = namedChildren(node)[0];
    return inner ? s.evaluate(inner) : CLEAN;
  }
  if (flow.parens.includes(type)) {
    const inner = namedChildren(node)[0];
    return inner ? s.evaluate(inner) : CLEAN;
  }
  const cast = flow.casts[type];
  if (cast) {
    const value = select(node, cast);
    const v = value ? s.evaluate(value) : CLEAN;
    const target = field(node, 'type');
    const out = target ? checkCast(s, node, s.text(target), value, v) : v;
    // `(string) $_POST['name']`: text cannot carry the operators an array or object adds to a NoSQL filter.
    if (target && out.taint && /^(string|String)$/.test(s.text(target)))
      return { ...out, taint: markSafe(out.taint, ['nosql-injection']) };
    return out;
  }
  const subscript = flow.subscripts[type];
  if (subscript) return subscriptRead(s, node, subscript);
  if (flow.lists.includes(type)) return listLiteral(s, node);
  const dict = flow.dicts[type];
  if (dict) return dictLiteral(s, node, dict);
  const declaration = flow.typedDeclarations[type];
  if (declaration) declareTypes(s, node, declaration);
  return undefined;
}
