import type { SyntaxNode } from '../parsing/tree';
import { field, type Scope, type ScopedRule } from './scoped';

const paramsText = (m: SyntaxNode, scope: Scope): string =>
  scope.text(field(m, 'parameters') ?? m).replace(/\s+/g, ' ');

/** The methods declared directly in a class body, by name. */
function methods(body: SyntaxNode, scope: Scope): Map<string, SyntaxNode[]> {
  const out = new Map<string, SyntaxNode[]>();
  for (const m of body.children.filter((c) => c.type === 'method_declaration')) {
    const name = scope.text(field(m, 'name') ?? m);
    out.set(name, [...(out.get(name) ?? []), m]);
  }
  return out;
}

/** `equals(Object x)` / C# `Equals(object x)`: one parameter of the root object type. */
const isEqualsOverride = (m: SyntaxNode, scope: Scope): boolean =>
  /^\(\s*(final\s+)?(java\.lang\.)?(Object|object\??)\s+\w+\s*\)$/.test(paramsText(m, scope));
const noParameters = (m: SyntaxNode, scope: Scope): boolean => /^\(\s*\)$/.test(paramsText(m, scope));

const NAMES = {
  java: { equals: 'equals', hash: 'hashCode' },
  csharp: { equals: 'Equals', hash: 'GetHashCode' },
} as const;

/**
 * The object contracts a class must keep (SpotBugs HE_EQUALS_NO_HASHCODE / HE_HASHCODE_NO_EQUALS, SonarSource
 * S1206, the C# compiler's CS0659; CERT OBJ07-J for cloneable classes that subclasses can hijack).
 */
export const OBJECT_CONTRACT_RULES: ScopedRule[] = [
  {
    id: 'bug/equals-without-hashcode',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-581',
    message:
      'This class overrides `{detail}` but not its partner: equal objects must have equal hash codes, or hash-based collections lose them. Override both.',
    needles: ['quals', 'ashCode'],
    nodes: { java: ['class_body'], csharp: ['declaration_list'] },
    test: (body, scope) => {
      const names = scope.language === 'csharp' ? NAMES.csharp : NAMES.java;
      if (body.parent?.type !== 'class_declaration' && body.parent?.type !== 'object_creation_expression')
        return;
      const byName = methods(body, scope);
      const equals = (byName.get(names.equals) ?? []).find((m) => isEqualsOverride(m, scope));
      const hash = (byName.get(names.hash) ?? []).find((m) => noParameters(m, scope));
      if (equals && !hash) return { at: equals, detail: `${names.equals}` };
      if (hash && !equals) return { at: hash, detail: `${names.hash}` };
      return undefined;
    },
  },
  {
    id: 'security/overridable-clone',
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-491',
    message:
      "This cloneable class can be subclassed and its `clone()` overridden, so a subclass can copy the object's private state out (object hijack). Make `clone()` (or the class) final.",
    needles: ['Cloneable'],
    nodes: { java: ['method_declaration'] },
    test: (method, scope) => {
      if (scope.text(field(method, 'name') ?? method) !== 'clone' || !noParameters(method, scope)) return;
      const mods = method.children.find((c) => c.type === 'modifiers');
      const modText = mods ? scope.text(mods) : '';
      if (/\b(final|private|static|abstract)\b/.test(modText)) return;
      const cls = method.parent?.parent;
      if (cls?.type !== 'class_declaration') return;
      const classMods = cls.children.find((c) => c.type === 'modifiers');
      if (classMods && /\bfinal\b/.test(scope.text(classMods))) return;
      const interfaces = field(cls, 'interfaces');
      return interfaces && /\bCloneable\b/.test(scope.text(interfaces)) ? {} : undefined;
    },
  },
];
