import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { NAME_LIKE, norm, type Origin } from './syntax';
import type { TaintLanguage } from './types';

/** Names a parameter declares: its name or pattern field, a direct name child, or the names in a pattern. */
export function parameterNames(source: string, param: SyntaxNode): string[] {
  if (NAME_LIKE.test(param.type)) return [norm(source, param)];
  const fields = param.children.filter((c) => c.field === 'name' || c.field === 'pattern');
  // A typed parameter has one name child (the rest is its type); a destructuring pattern has several.
  const direct = param.children.filter((c) => NAME_LIKE.test(c.type));
  const named = fields.length > 0 ? fields : /pattern/.test(param.type) ? direct : direct.slice(0, 1);
  const names: string[] = [];
  const walk = (n: SyntaxNode): void => {
    if (NAME_LIKE.test(n.type)) names.push(norm(source, n));
    else for (const c of n.children) if (c.field !== 'type' && c.field !== 'value') walk(c);
  };
  for (const n of named.length > 0 ? named : [param]) walk(n);
  return names;
}

/** The parameter declarations of a function, in order. */
export function parametersOf(unit: SyntaxNode, lang: TaintLanguage, containers: string[]): SyntaxNode[] {
  const types = lang.parameterTypes ?? [];
  // C and C++ keep the parameter list inside the function's declarator.
  const declarator = unit.children.find(
    (c) => c.field === 'declarator' && /function_declarator/.test(c.type),
  );
  const list =
    unit.children.find((c) => c.field === 'parameters') ??
    unit.children.find((c) => containers.includes(c.type)) ??
    declarator?.children.find((c) => c.field === 'parameters');
  // Swift lists its parameters directly under the function.
  const holder = list ?? unit;
  return holder.children.filter((c) => c.named && c.field !== 'name' && types.includes(c.type));
}

/** Whether the function is an HTTP handler by its decorators or annotations (`@app.route(…)`). */
export function isRouteHandler(parsed: ParsedSource, lang: TaintLanguage, unit: SyntaxNode): boolean {
  const decorator = lang.handler?.decorator;
  if (!decorator) return false;
  const { source } = parsed;
  const decorators =
    unit.parent?.type === 'decorated_definition' ? source.slice(unit.parent.startIndex, unit.startIndex) : '';
  return decorator.test(`${decorators} ${annotations(source, unit)}`);
}

/**
 * The annotations written on a handler and on the classes around it (`@RestController class … { @GetMapping … }`).
 */
export function handlerAnnotations(parsed: ParsedSource, unit: SyntaxNode): string {
  const parts = [annotations(parsed.source, unit)];
  for (let n = unit.parent; n; n = n.parent)
    if (/class_declaration|class_definition|object_declaration/.test(n.type))
      parts.push(annotations(parsed.source, n));
  return parts.join(' ');
}

/**
 * The annotations and attributes written on the function itself (Java's modifiers, C#'s attribute lists), and Rust's
 * outer attributes and TypeScript's method decorators, which the grammars keep as the siblings just before the function
 * (`#[get("/<name>")]`, `@Redirect()`).
 */
function annotations(source: string, unit: SyntaxNode): string {
  const own = unit.children.filter((c) => /modifiers|annotation|attribute_list/.test(c.type));
  const siblings = unit.parent?.children ?? [];
  const outer: SyntaxNode[] = [];
  // TypeScript keeps a method's decorators as the class body's children just before it (`@Redirect(…) get() {…}`).
  for (
    let i = siblings.indexOf(unit) - 1;
    /^(attribute_item|decorator)$/.test(siblings[i]?.type ?? '');
    i -= 1
  )
    outer.unshift(siblings[i] as SyntaxNode);
  return [...outer, ...own].map((c) => norm(source, c)).join(' ');
}

/**
 * Every other parameter that could hold text (not typed as a number, boolean or UUID, not the receiver): what the
 * function is given from outside, of unknown origin.
 */
export function unknownParameters(
  parsed: ParsedSource,
  lang: TaintLanguage,
  unit: SyntaxNode,
): [string, Origin][] {
  const { source } = parsed;
  const out: [string, Origin][] = [];
  for (const param of parametersOf(unit, lang, PROFILES[parsed.language].parameterContainers)) {
    const text = source.slice(param.startIndex, param.endIndex);
    if (lang.safeParameter?.test(text)) continue;
    const origin = { text: `parameter ${text.replace(/\s+/g, ' ').slice(0, 50)}`, line: param.startRow + 1 };
    for (const name of parameterNames(source, param))
      if (!/^(self|cls|this|_)$/.test(name)) out.push([name, origin]);
  }
  return out;
}

/** Whether the function is an action of a handler class (an ASP.NET controller's public method). */
function inHandlerClass(
  source: string,
  unit: SyntaxNode,
  params: SyntaxNode[],
  spec: NonNullable<TaintLanguage['handler']>['enclosingClass'] & object,
): boolean {
  let cls = unit.parent;
  while (cls && !/class_(declaration|definition)$/.test(cls.type)) cls = cls.parent;
  const body = cls?.children.find((c) => c.field === 'body');
  if (!cls || !body) return false;
  const methodHeader = source.slice(unit.startIndex, params[0]?.startIndex ?? unit.endIndex);
  return spec.header.test(source.slice(cls.startIndex, body.startIndex)) && spec.method.test(methodHeader);
}

