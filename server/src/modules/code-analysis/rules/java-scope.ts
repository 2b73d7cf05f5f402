import type { SyntaxNode } from '../parsing/tree';
import { descendants, field, type Scope } from './scoped';

/** Java (and C#) code units whose locals are their own. */
export const JAVA_METHODS = ['method_declaration', 'constructor_declaration', 'lambda_expression'];
const CLASSES = ['class_declaration', 'enum_declaration', 'record_declaration', 'object_creation_expression'];
/** Nested classes and lambdas have their own locals and their own `this`. */
export const JAVA_NESTED = ['class_body', 'lambda_expression'];

/** `java.util.Random<T>[]` → `Random`: the simple name, without package, type arguments or dimensions. */
export const simpleType = (type: string): string =>
  type
    .replace(/<[\s\S]*>/, '')
    .replace(/\[\s*\]/g, '')
    .replace(/^.*\./, '')
    .trim();

/** The method (or constructor, lambda) a node is in. */
export const methodOf = (node: SyntaxNode, scope: Scope): SyntaxNode | undefined =>
  scope.enclosing(node, JAVA_METHODS);

export const classOf = (node: SyntaxNode, scope: Scope): SyntaxNode | undefined =>
  scope.enclosing(node, CLASSES);

/**
 * The declared type of a name seen at `at`: a local or parameter of the enclosing method, else a field of the
 * enclosing class; undefined when neither declares it (inherited, or another file's).
 */
export function declaredType(name: string, at: SyntaxNode, scope: Scope): string | undefined {
  const method = methodOf(at, scope);
  if (method) {
    for (const d of descendants(
      method,
      ['local_variable_declaration', 'formal_parameter', 'resource'],
      ['class_body'],
    )) {
      const type = field(d, 'type');
      if (!type) continue;
      const names =
        d.type === 'local_variable_declaration'
          ? d.children.filter((c) => c.field === 'declarator').map((v) => field(v, 'name'))
          : [field(d, 'name')];
      if (names.some((n) => n && scope.text(n) === name)) return simpleType(scope.text(type));
    }
  }
  const cls = classOf(at, scope);
  const body = cls && (field(cls, 'body') ?? cls.children.find((c) => c.type === 'class_body'));
  for (const f of body?.children.filter((c) => c.type === 'field_declaration') ?? []) {
    const type = field(f, 'type');
    const declared = f.children.filter((c) => c.field === 'declarator').map((v) => field(v, 'name'));
    if (type && declared.some((n) => n && scope.text(n) === name)) return simpleType(scope.text(type));
  }
  return undefined;
}

/** The field declaration of `name` in the class around `at`. */
export function fieldDeclaration(name: string, at: SyntaxNode, scope: Scope): SyntaxNode | undefined {
  const cls = classOf(at, scope);
  const body = cls && (field(cls, 'body') ?? cls.children.find((c) => c.type === 'class_body'));
  return body?.children.find(
    (f) =>
      f.type === 'field_declaration' &&
      f.children.some((v) => v.field === 'declarator' && scope.text(field(v, 'name') ?? v) === name),
  );
}

/** Calls `name.method(…)` inside `root` (nested classes and lambdas included: they run on the same object). */
export function callsOn(
  root: SyntaxNode,
  name: string,
  scope: Scope,
): { method: string; call: SyntaxNode }[] {
  return descendants(root, ['method_invocation'])
    .filter((c) => {
      const object = field(c, 'object');
      return object !== undefined && scope.text(object).replace(/^this\./, '') === name;
    })
    .map((call) => ({ method: scope.text(field(call, 'name') ?? call), call }));
}

/** The method name of a call node (`a.b.c(…)` → `c`). */
export const calledName = (call: SyntaxNode, scope: Scope): string => scope.text(field(call, 'name') ?? call);

/** The arguments of a call or object creation, as nodes. */
export const argumentsOf = (call: SyntaxNode): SyntaxNode[] =>
  (field(call, 'arguments')?.children ?? []).filter((c) => c.named && !c.type.includes('comment'));

/** The statement (a child of a block) that holds `node`. */
export function statementOf(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (n.parent && n.parent.type !== 'block' && n.parent.type !== 'switch_block_statement_group')
    n = n.parent;
  return n;
}

/** The local a value is stored in: `T x = <value>` or `x = <value>` (through parentheses and casts). */
export function assignedName(value: SyntaxNode, scope: Scope): string | undefined {
  let n = value;
  while (n.parent && (n.parent.type === 'parenthesized_expression' || n.parent.type === 'cast_expression'))
    n = n.parent;
  const p = n.parent;
  if (p?.type === 'variable_declarator' && field(p, 'value') === n) {
    const name = field(p, 'name');
    return name ? scope.text(name) : undefined;
  }
  if (p?.type === 'assignment_expression' && field(p, 'right') === n) {
    const left = field(p, 'left');
    return left?.type === 'identifier' ? scope.text(left) : undefined;
  }
  return undefined;
}

/** The local declaration of `name` visible at `at`, and the block it is visible in. */
export function localDeclaration(
  name: string,
  at: SyntaxNode,
  scope: Scope,
): { block: SyntaxNode; declarator: SyntaxNode } | undefined {
  for (let p = at.parent; p && !JAVA_METHODS.includes(p.type); p = p.parent) {
    if (p.type !== 'block') continue;
    for (const d of p.children.filter((c) => c.type === 'local_variable_declaration'))
      for (const v of d.children.filter((c) => c.field === 'declarator'))
        if (scope.text(field(v, 'name') ?? v) === name) return { block: p, declarator: v };
  }
  return undefined;
}

/** The values assigned to a local inside `root`: its initialiser and every `name = value`. */
export function valuesOf(name: string, root: SyntaxNode, scope: Scope): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const d of descendants(root, ['variable_declarator', 'assignment_expression'])) {
    const target = d.type === 'variable_declarator' ? field(d, 'name') : field(d, 'left');
    const value = d.type === 'variable_declarator' ? field(d, 'value') : field(d, 'right');
    if (target && value && scope.text(target) === name && value.type !== 'null_literal') out.push(value);
  }
  return out;
}

/** Whether `name` leaves the method: returned, stored in a field or an array, or handed to another method. */
export function escapes(name: string, root: SyntaxNode, scope: Scope): boolean {
  return descendants(root, ['return_statement', 'assignment_expression', 'argument_list']).some((n) => {
    if (n.type === 'return_statement') return n.children.some((c) => c.named && scope.text(c) === name);
    if (n.type === 'assignment_expression') {
      const left = field(n, 'left');
      return scope.text(field(n, 'right') ?? n) === name && left !== undefined && left.type !== 'identifier';
    }
    return (
      n.parent?.type === 'method_invocation' && n.children.some((c) => c.named && scope.text(c) === name)
    );
  });
}
