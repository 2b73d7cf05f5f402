/**
 * Literals and their constants: strings (interpolations built from their parts), numbers, characters, booleans, null.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { parseNumber, unescapeLiteral } from '../constants';
import type { FlowSyntax } from '../flow/types';
import { built, CLEAN, type Taint, unionTaint, type Val } from '../values';
import { namedChildren } from './shared';
import type { WalkState } from './state';

export function stringLiteral(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val {
  let text = '';
  let taint: Taint | undefined;
  let constant = true;
  const parts: Val[] = [];
  const visit = (n: SyntaxNode) => {
    for (const c of n.children) {
      if (flow.literals.interpolations.includes(c.type)) {
        constant = false;
        // `f"{TABLE}"` of a constant is constant text, not a value of unknown origin.
        const inner = namedChildren(c);
        const v = inner.length === 1 && inner[0] ? s.evaluate(inner[0]) : s.evaluateChildren(c);
        parts.push(v);
        taint = unionTaint(taint, v.taint);
      } else if (flow.literals.interpolatedValues?.includes(c.type)) {
        // PHP's `"id=$id"`, Kotlin's `"$id"`: the variable itself sits in the string.
        constant = false;
        const v = s.evaluate(c);
        parts.push(v);
        taint = unionTaint(taint, v.taint);
      } else if (flow.literals.stringParts.includes(c.type)) {
        text += literalPart(s, c);
      } else if (flow.literals.strings.includes(c.type)) visit(c);
    }
  };
  visit(node);
  if (taint && !taint.numeric) return { taint: built(taint) };
  if (constant) return { constant: { value: text } };
  const audit = s.auditOf(node, [{ constant: { value: text } }, ...parts]);
  return audit ? { taint: audit } : CLEAN;
}

/** A literal's text piece as the program sees it: Python nests its escapes inside `string_content`. */
function literalPart(s: WalkState, part: SyntaxNode): string {
  const raw = (from: number, to: number) => s.source.slice(from, to);
  if (part.type === 'escape_sequence') return unescapeLiteral(raw(part.startIndex, part.endIndex));
  let text = '';
  let at = part.startIndex;
  for (const e of part.children.filter((c) => c.type === 'escape_sequence')) {
    text += raw(at, e.startIndex) + unescapeLiteral(raw(e.startIndex, e.endIndex));
    at = e.endIndex;
  }
  return text + raw(at, part.endIndex);
}

/** Scala's `"abc"` is one token: its text between the quotes (escapes read as written). */
export function leafString(s: WalkState, node: SyntaxNode): Val {
  const raw = s.source.slice(node.startIndex, node.endIndex);
  const quotes = raw.startsWith('"""') ? 3 : 1;
  return { constant: { value: unescapeLiteral(raw.slice(quotes, raw.length - quotes)) } };
}

export function numberLiteral(s: WalkState, node: SyntaxNode): Val {
  const n = parseNumber(s.text(node));
  return n === undefined ? CLEAN : { constant: { value: n } };
}

export function charLiteral(s: WalkState, node: SyntaxNode): Val {
  return { constant: { value: unescapeLiteral(s.text(node).slice(1, -1)) } };
}

/** A boolean literal whose node type does not say which (`true` and `false` share one). */
export function booleanLiteral(s: WalkState, node: SyntaxNode): Val {
  return { constant: { value: s.text(node) === 'true' } };
}
