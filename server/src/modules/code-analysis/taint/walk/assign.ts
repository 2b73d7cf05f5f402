import type { SyntaxNode } from '../../parsing/tree';
import { CLEAN, type Val } from '../values';
import { field } from './shared';
import type { WalkState } from './state';

/** `std::cin >> name`: the stream's input is stored into the right operand. */
export function streamExtraction(s: WalkState, node: SyntaxNode, source: RegExp): Val | undefined {
  const left = field(node, 'left');
  const right = field(node, 'right');
  const op = field(node, 'operator') ?? node.children.find((c) => !c.named);
  if (!left || !right || !op || s.text(op) !== '>>') return undefined;
  const leftText = s.text(left);
  if (!source.test(leftText)) return undefined;
  if (left.type === node.type) s.evaluate(left);
  s.assignTo(right, { taint: s.newTaint(node, leftText.split('>>')[0] ?? leftText) }, node);
  return CLEAN;
}
