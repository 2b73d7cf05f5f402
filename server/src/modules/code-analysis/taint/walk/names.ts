/** Names: what a name, member path or leaf holds when read. */
import type { SyntaxNode } from '../../parsing/tree';
import { CLEAN, type Val, withStep } from '../values';
import { extremeValue } from './numbers';
import type { WalkState } from './state';

/**
 * A name, a member path or a leaf read: what the state holds under its text, else a source the catalogue names, a
 * type's extreme, a field another method stored input in, a constant field; undefined when none of these knows it
 * (its children are then evaluated). Reading a member of a value that is null here is a null dereference.
 */
export function readName(s: WalkState, node: SyntaxNode): Val | undefined {
  const text = s.text(node);
  const known = s.env.has(text) ? s.env.get(text) : undefined;
  // A parameter of unknown origin named like a source (`argv`, `args`) is that source.
  if (known && (!known.taint?.weak || known.taint.audit)) return known;
  if (s.lang.sources.some((re) => re.test(text))) return { taint: s.newTaint(node, text) };
  if (known) return known;
  const extreme = extremeValue(s, node, text);
  if (extreme) return extreme;
  // A field another method of the class stored input in.
  const stored = s.ctx.readField(s.unit, text);
  if (stored) return { taint: withStep(stored, s.step(node, `reads ${text}`)) };
  const fixed = s.ctx.fieldConstant(s.unit, text);
  if (fixed) return { constant: fixed };
  if (node.children.length === 0) return CLEAN;
  // `a.length` of an `a` that holds null here.
  const object = /^(field_access|attribute|member_expression)$/.test(node.type)
    ? node.children.find((c) => c.field === 'object')
    : undefined;
  if (object && (s.reporting || s.probe) && s.evaluate(object).constant?.value === null)
    s.ctx.reportNullDereference(node, object, s.unit, s.probe);
  return undefined;
}
