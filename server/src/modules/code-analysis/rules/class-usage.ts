import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf, declaredType } from './java-scope';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

/** Private methods the JVM or a framework calls by name (serialization hooks). */
const CALLED_BY_NAME = /^(writeObject|readObject|readObjectNoData|writeReplace|readResolve|finalize)$/;

/** The classes declared in the file, by simple name. */
function classesOf(root: SyntaxNode, scope: Scope): Map<string, SyntaxNode> {
  const out = new Map<string, SyntaxNode>();
  for (const c of descendants(root, ['class_declaration'])) out.set(scope.text(field(c, 'name') ?? c), c);
  return out;
}

const rootOf = (node: SyntaxNode): SyntaxNode => {
  let n = node;
  while (n.parent) n = n.parent;
  return n;
};

/**
 * Class-level checks (SonarSource S1144 / PMD UnusedPrivateMethod, CWE-561; SpotBugs
 * J2EE_STORE_OF_NON_SERIALIZABLE_OBJECT_INTO_SESSION, CWE-579).
 */
export const CLASS_USAGE_RULES: ScopedRule[] = [
  {
    id: 'bug/unused-private-method',
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-561',
    message: 'The private method `{detail}` is never called: it is dead code. Remove it.',
    needles: ['private'],
    nodes: { java: ['method_declaration'] },
    test: (method, scope) => {
      const mods = method.children.find((c) => c.type === 'modifiers');
      if (!mods || !/\bprivate\b/.test(scope.text(mods)) || /@/.test(scope.text(mods))) return;
      const name = scope.text(field(method, 'name') ?? method);
      if (CALLED_BY_NAME.test(name)) return;
      // Any other mention of the name (a call, a method reference `this::name`, a string for reflection) counts as a use.
      const uses = descendants(rootOf(method), ['identifier', 'string_fragment']).filter(
        (n) => n !== field(method, 'name') && scope.text(n) === name,
      );
      return uses.length === 0 ? { at: field(method, 'name') ?? method, detail: name } : undefined;
    },
  },
  {
    id: 'bug/non-serializable-in-session',
    category: 'bug',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-579',
    message:
      '`{detail}` is not Serializable but is stored in the HTTP session: the container cannot persist or replicate the session (failover loses it, or it throws). Make the class Serializable.',
    needles: ['setAttribute'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      if (scope.text(field(call, 'name') ?? call) !== 'setAttribute') return;
      const object = field(call, 'object');
      if (!object) return;
      const onSession =
        /\bgetSession\s*\([^)]*\)$/.test(scope.text(object)) ||
        (object.type === 'identifier' && declaredType(scope.text(object), call, scope) === 'HttpSession');
      const value = argumentsOf(call)[1];
      if (!onSession || value?.type !== 'identifier') return;
      const type = declaredType(scope.text(value), call, scope);
      const cls = type ? classesOf(rootOf(call), scope).get(type) : undefined;
      // Only a class of this file with no superclass and no Serializable interface is certainly not Serializable.
      if (!cls || field(cls, 'superclass')) return;
      const interfaces = field(cls, 'interfaces');
      return interfaces && /\b(Serializable|Externalizable)\b/.test(scope.text(interfaces))
        ? undefined
        : { detail: type };
    },
  },
];
