import type { CodeLanguage, Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';

const MESSAGE =
  'cookie `{name}` is added to the response without setSecure(true), so it is also sent over plain HTTP; call {name}.setSecure(true) (and setHttpOnly(true)) before adding it.';

const text = (parsed: ParsedSource, n: SyntaxNode) =>
  parsed.source.slice(n.startIndex, n.endIndex).replace(/\s+/g, '');

/** Servlet `addCookie(c)` calls per JVM language: the call's node type and its text (`response.addCookie(c)`). */
const ADD_COOKIE: Partial<Record<CodeLanguage, { type: string; call: RegExp }>> = {
  java: { type: 'method_invocation', call: /^(?:.*\.)?addCookie\((\w+)\)$/ },
  kotlin: { type: 'call_expression', call: /^(?:.*\.)?addCookie\((\w+)\)$/ },
};

/**
 * Servlet cookies (CWE-614) in Java and Kotlin: `response.addCookie(c)` where the same function never sets `c`'s
 * Secure flag (`c.setSecure(true)`, Kotlin's `c.secure = true` / `c.isSecure = true`). The check reads the function
 * the cookie is added in, so a flag set in a helper is not seen (a false positive).
 */
export function insecureCookies(parsed: ParsedSource): Finding[] {
  const spec = ADD_COOKIE[parsed.language];
  if (!spec || !parsed.source.includes('addCookie')) return [];
  const functions = PROFILES[parsed.language].functions;
  const out: Finding[] = [];
  walk(parsed.root, (node) => {
    if (node.type !== spec.type) return true;
    const cookieName = spec.call.exec(text(parsed, node))?.[1];
    if (!cookieName) return true;
    let scope: SyntaxNode | null = node.parent;
    while (scope && !functions[scope.type]) scope = scope.parent;
    const body = text(parsed, scope ?? parsed.root);
    const secured = [
      `${cookieName}.setSecure(true)`,
      `${cookieName}.secure=true`,
      `${cookieName}.isSecure=true`,
    ];
    if (secured.some((s) => body.includes(s))) return true;
    // A flag read from configuration (`c.setSecure(props.isSecure())`, Kotlin's `c.secure = props.secure`) is the
    // deployment's choice.
    if (body.includes(`${cookieName}.setSecure(`) && !body.includes(`${cookieName}.setSecure(false)`))
      return true;
    if (new RegExp(`${cookieName}\\.(is)?[sS]ecure=(?!false\\b)`).test(body)) return true;
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
