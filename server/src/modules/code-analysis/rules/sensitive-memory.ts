import { assignedName, callsOn, localDeclaration } from './java-scope';
import type { ScopedRule } from './scoped';

const SECRET_NAME = /^(password|passwd|passphrase|pwd|pin|secret|secretKey|privateKey)\w*$/i;
const CLEARS = /^(setLength|delete|replace)$/;

/**
 * A password kept in a mutable buffer and not wiped after use (CWE-226; CERT MSC59-J): `StringBuilder`/`StringBuffer`
 * exist for secrets precisely so they can be cleared; left as is, the password stays in the heap (and heap dumps)
 * until the memory is reused. Clear it in `finally` (`setLength(0)`, `Arrays.fill` for a `char[]`).
 */
export const SENSITIVE_MEMORY_RULES: ScopedRule[] = [
  {
    id: 'security/secret-buffer-not-cleared',
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-226',
    message:
      'The secret in `{detail}` is never cleared: it stays in memory after use. Wipe it in a `finally` block.',
    needles: ['StringBuffer', 'StringBuilder'],
    nodes: { java: ['object_creation_expression'] },
    test: (creation, scope) => {
      if (!/^(java\.lang\.)?String(Buffer|Builder)\(/.test(scope.text(creation).replace(/^new\s+/, '')))
        return;
      const name = assignedName(creation, scope);
      if (!name || !SECRET_NAME.test(name)) return;
      const local = localDeclaration(name, creation, scope);
      if (!local) return;
      const calls = callsOn(local.block, name, scope);
      if (!calls.some((c) => c.method === 'append' || c.method === 'insert')) return;
      return calls.some((c) => CLEARS.test(c.method)) ? undefined : { detail: name };
    },
  },
];
