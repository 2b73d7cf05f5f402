import type { SyntaxNode } from '../parsing/tree';
import type { TaintKind } from './types';
import type { WalkState } from './walk/state';

/** Every sink kind: what an allow-list check or a full-match validation makes a value safe for. */
const ALL_KINDS: TaintKind[] = [
  'sql-injection',
  'command-injection',
  'code-injection',
  'xss',
  'unsafe-deserialization',
  'path-traversal',
  'ssrf',
  'open-redirect',
  'ldap-injection',
  'xpath-injection',
  'trust-boundary',
  'xxe',
  'header-injection',
  'format-string',
  'log-injection',
  'smtp-injection',
  'reflection',
  'config-setting',
  'regex-injection',
  'nosql-injection',
  'prototype-pollution',
  'template-injection',
];

/** The sinks a value is safe for once it is known not to contain these characters. */
export function kindsRejecting(text: string): TaintKind[] {
  const kinds: TaintKind[] = [];
  if (/\.\.|\/|\\/.test(text)) kinds.push('path-traversal');
  if (/['"]/.test(text)) kinds.push('sql-injection', 'xpath-injection', 'code-injection');
  if (/[<>]/.test(text)) kinds.push('xss');
  if (/[;&|`$]/.test(text)) kinds.push('command-injection');
  if (/[()*\\]/.test(text)) kinds.push('ldap-injection');
  if (/[\r\n]/.test(text)) kinds.push('header-injection', 'log-injection', 'smtp-injection');
  if (/%/.test(text)) kinds.push('format-string');
  return kinds;
}

const CONTAINS = /^(contains|includes|startsWith|endsWith|startswith|endswith|indexOf|find|count)$/;
const VALIDATES = /^(matches|fullmatch|isalnum|isdigit|isnumeric|isalpha|isdecimal|isidentifier)$/;
const REGEX_MATCH = /^(re\.)?(fullmatch|match)$|^Pattern\.matches$/;
/** Django's and Werkzeug-era checks that a redirect target stays on this site (host and scheme allowed, or relative). */
const SAFE_REDIRECT_CHECK = /(^|\.)(url_has_allowed_host_and_scheme|is_safe_url|IsLocalUrl)$/;
/** Python's URL parsers: `urlparse(target).netloc` reads the host of `target`. */
const URL_PARSE = /(^|\.)(urlparse|urlsplit)$/;
/** Membership of the checked value in a collection the code holds: `ALLOWED.includes(x)`, `in_array($x, [...])`. */
const MEMBER_OF = /^(includes|contains|has|containsKey|hasOwnProperty|include\?|member\?|key\?|has_key\?)$/;
/** Own-key checks taking the object first: `Object.hasOwn(HANDLERS, x)`, `Object.prototype.hasOwnProperty.call(HANDLERS, x)`. */
const HAS_OWN = /^(Object\.hasOwn|(Object\.prototype|\{\}|\w+)\.hasOwnProperty\.call)$/;

const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);
const named = (node: SyntaxNode) => node.children.filter((c) => c.named && !/comment/.test(c.type));

/**
 * A guard that leaves the function when its condition holds (`if ('../' in name) return`, `if (!id.matches("\\w+"))
 * throw`): past it, each checked name is safe for the sinks the check rules out. Membership of a constant rules out
 * the characters it holds; an allow-list (`name in ALLOWED`), a full regex match or a character-class test
 * (`isalnum`) rules out everything.
 */
export function applyGuard(walker: WalkState, condition: SyntaxNode, held = false): void {
  // Past an `unless` the condition held: only a membership in a list the code holds says anything then.
  if (held) {
    allowListHeld(walker, condition);
    return;
  }
  const visit = (node: SyntaxNode): void => {
    const parts = named(node);
    if (node.type === 'comparison_operator' && parts.length === 2) {
      const op = node.children.find((c) => c.field === 'operators');
      const [a, b] = parts as [SyntaxNode, SyntaxNode];
      // `url.netloc not in ALLOWED`, `url.scheme != 'https'` where `url = urlparse(target)`: target's host is checked.
      if (a.type === 'attribute' || a.type === 'field_access' || /call|invocation/.test(a.type)) {
        const object = a.children.find((c) => c.field === 'object');
        const from = object ? walker.parsedSource(object) : undefined;
        const member = walker.nodeText(a);
        if (from && /\.(netloc|hostname|host|getHost\(\)|port)$/.test(member))
          walker.markValidated(from, ['open-redirect', 'ssrf']);
        if (from) return;
      }
      if (op && /in$/.test(walker.nodeText(op))) {
        const needle = walker.constantOf(a);
        if (typeof needle === 'string' && walker.taintOfName(b))
          walker.markValidated(b, kindsRejecting(needle));
        else if (walker.taintOfName(a) && !walker.taintOfName(b)) walker.markValidated(a, ALL_KINDS);
        return;
      }
    }
    // `if urlparse(target).netloc: return …`: past it, `target` has no host, so it is relative to this site.
    if (node.type === 'attribute' && /\.(netloc|hostname)$/.test(walker.nodeText(node))) {
      const object = field(node, 'object');
      const negated = node.parent?.type === 'not_operator';
      const from =
        object && !negated ? (walker.parsedSource(object) ?? parsedInline(walker, object)) : undefined;
      if (from) walker.markValidated(from, ['open-redirect']);
      return;
    }
    if (/call|method_invocation|invocation_expression/.test(node.type)) {
      const fn = field(node, 'function');
      // C#'s `x.StartsWith(root)`: a member_access_expression whose arguments sit in `argument` wrappers.
      const csharp = fn?.type === 'member_access_expression';
      const object =
        field(node, 'object') ??
        (fn?.type === 'attribute' || fn?.type === 'member_expression'
          ? field(fn, 'object')
          : csharp
            ? field(fn, 'expression')
            : undefined);
      const nameNode =
        field(node, 'name') ??
        (fn?.type === 'attribute'
          ? field(fn, 'attribute')
          : fn?.type === 'member_expression'
            ? field(fn, 'property')
            : csharp
              ? field(fn, 'name')
              : fn);
      const method = nameNode ? walker.nodeText(nameNode) : '';
      const args = named(field(node, 'arguments') ?? node)
        .filter((c) => c !== fn && c !== object && c !== nameNode)
        .map((c) => (c.type === 'argument' ? (named(c)[0] ?? c) : c));
      if (object && walker.taintOfName(object)) {
        if (VALIDATES.test(method)) walker.markValidated(object, ALL_KINDS);
        else if (CONTAINS.test(method)) {
          const needle = args[0] ? walker.constantOf(args[0]) : undefined;
          if (typeof needle === 'string') walker.markValidated(object, kindsRejecting(needle));
        }
      }
      // An allow-list: the branch leaves unless the value is one the code lists (`if (!ALLOWED.includes(x)) return`).
      // Python's `not x` (its text reads `notx` once spaced out), or `!x`.
      const negated =
        node.parent !== null &&
        (node.parent.type === 'not_operator' || /^(!|not\b)/.test(walker.nodeText(node.parent)));
      // `if (!full.StartsWith(root)) return …` where `full = Path.GetFullPath(…)` (C#) or `file = path.resolve(…)`
      // (Node's `resolve`, `join` and `normalize` collapse `..`): the resolved path stays under root.
      if (negated && object && /^(StartsWith|startsWith)$/.test(method) && walker.taintOfName(object)) {
        const name = walker.nodeText(object).replace(/[.$]/g, '\\$&');
        const resolved = csharp
          ? '(System\\.IO\\.)?Path\\.GetFullPath\\('
          : 'path\\.(resolve|join|normalize)\\(';
        if (new RegExp(`\\b${name}\\s*=\\s*${resolved}`).test(walker.unitText()))
          walker.markValidated(object, ['path-traversal']);
      }
      const ownKey = fn !== undefined && HAS_OWN.test(walker.nodeText(fn).replace(/\s+/g, ''));
      const member = ownKey
        ? args[1]
        : object && MEMBER_OF.test(method)
          ? args[0]
          : method === 'in_array'
            ? args[0]
            : undefined;
      const list = ownKey ? args[0] : method === 'in_array' ? args[1] : object;
      if (negated && member && list && walker.taintOfName(member) && !walker.taintOfName(list))
        walker.markValidated(member, ALL_KINDS);
      const callee = fn ? walker.nodeText(fn) : object ? `${walker.nodeText(object)}.${method}` : method;
      // `if not url_has_allowed_host_and_scheme(target, allowed_hosts=…): return …`
      if (negated && SAFE_REDIRECT_CHECK.test(callee) && args[0] && walker.taintOfName(args[0]))
        walker.markValidated(args[0], ['open-redirect']);
      const subject = args[1];
      if (REGEX_MATCH.test(callee) && subject && walker.taintOfName(subject))
        walker.markValidated(subject, ALL_KINDS);
      return;
    }
    for (const c of parts) visit(c);
  };
  visit(condition);
}

/** The name parsed by an inline `urlparse(name)`, as `parsedSource` gives it for `url = urlparse(name)`. */
function parsedInline(walker: WalkState, node: SyntaxNode): string | undefined {
  if (node.type !== 'call') return undefined;
  const fn = field(node, 'function');
  const first = named(field(node, 'arguments') ?? node)[0];
  if (!fn || !URL_PARSE.test(walker.nodeText(fn)) || first?.type !== 'identifier') return undefined;
  return walker.nodeText(first);
}

/**
 * The branch taken when a redirect check holds (`if (Url.IsLocalUrl(returnUrl)) return Redirect(returnUrl);`):
 * inside it, the checked value is a path on this site.
 */
export function applySafeRedirectCheck(walker: WalkState, condition: SyntaxNode): void {
  let node: SyntaxNode | undefined = condition;
  while (node && /parenthesized/.test(node.type)) node = named(node)[0];
  if (!node || !/call|invocation/.test(node.type)) return;
  const fn = field(node, 'function');
  if (!fn || !SAFE_REDIRECT_CHECK.test(walker.nodeText(fn).replace(/\s+/g, ''))) return;
  let first = named(field(node, 'arguments') ?? node).find((c) => c !== fn);
  if (first?.type === 'argument') first = named(first)[0];
  if (first && walker.taintOfName(first)) walker.markValidated(first, ['open-redirect']);
}

/**
 * `ALLOWED.include?(x)`, `HANDLERS.has(x)`, `Object.hasOwn(HANDLERS, x)` known to hold (past an `unless`, inside
 * the branch an `if` takes): `x` is one of the listed values or keys.
 */
export function allowListHeld(walker: WalkState, condition: SyntaxNode): void {
  const member = allowListedValue(walker, condition);
  if (member && walker.taintOfName(member)) walker.markValidated(member, ALL_KINDS);
}

/**
 * The value an allow-list membership test checks, when the list is the code's own: `x` in `ALLOWED.include?(x)`,
 * `HANDLERS.has(x)`, `Object.hasOwn(HANDLERS, x)`, `in_array($x, ['a', 'b'], true)`.
 */
export function allowListedValue(walker: WalkState, condition: SyntaxNode): SyntaxNode | undefined {
  let node: SyntaxNode | undefined = condition;
  while (node && /parenthesized/.test(node.type)) node = named(node)[0];
  if (!node || !/call|method_invocation/.test(node.type)) return;
  const fn = field(node, 'function');
  const access = fn?.type === 'member_expression' ? fn : undefined;
  const object = field(node, 'object') ?? field(node, 'receiver') ?? (access && field(access, 'object'));
  const nameNode = field(node, 'name') ?? field(node, 'method') ?? (access && field(access, 'property'));
  const method = nameNode ? walker.nodeText(nameNode) : '';
  const args = named(field(node, 'arguments') ?? node).filter(
    (c) => c !== object && c !== nameNode && c !== fn,
  );
  const fnText = fn ? walker.nodeText(fn).replace(/\s+/g, '') : '';
  if (fn && HAS_OWN.test(fnText)) {
    const [list, key] = args;
    return list && key && !walker.taintOfName(list) ? key : undefined;
  }
  // PHP's `in_array($x, ['a', 'b'], true)`: the list is the second argument (an array literal or a clean name).
  if (fnText === 'in_array' || (method === 'in_array' && !object)) {
    const values = args.map((a) => (a.type === 'argument' ? (named(a)[0] ?? a) : a));
    const [member, list] = values;
    const ownList =
      list &&
      (/array_creation|^(name|class_constant_access_expression)$/.test(list.type) ||
        list.type === 'variable_name');
    return member && list && ownList && !walker.taintOfName(list) ? member : undefined;
  }
  const member = object && MEMBER_OF.test(method) ? args[0] : undefined;
  return object && member && !walker.taintOfName(object) ? member : undefined;
}

/**
 * A branch taken when the value is a path on this site (`next.startsWith('/') && !next.startsWith('//')`, a
 * protocol-relative `//host` excluded): a redirect to it stays here.
 */
export function relativePathHeld(walker: WalkState, condition: SyntaxNode): void {
  const text = walker.nodeText(condition).replace(/\s+/g, '');
  const visit = (node: SyntaxNode): void => {
    if (node.type === 'call_expression') {
      const fn = field(node, 'function');
      const object = fn?.type === 'member_expression' ? field(fn, 'object') : undefined;
      const name = object ? walker.nodeText(object) : '';
      const argument = named(field(node, 'arguments') ?? node)[0];
      if (
        object &&
        fn &&
        /\.startsWith$/.test(walker.nodeText(fn)) &&
        argument &&
        walker.constantOf(argument) === '/' &&
        node.parent?.type !== 'unary_expression' &&
        text.includes(`!${name.replace(/\s+/g, '')}.startsWith(`) &&
        walker.taintOfName(object)
      )
        walker.markValidated(object, ['open-redirect']);
      return;
    }
    for (const c of named(node)) visit(c);
  };
  visit(condition);
}
