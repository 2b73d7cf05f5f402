import type { SyntaxNode } from '../../parsing/tree';
import type { TaintLanguage } from '../types';
import { field } from './shared';
import type { WalkState } from './state';

/** `{ __html: html }` in JSX: a property whose value is written into the page. */
export function checkKeySink(
  s: WalkState,
  node: SyntaxNode,
  sink: NonNullable<TaintLanguage['keySinks']>[number],
): void {
  const key = field(node, 'key');
  const value = field(node, 'value');
  if (!key || !value || !sink.key.test(s.text(key))) return;
  const v = s.evaluate(value);
  if (v.taint) s.flag(sink.kind, node, s.text(key), v.taint);
}
