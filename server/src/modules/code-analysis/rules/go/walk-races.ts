import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { callParts, field, finding, namedChildren, nodesOf, parameters, textOf } from './syntax';

/**
 * Check-then-use races in directory walks (CWE-367, gosec G122): the path filepath.Walk/WalkDir hands its callback
 * was looked at a moment before; by the time the callback removes, opens for writing, renames or chmods it, another
 * process may have swapped it for a symlink to a file outside the tree. os.Root (Go 1.24) resolves names inside
 * the root without following such links; its methods are not reported.
 */

const MUTATORS =
  /^os\.(Remove|RemoveAll|OpenFile|Create|Chmod|Chown|Lchown|Chtimes|Rename|WriteFile|Truncate|Symlink|Link)$/;

const mentions = (text: string, names: Set<string>): boolean =>
  [...names].some((n) => new RegExp(`(^|[^\\w.])${n}($|[^\\w])`).test(text));

export function walkRaces(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('path/filepath')) return [];
  const out: Finding[] = [];
  for (const walk of nodesOf(parsed.root, 'call_expression')) {
    const { callee, args } = callParts(parsed, walk);
    const callback = args[1];
    if (!/^filepath\.(Walk|WalkDir)$/.test(callee) || callback?.type !== 'func_literal') continue;
    const path = parameters(parsed, callback)[0]?.name;
    if (!path || path === '_') continue;
    // The walked path and the locals built from it (`target := path + ".bak"`).
    const names = new Set([path]);
    for (const d of nodesOf(callback, 'short_var_declaration')) {
      const right = textOf(parsed, field(d, 'right') ?? d);
      if (mentions(right, names))
        for (const l of namedChildren(field(d, 'left')))
          if (l.type === 'identifier') names.add(textOf(parsed, l));
    }
    for (const call of nodesOf(callback as SyntaxNode, 'call_expression')) {
      const used = callParts(parsed, call);
      if (!MUTATORS.test(used.callee) || !used.args.some((a) => mentions(textOf(parsed, a), names))) continue;
      out.push(
        finding(parsed, call, {
          rule_id: 'security/walk-path-race',
          category: 'security',
          severity: 'medium',
          confidence: 'medium',
          cwe: 'CWE-367',
          message: `\`${used.callee}\` acts on a path the directory walk saw earlier; it may have been replaced by a symlink since (check-then-use race). Open the tree with os.OpenRoot and remove, open or rename through the Root.`,
        }),
      );
    }
  }
  return out;
}
