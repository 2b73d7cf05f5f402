import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { callParts, FUNCTION_TYPES, finding, nodesOf, textOf } from './syntax';

/**
 * Two HTTP message mistakes read from a handler's calls (gosec G113 and G120):
 * - a response given both `Transfer-Encoding` and `Content-Length` (CWE-444): a proxy and the server disagree on
 *   where the body ends, the opening for request/response smuggling;
 * - `ParseMultipartForm` on a request whose body is not capped with http.MaxBytesReader (CWE-400): its argument
 *   bounds only the memory used, and the rest of an upload of any size is spooled to temporary files.
 */

const headerName = (parsed: ParsedSource, call: SyntaxNode): string | undefined => {
  const { callee, args } = callParts(parsed, call);
  if (!/\.(Set|Add)$/.test(callee) || !args[0] || args.length !== 2) return undefined;
  const literal = /^"([^"]*)"$/.exec(textOf(parsed, args[0]))?.[1];
  return literal?.toLowerCase();
};

export function httpMessages(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('"net/http"')) return [];
  const out: Finding[] = [];
  for (const fn of nodesOf(parsed.root, FUNCTION_TYPES)) {
    const calls = nodesOf(fn, 'call_expression');
    const length = calls.find((c) => headerName(parsed, c) === 'content-length');
    const chunked = calls.some((c) => headerName(parsed, c) === 'transfer-encoding');
    if (length && chunked)
      out.push(
        finding(parsed, length, {
          rule_id: 'security/http-conflicting-length-headers',
          category: 'security',
          severity: 'medium',
          confidence: 'medium',
          cwe: 'CWE-444',
          message:
            'The response sets both Transfer-Encoding and Content-Length, so a proxy and the server can disagree on where the message ends (request smuggling); set one of them, and let net/http frame the body.',
        }),
      );
    const capped = /\bhttp\.MaxBytesReader\(/.test(textOf(parsed, fn));
    for (const call of calls) {
      if (capped || !/\.ParseMultipartForm$/.test(callParts(parsed, call).callee)) continue;
      out.push(
        finding(parsed, call, {
          rule_id: 'security/unbounded-multipart-form',
          category: 'security',
          severity: 'medium',
          confidence: 'medium',
          cwe: 'CWE-400',
          message:
            "ParseMultipartForm's argument only bounds the memory it uses: the rest of an upload of any size goes to temporary files; cap the body first with r.Body = http.MaxBytesReader(w, r.Body, limit).",
        }),
      );
    }
  }
  return out;
}
