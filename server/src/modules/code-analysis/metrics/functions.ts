import type { SyntaxNode } from '../parsing/tree';
import { childByField, walk } from '../parsing/tree';
import type { LanguageProfile } from './profile';
import { text } from './profile';

export interface FunctionNode {
  node: SyntaxNode;
  name: string;
  kind: string;
}

/** Every function-like node, in source order, with a name (from its declaration or where it is assigned). */
export function findFunctions(root: SyntaxNode, profile: LanguageProfile, source: string): FunctionNode[] {
  const found: FunctionNode[] = [];
  walk(root, (node) => {
    const kind = node.named ? profile.functions[node.type] : undefined;
    if (kind) found.push({ node, kind, name: functionName(node, source) });
    return true;
  });
  return found;
}

const NAME_TYPES =
  /^(identifier|simple_identifier|property_identifier|field_identifier|name|word|constant|private_property_identifier|type_identifier)$/;

function functionName(node: SyntaxNode, source: string): string {
  const named = childByField(node, 'name');
  if (named) return text(named, source);
  // C and C++: the name sits inside the declarator chain.
  let declarator = node.type === 'function_definition' ? childByField(node, 'declarator') : undefined;
  while (declarator) {
    const inner = childByField(declarator, 'declarator');
    if (!inner) return text(declarator, source);
    if (declarator.type === 'function_declarator') return text(inner, source);
    declarator = inner;
  }
  const direct = node.children.find((c) => NAME_TYPES.test(c.type));
  if (direct && !profileIsAnonymous(node)) return text(direct, source);
  return assignedName(node, source) ?? '<anonymous>';
}

function profileIsAnonymous(node: SyntaxNode): boolean {
  return /lambda|arrow|closure|anonymous|literal|block|function_expression|^function$/.test(node.type);
}

/** `const f = () => …`, `x.f = function () {…}`, `{ f: () => … }`: the name the function is bound to. */
function assignedName(node: SyntaxNode, source: string): string | undefined {
  const parent = node.parent;
  if (!parent) return undefined;
  const target =
    childByField(parent, 'name') ??
    childByField(parent, 'left') ??
    childByField(parent, 'key') ??
    childByField(parent, 'pattern');
  if (target && target !== node && target.endIndex - target.startIndex < 120) return text(target, source);
  return undefined;
}

/** Python's bare `*` and `/` separate parameter kinds; they are not parameters. */
const SEPARATORS = new Set(['keyword_separator', 'positional_separator']);

/** Number of declared parameters. */
export function countParameters(node: SyntaxNode, profile: LanguageProfile, source: string): number {
  const container =
    childByField(node, 'parameters') ??
    node.children.find((c) => profile.parameterContainers.includes(c.type)) ??
    declaratorParameters(node);
  if (!container) {
    const single = childByField(node, 'parameter');
    if (single) return 1;
    return node.children.filter((c) => c.type === 'parameter').length;
  }
  if (NAME_TYPES.test(container.type)) return 1;
  let count = 0;
  for (const child of container.children) {
    if (!child.named || profile.comments.includes(child.type) || SEPARATORS.has(child.type)) continue;
    if (child.type === 'parameter_declaration' || child.type === 'variadic_parameter_declaration') {
      // Go: `a, b int` declares two parameters.
      const names = child.children.filter((c) => c.field === 'name').length;
      count += Math.max(1, names);
    } else if (text(child, source).trim() !== '') {
      count += 1;
    }
  }
  return count;
}

/** C and C++ keep the parameter list on the function_declarator inside the declarator chain. */
function declaratorParameters(node: SyntaxNode): SyntaxNode | undefined {
  let declarator = childByField(node, 'declarator');
  while (declarator) {
    const params = childByField(declarator, 'parameters');
    if (params) return params;
    declarator = childByField(declarator, 'declarator');
  }
  return undefined;
}