/** Whether the function's body starts the way a handler's does (`= Action { request => … }`). */
function handlerBody(source: string, unit: SyntaxNode, body: RegExp): boolean {
  const node = unit.children.find((c) => c.field === 'body');
  if (!node) return false;
  const text = source.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 200));
  return body.test(text.split('\n', 1)[0] ?? '');
}

/**
 * The name an anonymous function is bound to (`const handler = async (e) => …`, `exports.handler = function (e) {…}`):
 * the last segment of the variable or property it is assigned to.
 */
function boundName(source: string, unit: SyntaxNode): string {
  const parent = unit.parent;
  if (!parent) return '';
  const target =
    parent.type === 'variable_declarator' || parent.type === 'pair'
      ? parent.children.find((c) => c.field === 'name' || c.field === 'key')
      : parent.type === 'assignment_expression'
        ? parent.children.find((c) => c.field === 'left')
        : undefined;
  return target ? (norm(source, target).split('.').pop() ?? '') : '';
}

/**
 * The positions of the parameters that are input when the function is an argument of a call that `callbackSources`
 * names, or undefined.
 */
function callbackPositions(source: string, lang: TaintLanguage, unit: SyntaxNode): number[] | undefined {
  const args = unit.parent;
  const call = args?.parent;
  if (!lang.callbackSources || !args || !call || !lang.calls.includes(call.type)) return undefined;
  const callee = source.slice(call.startIndex, args.startIndex).replace(/\s+/g, '');
  const spec = lang.callbackSources.find((c) => c.callee.test(callee));
  return spec?.parameters;
}

/** Parameters that bring untrusted data into the function, with where they come from. */
export function parameterSources(
  parsed: ParsedSource,
  lang: TaintLanguage,
  unit: SyntaxNode,
): [string, Origin][] {
  if (!lang.parameterSources && !lang.handler && !lang.callbackSources) return [];
  const { source } = parsed;
  const params = parametersOf(unit, lang, PROFILES[parsed.language].parameterContainers);
  if (params.length === 0) return [];
  const callback = callbackPositions(source, lang, unit);
  const nameNode = unit.children.find((c) => c.field === 'name' || NAME_LIKE.test(c.type));
  const fnName = nameNode ? norm(source, nameNode) : boundName(source, unit);
  const handler = lang.handler;
  // The first parameter after the receiver (`def get(self, request, pk)` in a class-based view).
  const firstNames = params
    .map((p) => parameterNames(source, p)[0])
    .filter((n) => !/^(self|cls|this)$/.test(n ?? ''));
  const first = firstNames[0];
  const decorators =
    unit.parent?.type === 'decorated_definition' ? source.slice(unit.parent.startIndex, unit.startIndex) : '';
  const modifiers = annotations(source, unit);
  // The request object itself is not a capture: its members are sources of their own.
  const requestParameter =
    first !== undefined && handler?.firstParameter?.test(first) === true ? first : undefined;
  const isHandler =
    handler?.decorator?.test(`${decorators} ${modifiers}`) === true ||
    requestParameter !== undefined ||
    (handler?.enclosingClass !== undefined && inHandlerClass(source, unit, params, handler.enclosingClass)) ||
    (handler?.body !== undefined && handlerBody(source, unit, handler.body));
  const out: [string, Origin][] = [];
  for (const param of params) {
    // Kotlin keeps a parameter's annotations in a parameter_modifiers node just before it.
    const siblings = param.parent?.children ?? [];
    const before = siblings[siblings.indexOf(param) - 1];
    const start = before?.type === 'parameter_modifiers' ? before.startIndex : param.startIndex;
    const text = source.slice(start, param.endIndex);
    if (lang.safeParameter?.test(text)) continue;
    const names = parameterNames(source, param);
    const wholeParameter =
      callback?.includes(params.indexOf(param)) === true ||
      (isHandler && names[0] !== requestParameter && !/^(self|cls|this)$/.test(names[0] ?? '')) ||
      (lang.parameterSources ?? []).some(
        (p) =>
          !p.name &&
          (!p.text || p.text.test(text)) &&
          (!p.function || p.function.test(fnName)) &&
          (!p.decorator || p.decorator.test(`${decorators} ${modifiers}`)),
      );
    // A name-matched source taints the matching names only (`{ id, body }`: `body`, not `id`).
    const tainted = wholeParameter
      ? names
      : names.filter((n) =>
          (lang.parameterSources ?? []).some(
            (p) =>
              p.name?.test(n) === true &&
              (!p.decorator || p.decorator.test(`${decorators} ${modifiers}`)) &&
              (!p.text || p.text.test(text)) &&
              (!p.function || p.function.test(fnName)),
          ),
        );
    const origin = { text: `parameter ${text.replace(/\s+/g, ' ').slice(0, 50)}`, line: param.startRow + 1 };
    for (const name of tainted) out.push([name, origin]);
  }
  return out;
}
