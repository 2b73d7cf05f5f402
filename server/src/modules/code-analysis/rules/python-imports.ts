import type { ParsedSource } from '../parsing/parse';
import { childByField, type SyntaxNode, walk } from '../parsing/tree';

/**
 * A Python call named the way Bandit names it: the callee's dotted text with its first name replaced by what the
 * file imported under that name (`import hashlib as h; h.md5()` → `hashlib.md5`, `from Crypto.Cipher import DES as
 * d; d.new()` → `Crypto.Cipher.DES.new`). Aliases are how code spells these modules, so a rule matching the text
 * alone misses them and, worse, matches unrelated objects that share a short name.
 */
export interface PythonCall {
  node: SyntaxNode;
  /** The qualified callee (`hashlib.md5`), or the text as written when its first name was not imported. */
  name: string;
  /** Whether the callee's first name came from an import. */
  imported: boolean;
  positional: SyntaxNode[];
  keywords: Map<string, SyntaxNode>;
}

export const nodeText = (parsed: ParsedSource, node: SyntaxNode): string =>
  parsed.source.slice(node.startIndex, node.endIndex);

const dotted = (parsed: ParsedSource, node: SyntaxNode): string =>
  node.children
    .filter((c) => c.type === 'identifier')
    .map((c) => nodeText(parsed, c))
    .join('.');

/** Local name → qualified name, from every import statement of the file (relative imports are the project's own). */
export function pythonImports(parsed: ParsedSource): Map<string, string> {
  const names = new Map<string, string>();
  walk(parsed.root, (node) => {
    if (node.type === 'import_statement') {
      for (const item of node.children.filter((c) => c.field === 'name')) {
        if (item.type === 'dotted_name') {
          const first = dotted(parsed, item).split('.')[0];
          if (first) names.set(first, first);
        } else if (item.type === 'aliased_import') {
          const target = childByField(item, 'name');
          const alias = childByField(item, 'alias');
          if (target && alias) names.set(nodeText(parsed, alias), dotted(parsed, target));
        }
      }
      return false;
    }
    if (node.type === 'import_from_statement') {
      const module = childByField(node, 'module_name');
      if (module?.type !== 'dotted_name') return false;
      const from = dotted(parsed, module);
      for (const item of node.children.filter((c) => c.field === 'name')) {
        const target = item.type === 'aliased_import' ? childByField(item, 'name') : item;
        const alias = item.type === 'aliased_import' ? childByField(item, 'alias') : item;
        if (target && alias) names.set(nodeText(parsed, alias), `${from}.${dotted(parsed, target)}`);
      }
      return false;
    }
    return true;
  });
  return names;
}

/** `a.b.c` as its names, or undefined when the callee is not a plain dotted name (a call, a subscript). */
function calleeNames(parsed: ParsedSource, node: SyntaxNode): string[] | undefined {
  if (node.type === 'identifier') return [nodeText(parsed, node)];
  if (node.type !== 'attribute') return undefined;
  const object = childByField(node, 'object');
  const attribute = childByField(node, 'attribute');
  const head = object && calleeNames(parsed, object);
  return head && attribute ? [...head, nodeText(parsed, attribute)] : undefined;
}

/** Every call of the file whose callee is a dotted name, with that name qualified through the file's imports. */
export function pythonCalls(parsed: ParsedSource): PythonCall[] {
  const imports = pythonImports(parsed);
  const calls: PythonCall[] = [];
  walk(parsed.root, (node) => {
    if (node.type !== 'call') return true;
    const fn = childByField(node, 'function');
    const names = fn && calleeNames(parsed, fn);
    const args = childByField(node, 'arguments');
    if (!names || !args) return true;
    const [head = '', ...rest] = names;
    const qualifiedHead = imports.get(head);
    const positional: SyntaxNode[] = [];
    const keywords = new Map<string, SyntaxNode>();
    for (const arg of args.children.filter((c) => c.named && c.type !== 'comment')) {
      if (arg.type === 'keyword_argument') {
        const key = childByField(arg, 'name');
        const value = childByField(arg, 'value');
        if (key && value) keywords.set(nodeText(parsed, key), value);
      } else positional.push(arg);
    }
    calls.push({
      node,
      name: [qualifiedHead ?? head, ...rest].join('.'),
      imported: qualifiedHead !== undefined,
      positional,
      keywords,
    });
    return true;
  });
  return calls;
}

/** The argument at `index`, or given by keyword `name`. */
export function argument(call: PythonCall, index: number, name: string): SyntaxNode | undefined {
  return call.keywords.get(name) ?? call.positional[index];
}

/** A plain string literal's content (no f-string interpolation), else undefined. */
export function literalString(parsed: ParsedSource, node: SyntaxNode | undefined): string | undefined {
  if (node?.type !== 'string') return undefined;
  if (node.children.some((c) => c.type === 'interpolation')) return undefined;
  return node.children
    .filter((c) => c.type === 'string_content')
    .map((c) => nodeText(parsed, c))
    .join('');
}
