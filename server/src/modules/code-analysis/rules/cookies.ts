import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';

const MESSAGE =
  'cookie `{name}` is added to the response without setSecure(true), so it is also sent over plain HTTP; call {name}.setSecure(true) (and setHttpOnly(true)) before adding it.';

const text = (parsed: ParsedSource, n: SyntaxNode) =>
  parsed.source.slice(n.startIndex, n.endIndex).replace(/\s+/g, '');

/**
 * Java servlet cookies (CWE-614): `response.addCookie(c)` where the same function never calls `c.setSecure(true)`.
 * The check reads the function the cookie is added in, so a flag set in a helper is not seen (a false positive).
 */
export function insecureCookies(parsed: ParsedSource): Finding[] {
  if (parsed.language !== 'java' || !parsed.source.includes('addCookie')) return [];
  const functions = PROFILES.java.functions;
  const out: Finding[] = [];
  walk(parsed.root, (node) => {
    if (node.type !== 'method_invocation') return true;
    const name = node.children.find((c) => c.field === 'name');
    const args = node.children.find((c) => c.field === 'arguments');
    if (!name || !args || text(parsed, name) !== 'addCookie') return true;
    const cookie = args.children.find((c) => c.named);
    if (cookie?.type !== 'identifier') return true;
    let scope: SyntaxNode | null = node.parent;
    while (scope && !functions[scope.type]) scope = scope.parent;
    const body = text(parsed, scope ?? parsed.root);
    const cookieName = text(parsed, cookie);
    if (body.includes(`${cookieName}.setSecure(true)`)) return true;
    out.push({
      rule_id: 'security/insecure-cookie',
      category: 'security',
      severity: 'medium',
      confidence: 'high',
      message: MESSAGE.replaceAll('{name}', cookieName),
      ...locate(parsed, node),
      cwe: 'CWE-614',
    });
    return true;
  });
  return out;
}
