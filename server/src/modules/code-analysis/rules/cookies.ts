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

/** A cookie's Secure or HttpOnly flag turned off explicitly: `c.setSecure(false)`, Kotlin `c.isHttpOnly = false`. */
const FLAG_CALL = /^(\w+)\.set(Secure|HttpOnly)\(false\)$/;
const FLAG_ASSIGNMENT = /^(\w+)\.(?:is)?(secure|httpOnly|Secure|HttpOnly)=false$/;
const FLAG_OFF = ['.setSecure(false)', '.secure=false', '.isSecure=false'];

function disabledFlag(parsed: ParsedSource, node: SyntaxNode, callType: string): Finding | undefined {
  if (node.type !== callType && node.type !== 'assignment') return undefined;
  const code = text(parsed, node);
  const match = (node.type === 'assignment' ? FLAG_ASSIGNMENT : FLAG_CALL).exec(code);
  if (!match) return undefined;
  const secure = match[2]?.toLowerCase() === 'secure';
  return {
    rule_id: secure ? 'security/insecure-cookie' : 'security/cookie-without-httponly',
    category: 'security',
    severity: secure ? 'medium' : 'low',
    confidence: 'high',
    message: secure
      ? `cookie \`${match[1]}\` is marked not Secure, so it is also sent over plain HTTP; set ${match[1]}.setSecure(true).`
      : `cookie \`${match[1]}\` is made readable by page scripts (HttpOnly off), so an XSS can steal it; set ${match[1]}.setHttpOnly(true).`,
    ...locate(parsed, node),
    cwe: secure ? 'CWE-614' : 'CWE-1004',
  };
}

/** The Secure flag set (or read from configuration), or turned off where disabledFlag reports it. */
function secureHandled(body: string, name: string): boolean {
  if (
    [`${name}.setSecure(true)`, `${name}.secure=true`, `${name}.isSecure=true`].some((s) => body.includes(s))
  )
    return true;
  // Turned off in so many words: reported where it is turned off (disabledFlag), not again here.
  if (FLAG_OFF.some((f) => body.includes(`${name}${f}`))) return true;
  // A flag read from configuration (`c.setSecure(props.isSecure())`, Kotlin's `c.secure = props.secure`) is the
  // deployment's choice.
  if (body.includes(`${name}.setSecure(`)) return true;
  return new RegExp(`${name}\\.(is)?[sS]ecure=(?!false\\b)`).test(body);
}

/**
 * HttpOnly (CWE-1004, Semgrep's cookie-missing-httponly): reported only for a cookie the function creates itself
 * (`new Cookie(…)`, Kotlin `Cookie(…)`) and hands to no other call than addCookie, whose HttpOnly flag it never
 * touches; a flag set in any way (`setHttpOnly(cfg.httpOnly())`), or off in so many words (reported by
 * disabledFlag), is handled.
 */
function httpOnlyHandled(body: string, name: string): boolean {
  if (!new RegExp(`${name}(:\\w+)?=(new)?Cookie\\(`).test(body)) return true;
  if (new RegExp(`${name}\\.(setHttpOnly\\(|(is)?[hH]ttpOnly=)`).test(body)) return true;
  const passed = body.match(new RegExp(`[(,]${name}[),]`, 'g'))?.length ?? 0;
  const added = body.match(new RegExp(`addCookie\\(${name}\\)`, 'g'))?.length ?? 0;
  return passed > added;
}

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
    const disabled = disabledFlag(parsed, node, spec.type);
    if (disabled) {
      out.push(disabled);
      return true;
    }
    if (node.type !== spec.type) return true;
    const cookieName = spec.call.exec(text(parsed, node))?.[1];
    if (!cookieName) return true;
    let scope: SyntaxNode | null = node.parent;
    while (scope && !functions[scope.type]) scope = scope.parent;
    const body = text(parsed, scope ?? parsed.root);
    if (!httpOnlyHandled(body, cookieName))
      out.push({
        rule_id: 'security/cookie-without-httponly',
        category: 'security',
        severity: 'low',
        confidence: 'medium',
        message: `cookie \`${cookieName}\` is added without setHttpOnly(true), so page scripts (and an XSS) can read it; call ${cookieName}.setHttpOnly(true) unless scripts must read it.`,
        ...locate(parsed, node),
        cwe: 'CWE-1004',
      });
    if (secureHandled(body, cookieName)) return true;
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
