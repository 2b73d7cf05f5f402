import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { callParts, field, finding, namedChildren, nodesOf, parameters, textOf } from './syntax';

/**
 * Credentials carried across redirects (CWE-200, gosec G119): net/http drops Authorization, Cookie and
 * WWW-Authenticate when a redirect leaves the original host; an http.Client's CheckRedirect that copies the previous
 * request's headers onto the next one (`req.Header = via[0].Header.Clone()`) or sets a credential header again
 * sends them to whatever host the redirect names.
 */

const SENSITIVE = /^"(authorization|proxy-authorization|cookie|www-authenticate|x-api-key|x-auth-token)"$/i;

function checkRedirectPolicies(parsed: ParsedSource): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const el of nodesOf(parsed.root, 'keyed_element')) {
    const [key, value] = namedChildren(el);
    const fn = namedChildren(value)[0] ?? value;
    if (key && textOf(parsed, key) === 'CheckRedirect' && fn?.type === 'func_literal') out.push(fn);
  }
  for (const a of nodesOf(parsed.root, 'assignment_statement')) {
    const left = namedChildren(field(a, 'left'))[0];
    const right = namedChildren(field(a, 'right'))[0];
    if (left && /\.CheckRedirect$/.test(textOf(parsed, left)) && right?.type === 'func_literal')
      out.push(right);
  }
  return out;
}

export function redirectHeaderLeaks(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('CheckRedirect')) return [];
  const out: Finding[] = [];
  for (const fn of checkRedirectPolicies(parsed)) {
    const req = parameters(parsed, fn)[0]?.name;
    if (!req) continue;
    const leaks = [
      ...nodesOf(fn, 'assignment_statement').filter((a) => {
        const left = namedChildren(field(a, 'left'))[0];
        return left !== undefined && textOf(parsed, left) === `${req}.Header`;
      }),
      ...nodesOf(fn, 'call_expression').filter((c) => {
        const { callee, args } = callParts(parsed, c);
        return (
          new RegExp(`^${req}\\.Header\\.(Set|Add)$`).test(callee) &&
          args[0] !== undefined &&
          SENSITIVE.test(textOf(parsed, args[0]))
        );
      }),
    ];
    for (const at of leaks)
      out.push(
        finding(parsed, at, {
          rule_id: 'security/redirect-forwards-credentials',
          category: 'security',
          severity: 'medium',
          confidence: 'medium',
          cwe: 'CWE-200',
          message:
            "The redirect policy puts credentials (copied headers, Authorization, Cookie) on the next request, which may go to another host; let net/http drop them, or add them only when the redirect's host is the original one.",
        }),
      );
  }
  return out;
}
