import type { SyntaxNode } from '../parsing/tree';
import { classOf } from './java-scope';
import { field, type Scope, type ScopedRule } from './scoped';

/** The names of the methods a class declares `native`. */
function nativeMethods(cls: SyntaxNode, scope: Scope): Set<string> {
  const body = field(cls, 'body');
  const out = new Set<string>();
  for (const m of body?.children.filter((c) => c.type === 'method_declaration') ?? []) {
    const mods = m.children.find((c) => c.type === 'modifiers');
    if (mods && /\bnative\b/.test(scope.text(mods))) out.add(scope.text(field(m, 'name') ?? m));
  }
  return out;
}

/**
 * Native code (Fortify "Unsafe JNI", "Process Control"): a call into a `native` method leaves the JVM's memory
 * safety (CWE-111: check every argument's bounds before it crosses); `System.loadLibrary` finds the library through
 * `java.library.path` and the platform's search order, which whoever controls the environment or working directory
 * can point elsewhere (CWE-114: load by absolute path with `System.load`). Windows `LoadLibrary` with a bare name
 * and Python `ctypes` loading a bare name search the same way.
 */
export const NATIVE_CODE_RULES: ScopedRule[] = [
  {
    id: 'security/native-method-call',
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-111',
    message:
      '`{detail}` calls a native (JNI) method: the Java checks stop at this call, and a length or index passed unchecked can corrupt memory. Validate every argument first.',
    needles: ['native'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const object = field(call, 'object');
      if (object && scope.text(object) !== 'this') return;
      const cls = classOf(call, scope);
      const name = scope.text(field(call, 'name') ?? call);
      return cls && nativeMethods(cls, scope).has(name) ? { detail: name } : undefined;
    },
  },
  {
    id: 'security/library-search-path',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-114',
    message:
      '`{detail}` loads a library by name through the search path, which the environment (or the working directory) decides; load it by absolute path.',
    needles: ['loadLibrary', 'LoadLibrary', 'CDLL', 'WinDLL'],
    nodes: {
      java: ['method_invocation'],
      c: ['call_expression'],
      cpp: ['call_expression'],
      python: ['call'],
    },
    test: (call, scope) => {
      const text = scope.text(call).replace(/\s+/g, '');
      if (scope.language === 'java')
        return /^(System|Runtime\.getRuntime\(\))\.loadLibrary\(/.test(text) ? { detail: text } : undefined;
      // C and Python: only a literal bare name (no directory) is searched for.
      const bare =
        /^(LoadLibrary(A|W|ExA|ExW)?|(ctypes\.)?(cdll\.LoadLibrary|CDLL|WinDLL|windll\.LoadLibrary))\((L|u8?)?["']([^"'/\\]+)["']/.exec(
          text,
        );
      return bare ? { detail: text } : undefined;
    },
  },
];
