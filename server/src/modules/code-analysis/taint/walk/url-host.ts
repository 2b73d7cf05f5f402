/**
 * A URL whose host is input, where the URL is built (Semgrep's `tainted-url-host` rules, CWE-918): a scheme then,
 * at once, a value from the request (`"https://" . $_GET['host'] . "/api"`, `f"https://{env}/v1"`,
 * `"https://%s/" % (host,)`, `sprintf('https://%s/', $_COOKIE['h'])`, `"http://#{params[:h]}/"`). The request
 * then chooses which server the code talks to (an internal one), whatever the path says. Reported at the
 * construction, where the fix goes (an allow-list of hosts), even when the request is sent elsewhere; a literal host
 * before the input (`"https://api.example.com/" + id`) chooses only a path and is not this.
 */
import type { SyntaxNode } from '../../parsing/tree';
import type { WalkState } from './state';

/** The text just after `://` in a string's literal part: nothing, or a placeholder the next value fills. */
const HOST_SLOT = /^(%[sdr]|%\([^)]*\)s|\{\d*\}|\{[a-z_]\w*\})|^$/i;
const SCHEME = /(?:^|["'`])(https?|wss?|ftp):\/\/(.*)$/is;
const LITERAL_PART = /string|fragment|content|escape|text|quote|^["'`]$/;
/** Names of a member, method or called function: not a value the URL holds. */
const NAME_FIELDS = new Set(['attribute', 'property', 'method', 'name', 'function', 'field']);

/** Leaves in source order. */
function leaves(node: SyntaxNode, out: SyntaxNode[] = []): SyntaxNode[] {
  if (node.children.length === 0) out.push(node);
  for (const c of node.children) leaves(c, out);
  return out;
}

/** The value the host comes from: the first value after a literal `scheme://` that leaves the host open. */
function hostValue(s: WalkState, value: SyntaxNode): SyntaxNode | undefined {
  const all = leaves(value);
  const at = all.findIndex((l) => {
    const m = SCHEME.exec(s.text(l));
    return m !== null && HOST_SLOT.test((m[2] ?? '').replace(/["'`]+$/, ''));
  });
  if (at < 0) return undefined;
  const next = all
    .slice(at + 1)
    .find(
      (l) =>
        l.named &&
        !LITERAL_PART.test(l.type) &&
        !NAME_FIELDS.has(l.field ?? '') &&
        !(l.parent && NAME_FIELDS.has(l.parent.field ?? '') && l.parent.children.length === 1),
    );
  if (!next) return undefined;
  // The whole operand the leaf starts: `$_GET['h']`, `params[:h]`, `request.POST.get("h")`.
  let node = next;
  while (node.parent && node.parent !== value && startsOperand(node, node.parent)) node = node.parent;
  return node;
}

/** `node` begins `parent`'s value: at the same offset, or after only punctuation (PHP's `$` of `$name`). */
function startsOperand(node: SyntaxNode, parent: SyntaxNode): boolean {
  if (parent.startIndex === node.startIndex) return true;
  return OPERAND.test(parent.type) && parent.children.find((c) => c.named) === node;
}
const OPERAND = /variable|subscript|member|attribute|element_reference|field|scoped/;

export function checkUrlHost(s: WalkState, at: SyntaxNode, value: SyntaxNode): void {
  if (!/:\/\//.test(s.text(value))) return;
  const host = hostValue(s, value);
  if (!host) return;
  const taint = s.evaluate(host).taint;
  // Input only: a parameter or a value of unknown origin may be the code's own configuration.
  if (!taint || taint.weak || taint.audit || taint.numeric) return;
  s.flag('ssrf', at, `the host of ${s.text(value).slice(0, 60)}`, taint);
}
