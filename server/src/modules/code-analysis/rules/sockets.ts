import { argumentsOf, methodOf } from './java-scope';
import { descendants, field, type ScopedRule } from './scoped';

/**
 * Two sockets bound to the same port in one method (CWE-605): the second bind either fails, or with a more specific
 * address (or `SO_REUSEADDR`) takes over the connections meant for the first, so another process can steal them.
 */
export const SOCKET_RULES: ScopedRule[] = [
  {
    id: 'security/port-bound-twice',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-605',
    message:
      "Port {detail} is bound a second time in this method: one socket can take over the other's connections (or the bind fails). Use distinct ports.",
    needles: ['bind'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const portOf = (bind: typeof call): string | undefined => {
        if (scope.text(field(bind, 'name') ?? bind) !== 'bind') return undefined;
        const address = argumentsOf(bind)[0];
        if (address?.type !== 'object_creation_expression') return undefined;
        if (!/InetSocketAddress$/.test(scope.text(field(address, 'type') ?? address))) return undefined;
        const port = argumentsOf(address).at(-1);
        return port?.type === 'decimal_integer_literal' ? scope.text(port) : undefined;
      };
      const port = portOf(call);
      const method = methodOf(call, scope);
      if (!port || !method) return;
      const receiver = scope.text(field(call, 'object') ?? call);
      const earlier = descendants(method, ['method_invocation']).find(
        (other) =>
          other.startIndex < call.startIndex &&
          portOf(other) === port &&
          scope.text(field(other, 'object') ?? other) !== receiver,
      );
      return earlier ? { detail: port } : undefined;
    },
  },
];
