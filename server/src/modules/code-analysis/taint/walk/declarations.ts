/**
 * Declarations: the types names and fields are declared with (typed receivers resolve `xp.evaluate` to
 * `XPath.evaluate`), the type an object is constructed as, a declared object's constructor as a call, and the literal
 * a parameter defaults to.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { NAME_LIKE } from '../syntax';
import { callShape } from './shape';
import { ARGUMENT_LISTS, field, namedChildren } from './shared';
import { checkSinks } from './sinks';
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
      s.ctx.fieldTypes.set(`this.${s.text(name)}`, simple);
    }
  }
}

/** `std::ifstream in(path);`: the declared type's constructor runs on the arguments, which may reach a sink. */
export function constructorDeclaration(s: WalkState, node: SyntaxNode): void {
  const typeNode = field(node, 'type');
  if (!typeNode) return;
  const callee = s.text(typeNode);
  for (const d of node.children.filter((c) => c.field === 'declarator')) {
    let args: SyntaxNode[] = [];
    if (d.type === 'function_declarator') {
      // The most vexing parse: `in(path)` reads as a parameter of type `path`.
      const list = field(d, 'parameters');
      args = (list ? namedChildren(list) : []).map((p) => field(p, 'type') ?? p);
    } else {
      const value = field(d, 'value');
      if (value && ARGUMENT_LISTS.test(value.type)) args = namedChildren(value);
    }
    if (args.length === 0) continue;
    const vals = args.map((a) =>
      NAME_LIKE.test(a.type) || a.type === 'type_identifier' ? s.env.get(s.text(a)) : s.evaluate(a),
    );
    checkSinks(s, node, callee, undefined, args, vals, undefined);
  }
}

/**
 * `repo = Repo()`, `const repo = new Repo()` of a type the project declares: `repo.find()` is `Repo.find`; with
 * `Base b = new Impl()` too, the object is an `Impl` and its overrides are what run.
 */
export function rememberConstructedType(s: WalkState, target: SyntaxNode, value: SyntaxNode): void {
  const project = s.ctx.project;
  if (!NAME_LIKE.test(target.type) || !/call|invocation|new_expression|object_creation/.test(value.type))
    return;
  const callee = callShape(s, value).callee;
  // `var sb = new StringBuilder(…)`: what is appended to it is text being built (see `evaluateCall`).
  const builder = /^(new)?(StringBuilder|StringBuffer)$/.exec(callee)?.[2];
  if (builder) s.env.types.set(s.text(target), builder);
  if (!project) return;
  const type = project.constructedType(callee);
  if (type) s.env.types.set(s.text(target), type);
}

/**
 * The string literal a parameter of the function being walked defaults to (`url="http://…"`, `url = 'http://…'`,
 * `$url = "…"`), when the parameter list declares one; a parameter is found by its name's node and the literal
 * beside it, whatever the grammar calls the pair.
 */
export function parameterDefault(s: WalkState, name: string): string | undefined {
  const params = s.unit.children.find((c) => /parameters|parameter_list|formal_parameters/.test(c.type));
  if (!params) return undefined;
  const literals = s.flow?.literals.strings ?? [];
  for (const p of params.children) {
    if (!p.named) continue;
    const parts = p.children.filter((c) => c.named);
    const head = parts[0];
    const last = parts[parts.length - 1];
    if (!head || !last || parts.length < 2 || s.text(head).replace(/^\$/, '') !== name.replace(/^\$/, ''))
      continue;
    if (!literals.includes(last.type)) return undefined;
    const value = s.evaluate(last).constant?.value;
    return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}
