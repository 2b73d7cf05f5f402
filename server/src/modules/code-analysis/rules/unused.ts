import type { CodeLanguage, Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';

/**
 * Unused local variables, where scoping makes it certain: a name declared inside a function (JS/TS `const`/`let`,
 * Python assignment to a plain name) that no other identifier in the function, nested functions included, reads.
 * Functions that use eval/locals/exec (which can read any name) are skipped.
 */
interface UnusedSpec {
  /** [declaration node type, field holding the declared name] */
  declarations: [string, string][];
  identifier: string;
  /** Node types whose text reads a name (the identifier, plus shorthand forms such as `{ x }`). */
  reads: string[];
  /** Calls that can read names dynamically. */
  dynamic: RegExp;
  /** Declarations to skip (module scope markers, ignored names). */
  ignored: RegExp;
}

const JS: UnusedSpec = {
  declarations: [['variable_declarator', 'name']],
  identifier: 'identifier',
  reads: ['identifier', 'shorthand_property_identifier'],
  dynamic: /\beval\s*\(|\bwith\s*\(/,
  ignored: /^_/,
};

const SPECS: Partial<Record<CodeLanguage, UnusedSpec>> = {
  javascript: JS,
  typescript: JS,
  tsx: JS,
  python: {
    declarations: [['assignment', 'left']],
    identifier: 'identifier',
    reads: ['identifier'],
    dynamic: /\b(locals|vars|eval|exec)\s*\(|\b(global|nonlocal)\s/,
    ignored: /^_/,
  },
};

export const UNUSED_RULE_ID = 'bug/unused-variable';

export function unusedVariables(parsed: ParsedSource): Finding[] {
  const spec = SPECS[parsed.language];
  if (!spec) return [];
  const profile = PROFILES[parsed.language];
  const { source } = parsed;
  const findings: Finding[] = [];
  const visitFunction = (fn: SyntaxNode): void => {
    if (spec.dynamic.test(source.slice(fn.startIndex, fn.endIndex))) return;
    const declared: SyntaxNode[] = [];
    const uses = new Map<string, number>();
    const stack: SyntaxNode[] = [...fn.children];
    while (stack.length > 0) {
      const node = stack.pop() as SyntaxNode;
      if (spec.reads.includes(node.type)) {
        const name = source.slice(node.startIndex, node.endIndex);
        uses.set(name, (uses.get(name) ?? 0) + 1);
      }
      const decl = spec.declarations.find(([type]) => type === node.type);
      if (decl && ownFunction(node, profile.functions) === fn) {
        const target = node.children.find((c) => c.field === decl[1]);
        // Only plain names: destructuring and attributes have other readers.
        if (target && target.type === spec.identifier && isLocalDeclaration(node, parsed.language))
          declared.push(target);
      }
      for (const child of node.children) stack.push(child);
    }
    const reported = new Set<string>();
    for (const target of declared) {
      const name = source.slice(target.startIndex, target.endIndex);
      if (spec.ignored.test(name) || reported.has(name)) continue;
      const assignments = declared.filter((d) => source.slice(d.startIndex, d.endIndex) === name).length;
      if ((uses.get(name) ?? 0) > assignments) continue;
      reported.add(name);
      findings.push({
        rule_id: UNUSED_RULE_ID,
        category: 'bug',
        severity: 'low',
        confidence: 'high',
        message: `Local variable '${name}' is assigned but never read; remove it, or use it where it was meant to be used.`,
        ...locate(parsed, target),
        cwe: null,
      });
    }
  };
  const walk = (node: SyntaxNode): void => {
    for (const child of node.children) {
      if (child.named && profile.functions[child.type]) visitFunction(child);
      walk(child);
    }
  };
  walk(parsed.root);
  return findings;
}

function ownFunction(node: SyntaxNode, functions: Record<string, string>): SyntaxNode | undefined {
  let p = node.parent;
  while (p && !(p.named && functions[p.type])) p = p.parent;
  return p ?? undefined;
}

/** JS: `let`/`const` (block-scoped, certain); `var` too inside a function. Python: any assignment in a function. */
function isLocalDeclaration(node: SyntaxNode, language: CodeLanguage): boolean {
  if (language === 'python') return node.parent?.type === 'expression_statement';
  return node.parent?.type === 'lexical_declaration' || node.parent?.type === 'variable_declaration';
}
