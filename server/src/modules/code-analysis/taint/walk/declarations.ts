import type { SyntaxNode } from '../../parsing/tree';
import { field } from './shared';
import type { WalkState } from './state';

export function declareTypes(
  s: WalkState,
  node: SyntaxNode,
  spec: { type: string; declarator: string; name: string },
): void {
  const typeNode = field(node, spec.type);
  if (!typeNode) return;
  const simple = s.text(typeNode).replace(/<.*>/, '').replace(/\[\]/g, '').split('.').pop();
  if (!simple) return;
  const declarators = spec.declarator ? node.children.filter((c) => c.field === spec.declarator) : [node];
  // Declarations outside any function are the class's fields: their types hold in every method.
  const isField = s.unit === s.ctx.parsed.root;
  for (const d of declarators) {
    const name = field(d, spec.name);
    if (!name) continue;
    s.env.types.set(s.text(name), simple);
    if (isField) {
      s.ctx.fieldTypes.set(s.text(name), simple);
      s.ctx.fieldTypes.set(`s.${s.text(name)}`, simple);
    }
  }
}
