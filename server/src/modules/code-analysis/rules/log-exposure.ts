import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf, declaredType, methodOf } from './java-scope';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

/** `session.getId()` (an `HttpSession`), `request.getSession().getId()`, `getRequestedSessionId()`. */
function readsSessionId(node: SyntaxNode, scope: Scope): boolean {
  return descendants(node, ['method_invocation']).some((call) => {
    const name = scope.text(field(call, 'name') ?? call);
    if (name === 'getRequestedSessionId') return true;
    if (name !== 'getId') return false;
    const object = field(call, 'object');
    if (!object) return false;
    if (object.type === 'method_invocation') return /\bgetSession\s*\(/.test(scope.text(object));
    return object.type === 'identifier' && declaredType(scope.text(object), call, scope) === 'HttpSession';
  });
}

/**
 * Whether the value of `name` (a local of the method) is built from something matching `origin`: its
 * assignments' right-hand sides, and the locals they wrap (`new PrintWriter(new OutputStreamWriter(System.err))`
 * through two locals).
 */
function builtFrom(name: string, at: SyntaxNode, origin: RegExp, scope: Scope, depth = 0): boolean {
  const method = methodOf(at, scope);
  if (!method || depth > 4) return false;
  const values: SyntaxNode[] = [];
  for (const d of descendants(method, ['variable_declarator', 'assignment_expression'])) {
    const target = d.type === 'variable_declarator' ? field(d, 'name') : field(d, 'left');
    const value = d.type === 'variable_declarator' ? field(d, 'value') : field(d, 'right');
    if (target && value && scope.text(target) === name) values.push(value);
  }
  return values.some(
    (v) =>
      origin.test(scope.text(v)) ||
      descendants(v, ['identifier'])
        .map((i) => scope.text(i))
        .some((i) => i !== name && builtFrom(i, at, origin, scope, depth + 1)),
  );
}

const DEBUG_LEVEL = /\bLevel\.(FINE|FINER|FINEST|CONFIG|ALL)\b/;
const DEBUG_METHOD = /^(debug|trace|fine|finer|finest)$/;
const PRINTS = /^(print|println|printf|format|write|append)$/;

type Sink = { cwe: string; detail: string };

/** Where a call writes: the server's log, a debug log, or the process's stderr. */
function sinkOf(call: SyntaxNode, scope: Scope): Sink | undefined {
  const name = scope.text(field(call, 'name') ?? call);
  const object = field(call, 'object');
  const objectText = object ? scope.text(object) : '';
  if (name === 'log' && (!object || objectText === 'this' || /getServletContext\(\)$/.test(objectText)))
    return { cwe: 'CWE-533', detail: 'the server log' };
  if (object && DEBUG_METHOD.test(name)) return { cwe: 'CWE-534', detail: 'a debug log' };
  if (
    object &&
    name === 'log' &&
    argumentsOf(call)[0] &&
    DEBUG_LEVEL.test(scope.text(argumentsOf(call)[0] as SyntaxNode))
  )
    return { cwe: 'CWE-534', detail: 'a debug log' };
  if (PRINTS.test(name) && object) {
    if (objectText === 'System.err') return { cwe: 'CWE-535', detail: 'standard error' };
    if (object.type === 'identifier' && builtFrom(objectText, call, /\bSystem\.err\b/, scope))
      return { cwe: 'CWE-535', detail: 'standard error' };
  }
  return undefined;
}

/** A servlet response's writer or stream: `response.getWriter()`, or a local holding one. */
const toResponse = (call: SyntaxNode, scope: Scope): boolean => {
  const object = field(call, 'object');
  if (!object) return false;
  const text = scope.text(object);
  if (/\bget(Writer|OutputStream)\s*\(\s*\)$/.test(text)) return true;
  return object.type === 'identifier' && builtFrom(text, call, /\bget(Writer|OutputStream)\s*\(\s*\)/, scope);
};

/**
 * Sensitive values written where they should not go (CWE-532 and its children; SonarSource S2068's relatives,
 * Fortify "Privacy Violation"): the session ID (which lets whoever reads it take over the session) into the server
 * log, a debug log or stderr, and environment variables into an HTTP response.
 */
export const LOG_EXPOSURE_RULES: ScopedRule[] = [
  {
    id: 'security/session-id-logged',
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-532',
    message:
      'The session ID is written to {detail}: whoever reads it can take over the session. Log a hash of it, or nothing.',
    needles: ['getId', 'getRequestedSessionId'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const sink = sinkOf(call, scope);
      if (!sink || !argumentsOf(call).some((a) => readsSessionId(a, scope))) return;
      return sink;
    },
  },
  {
    id: 'security/environment-in-response',
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-526',
    message:
      'An environment variable (`{detail}`) is written into the HTTP response: it tells an attacker about the server (paths, accounts, keys). Leave it out.',
    needles: ['getenv'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const name = scope.text(field(call, 'name') ?? call);
      if (!PRINTS.test(name) || !toResponse(call, scope)) return;
      for (const arg of argumentsOf(call))
        for (const inner of descendants(arg, ['method_invocation']))
          if (/^System\.getenv\b/.test(scope.text(inner))) return { detail: scope.text(inner) };
      return undefined;
    },
  },
];
