import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { field, finding, namedChildren, nodesOf, parameters, textOf } from './syntax';

/**
 * State kept by an SSH public-key callback (CWE-287, gosec G408, CVE-2024-45337): x/crypto/ssh may call
 * PublicKeyCallback for keys the client only offers and never proves it holds, so a key stored outside the callback
 * (`lastKey = key`, `s.key = key`, `keys[user] = key`) and read after the handshake may not be the one that
 * authenticated. Return it in Permissions.Extensions instead, which belongs to the successful attempt.
 */

function publicKeyCallbacks(parsed: ParsedSource): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const el of nodesOf(parsed.root, 'keyed_element')) {
    const [key, value] = namedChildren(el);
    const fn = namedChildren(value)[0] ?? value;
    if (key && textOf(parsed, key) === 'PublicKeyCallback' && fn?.type === 'func_literal') out.push(fn);
  }
  for (const a of nodesOf(parsed.root, 'assignment_statement')) {
    const left = namedChildren(field(a, 'left'))[0];
    const right = namedChildren(field(a, 'right'))[0];
    if (left && /\.PublicKeyCallback$/.test(textOf(parsed, left)) && right?.type === 'func_literal')
      out.push(right);
  }
  return out;
}

export function sshAuthState(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('PublicKeyCallback')) return [];
  const out: Finding[] = [];
  for (const fn of publicKeyCallbacks(parsed)) {
    const key = parameters(parsed, fn)[1]?.name;
    if (!key || key === '_') continue;
    // Names declared inside the callback are its own; anything else assigned outlives the attempt.
    const locals = new Set(
      nodesOf(fn, new Set(['short_var_declaration', 'var_spec'])).flatMap((d) =>
        (d.type === 'var_spec'
          ? d.children.filter((c) => c.field === 'name')
          : namedChildren(field(d, 'left'))
        ).map((n) => textOf(parsed, n)),
      ),
    );
    for (const a of nodesOf(fn, 'assignment_statement')) {
      const left = namedChildren(field(a, 'left'));
      const right = namedChildren(field(a, 'right'));
      const stored = right.some((r) => textOf(parsed, r) === key);
      const outside = left.some((l) => !locals.has(/^\w+/.exec(textOf(parsed, l))?.[0] ?? ''));
      if (stored && outside)
        out.push(
          finding(parsed, a, {
            rule_id: 'security/ssh-key-callback-state',
            category: 'security',
            severity: 'high',
            confidence: 'medium',
            cwe: 'CWE-287',
            message:
              'The public-key callback stores the offered key outside itself, but the callback also runs for keys the client never proves it holds; read the authenticated key from Permissions.Extensions returned by the callback instead.',
          }),
        );
    }
  }
  return out;
}
