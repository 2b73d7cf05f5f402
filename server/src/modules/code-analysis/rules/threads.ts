import { argumentsOf, declaredType, methodOf } from './java-scope';
import { field, type ScopedRule } from './scoped';

/** Servlet request handlers: a method given the request or response, or any method of a servlet class. */
const SERVLET_TYPES = /\bHttpServlet(Request|Response)\b/;

/**
 * Threads used wrongly (SpotBugs RU_INVOKE_RUN; the J2EE bad practice of managing threads in a container, Fortify
 * "J2EE Bad Practices: Threads", CWE-383).
 */
export const THREAD_RULES: ScopedRule[] = [
  {
    id: 'bug/thread-run-called',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-572',
    message:
      "`{detail}.run()` runs the thread's body in the calling thread; no new thread is started. Call `start()`.",
    needles: ['.run('],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const object = field(call, 'object');
      if (object?.type !== 'identifier' || scope.text(field(call, 'name') ?? call) !== 'run') return;
      if (argumentsOf(call).length > 0) return;
      const name = scope.text(object);
      return declaredType(name, call, scope) === 'Thread' ? { detail: name } : undefined;
    },
  },
  {
    id: 'security/thread-in-servlet',
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-383',
    message:
      'A thread is created by hand inside a servlet request handler: the container manages threads and cannot stop, account for or propagate context to this one. Use a managed executor (`ManagedExecutorService`, an async servlet).',
    needles: ['Thread'],
    nodes: { java: ['object_creation_expression'] },
    test: (creation, scope) => {
      if (scope.text(field(creation, 'type') ?? creation).replace(/^java\.lang\./, '') !== 'Thread') return;
      const method = methodOf(creation, scope);
      const params = method && field(method, 'parameters');
      return params && SERVLET_TYPES.test(scope.text(params)) ? {} : undefined;
    },
  },
];
