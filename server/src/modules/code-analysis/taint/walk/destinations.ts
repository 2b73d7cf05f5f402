/**
 * Destinations: a URL whose scheme and host the code fixes before any input joins it is no SSRF or open redirect.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { NAME_LIKE } from '../syntax';
import type { WalkState } from './state';

/**
 * A fixed scheme and host (or a relative path) heads the URL: written in the call, or in what was last assigned to
 * the local passed (`url := "https://api.example.com/v1?q=" + q` … `http.Get(url)`).
 */
export function fixedDestinationOf(s: WalkState, arg: SyntaxNode): boolean {
  if (fixedDestination(s.text(arg))) return true;
  if (headChosenByCode(s, arg)) return true;
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
