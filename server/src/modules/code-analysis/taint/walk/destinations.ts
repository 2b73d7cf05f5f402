/**
 * Destinations: a URL whose scheme and host the code fixes before any input joins it is no SSRF or open redirect.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { NAME_LIKE } from '../syntax';
import { callShape } from './shape';
import { field, IS_CALL, namedChildren } from './shared';
import type { WalkState } from './state';

/**
 * A fixed scheme and host (or a relative path) heads the URL: written in the call, or in what was last assigned to
 * the local passed (`url := "https://api.example.com/v1?q=" + q` … `http.Get(url)`).
 */
export function fixedDestinationOf(s: WalkState, arg: SyntaxNode): boolean {
  if (fixedDestination(s.text(arg))) return true;
  if (headChosenByCode(s, arg)) return true;
  if (IS_CALL.test(arg.type) && helperFixesDestination(s, arg)) return true;
  if (!NAME_LIKE.test(arg.type)) return false;
  const name = s.text(arg);
  let last: string | undefined;
  const visit = (n: SyntaxNode): void => {
    if (n.startIndex >= arg.startIndex) return;
    const spec = s.lang.assignments.find((a) => a.type === n.type);
    const target = spec && n.children.find((c) => c.field === spec.target);
    const value = spec && n.children.find((c) => c.field === spec.value);
    if (target && value && s.text(target) === name) last = s.text(value);
    for (const c of n.children) visit(c);
  };
  visit(s.unit);
  return last !== undefined && fixedDestination(last);
}

/**
 * The URL is text joined at the sink (`config.base + req.query.path`, `` `${base}${path}` ``, `$base . $path`)
 * whose head is a name or member the code set and no input reached (neither constant nor tainted): the input is
 * appended to a destination the code chose (configuration, a base URL), as Semgrep's express-open-redirect and
 * CodeQL's URL-prefix sanitisers read it. A head that is input, a parameter, or literal text is not this.
 */
function headChosenByCode(s: WalkState, arg: SyntaxNode): boolean {
  const literals = s.flow?.literals;
  let node = arg;
  for (let depth = 0; depth < 16; depth++) {
    const first = node.children.find((c) => c.named);
    if (!first) break;
    const joins =
      /binary|concat|additive|infix/.test(node.type) &&
      node.children.some((c) => !c.named && (c.type === '+' || c.type === '.'));
    if (joins && node.children.filter((c) => c.named).length === 2) {
      node = first;
      continue;
    }
    if (literals?.strings.includes(node.type)) {
      // The string's first part must be an interpolation, not text (`"https://" + …` keeps the host open).
      const part = node.children.find((c) => c.named || literals.interpolations.includes(c.type));
      if (!part || !literals.interpolations.includes(part.type)) return false;
      const inner = part.children.find((c) => c.named);
      if (!inner) return false;
      node = inner;
      continue;
    }
    break;
  }
  if (node === arg) return false;
  if (
    !NAME_LIKE.test(node.type) &&
    !/member_expression|field_access|attribute|selector_expression/.test(node.type)
  )
    return false;
  const v = s.evaluate(node);
  return !v.taint && !v.constant;
}

/**
 * A URL whose destination the code fixes before any input joins it: a literal scheme and host followed by a path
 * (`"https://api.corp.com/users/" + id`, `f"https://api.corp.com/u/{id}"`), or a local path that cannot become
 * protocol-relative (`"/home/" + id`, not `"/" + id`). The input then chooses a path on that host, not the host.
 */
