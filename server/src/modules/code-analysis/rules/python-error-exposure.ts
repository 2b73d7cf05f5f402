import type { SyntaxNode } from '../parsing/tree';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

/**
 * A Python web handler that sends the stack trace back to the client (CWE-209, CodeQL py/stack-trace-exposure):
 * `traceback.format_exc()` returned, or put in the response it returns, directly or through a local. A trace that
 * is only logged is not reported. A handler is a function decorated as a route (`@app.route`, `@router.get`…) or a
 * Django view (its first parameter is `request`).
 */
const TRACE = /^traceback\.(format_exc|format_exception|format_tb|format_stack)$/;
const ROUTE = /^@\w+(\.\w+)*\.(route|get|post|put|patch|delete|api_route|websocket)\(/;

function isHandler(fn: SyntaxNode, scope: Scope): boolean {
  const first = field(fn, 'parameters')?.children.find((c) => c.named);
  if (first && /^request\b/.test(scope.text(first))) return true;
  const decorated = fn.parent?.type === 'decorated_definition' ? fn.parent : undefined;
  return (decorated?.children ?? []).some((d) => d.type === 'decorator' && ROUTE.test(scope.text(d)));
}

const within = (n: SyntaxNode, types: string[], stop: SyntaxNode): boolean => {
  for (let p = n.parent; p && p !== stop; p = p.parent) if (types.includes(p.type)) return true;
  return false;
};

export const PYTHON_ERROR_EXPOSURE_RULES: ScopedRule[] = [
  {
    id: 'security/stack-trace-exposure',
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-209',
    message:
      'The stack trace ({detail}) is sent to the client, with file paths, code and library versions; log it and return a generic message.',
    nodes: { python: ['call'] },
    needles: ['traceback'],
    test: (call, scope) => {
      const callee = scope.text(field(call, 'function') ?? call).replace(/\s+/g, '');
      if (!TRACE.test(callee)) return;
      const fn = scope.enclosing(call, ['function_definition']);
      if (!fn || !isHandler(fn, scope)) return;
      if (within(call, ['return_statement'], fn)) return { detail: callee };
      // `tb = traceback.format_exc()` … `return jsonify(error=tb)`.
      const assignment = call.parent?.type === 'assignment' ? call.parent : undefined;
      const name = assignment && field(assignment, 'left');
      if (name?.type !== 'identifier') return;
      const returned = descendants(fn, ['identifier']).some(
        (n) => scope.text(n) === scope.text(name) && within(n, ['return_statement'], fn),
      );
      return returned ? { detail: callee } : undefined;
    },
  },
];