export function fixedDestination(argument: string): boolean {
  // `new URL('/login', request.url)`: a rooted path resolved against a base stays on the base's host.
  const m = /^[A-Za-z@$]{0,2}("""|'''|["'`])([^"'`]*)/.exec(
    argument.replace(/^\(+/, '').replace(/^new\s*URL\(\s*/, ''),
  );
  const head = m?.[2] ?? '';
  return /^(https?|wss?|ftp):\/\/[^/?#\s{}$%+@\\]+[/?#]/i.test(head) || /^\/[^/\\{$%]/.test(head);
}

/** A piece of a joined string, in order: literal text, or a name. */
type Piece = { text: string } | { name: string };

/**
 * `buildUrl("https://api.example.com/", path)` where the file's `buildUrl(base, path)` returns `base + path` (or
 * `` `${base}/${path}` ``, `base.concat(path)`, or a literal scheme and host before `path`): the URL every return of
 * the helper builds starts with a fixed scheme and host, the caller's constant standing in for the parameter that
 * heads it. A helper that puts anything else first (`path + base`, a parameter given input) stays a destination
 * the input may choose.
 */
function helperFixesDestination(s: WalkState, call: SyntaxNode): boolean {
  const { callee, args } = callShape(s, call);
  const receiver = s.flow?.receiver(call);
  const methodNode = s.flow?.method(call);
  const method = methodNode ? s.text(methodNode) : (callee.split('.').pop() ?? callee);
  const summary = s.ctx.summaryFor(callee, method, args.length, receiver, undefined);
  if (!summary) return false;
  const params = s.ctx.parameters(summary.fn).filter((p) => !/^(self|cls)$/.test(p));
  const returned = returnedExpressions(s, summary.fn);
  if (returned.length === 0) return false;
  return returned.every((expr) => {
    const [head, next] = leadingPieces(s, expr, 0).slice(0, 2);
    if (!head) return false;
    let text: string;
    if ('text' in head) text = head.text;
    else {
      const index = params.indexOf(head.name);
      const arg = index >= 0 ? args[index] : undefined;
      const known = arg ? s.evaluate(arg).constant?.value : undefined;
      const value = known ?? (arg && NAME_LIKE.test(arg.type) ? fileConstant(s, s.text(arg)) : undefined);
      if (typeof value !== 'string') return false;
      text = value;
    }
    if (next && 'text' in next) text += next.text;
    return fixedDestination(JSON.stringify(text));
  });
}

/** The expressions a function returns: its `return` statements' values, or an expression body. */
function returnedExpressions(s: WalkState, fn: SyntaxNode): SyntaxNode[] {
  const flow = s.flow;
  if (!flow) return [];
  const out: SyntaxNode[] = [];
  const visit = (n: SyntaxNode): void => {
    if (n !== fn && s.ctx.isFunction(n)) return;
    const isReturn =
      flow.returns.includes(n.type) || (flow.jumps?.includes(n.type) && n.children[0]?.type === 'return');
    if (isReturn) {
      const value = namedChildren(n)[0];
      if (value) out.push(value);
      return;
    }
    for (const c of n.children) visit(c);
  };
  visit(fn);
  if (out.length > 0) return out;
  // `(base, path) => base + path`, Kotlin's `fun url(…) = "$base/$path"`: a body that is an expression; Ruby's,
  // Scala's and Rust's last expression is the value returned.
  const body = field(fn, 'body') ?? fn.children.find((c) => /^(function_body|body_statement)$/.test(c.type));
  if (!body) return [];
  if (STRING_EXPRESSION.test(body.type)) return [body];
  const last = namedChildren(body).at(-1);
  return last && STRING_EXPRESSION.test(last.type) ? [last] : [];
}

/** Expressions that may build a URL's text: joins, templates, interpolated strings, string literals. */
const STRING_EXPRESSION = /binary|template|string|interpolat|infix_expression|additive_expression/;

/**
 * A name the file assigns a string literal once and never again (`API = "https://api.example.com"` at module
 * level, `const API = '…'`, `const val API = "…"`): that literal wherever it is read.
 */
function fileConstant(s: WalkState, name: string): string | undefined {
  if (!/^[A-Za-z_]\w*$/.test(name)) return undefined;
  const writes = s.source.match(
    new RegExp(`(?<![\\w.$@])${name}\\s*(:[^=\\n]*)?(=(?![=>~])|\\+=|:=|<<)`, 'g'),
  );
  if (writes?.length !== 1) return undefined;
  const m = new RegExp(`(?<![\\w.$@])${name}\\s*(:[^=\\n]*)?:?=\\s*(["'\`])([^"'\`\\n]*)\\2`).exec(s.source);
  const value = m?.[3];
  return value !== undefined && !/[{$]/.test(value) ? value : undefined;
}

/** The pieces a string expression is joined from, in order (`+` and `.` joins, interpolations, `concat` calls). */
function leadingPieces(s: WalkState, node: SyntaxNode, depth: number): Piece[] {
  const flow = s.flow;
  if (!flow || depth > 12) return [];
  const kids = namedChildren(node);
  if (flow.parens.includes(node.type) || flow.tuples?.includes(node.type))
    return kids.length === 1 ? leadingPieces(s, kids[0] as SyntaxNode, depth + 1) : [];
  if (NAME_LIKE.test(node.type)) return [{ name: s.text(node) }];
  if (flow.binaries.includes(node.type)) {
    const joins = node.children.some((c) => !c.named && /^(\+|\.|\.\.|<<)$/.test(c.type));
    return joins && kids.length === 2 ? kids.flatMap((k) => leadingPieces(s, k, depth + 1)) : [];
  }
  const literals = flow.literals;
  if (literals.strings.includes(node.type) || literals.leafStrings?.includes(node.type)) {
    const pieces: Piece[] = [];
    for (const c of node.children) {
      if (literals.stringParts.includes(c.type)) pieces.push({ text: s.text(c) });
      else if (literals.interpolatedValues?.includes(c.type))
        pieces.push({ name: s.text(c).replace(/^\$/, '') });
      else if (literals.interpolations.includes(c.type)) {
        const inner = namedChildren(c);
        pieces.push(
          ...(inner.length === 1 ? leadingPieces(s, inner[0] as SyntaxNode, depth + 1) : [{ name: '' }]),
        );
      }
    }
    if (pieces.length > 0) return pieces;
    // A literal without parts (Scala's single-token string, an empty string): its text between the quotes.
    const m = /^[A-Za-z]{0,2}("""|'''|["'`])([\s\S]*)\1$/.exec(s.text(node));
    return m ? [{ text: m[2] ?? '' }] : [];
  }
  if (IS_CALL.test(node.type)) {
    const method = flow.method(node);
    const receiver = flow.receiver(node);
    if (method && receiver && flow.concat.methods.test(s.text(method)))
      return [receiver, ...callShape(s, node).args].flatMap((k) => leadingPieces(s, k, depth + 1));
  }
  return [];
}
