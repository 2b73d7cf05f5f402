import type { CodeLanguage, Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';

/**
 * Unused local variables, where scoping makes it certain: a name declared inside a function (JS/TS `const`/`let`,
 * Python assignment to a plain name, Go `:=`/`var`, Rust `let`, Java/C# local declarations, Kotlin/Swift/Scala
 * local `val`/`var`/`let`) that no other identifier in the function, nested functions included, reads.
 * Functions that use eval/locals/exec (which can read any name) are skipped. C/C++ (the preprocessor can read any
 * name), PHP (`compact`, `$$name`) and Ruby (`binding`) are left out.
 */
interface UnusedSpec {
  /** [declaration node type, where its name is: a field, or `type:<node type>`] */
  declarations: [string, string][];
  identifier: string;
  /** Node types holding several declared names (Go's `a, b := …`). */
  lists?: string[];
  /** Node types whose text reads a name (the identifier, plus shorthand forms such as `{ x }`). */
  reads: string[];
  /** Names read inside string literals (Rust's `format!("{x}")`): a pattern whose group 1 is the name. */
  stringReads?: { types: string[]; pattern: RegExp };
  /** Calls that can read names dynamically. */
  dynamic: RegExp;
  /** Declarations to skip (module scope markers, ignored names). */
  ignored: RegExp;
  /** True when the declaration node is a local declaration statement (not a field or a module-level name). */
  local: (decl: SyntaxNode) => boolean;
  /** Node types of a plain assignment (`x = v`): its left-hand name is written, not read. */
  assignments?: string[];
}

const parentIs =
  (...types: string[]) =>
  (node: SyntaxNode): boolean =>
    node.parent !== null && types.includes(node.parent.type);

const JS: UnusedSpec = {
  declarations: [['variable_declarator', 'name']],
  identifier: 'identifier',
  reads: ['identifier', 'shorthand_property_identifier'],
  dynamic: /\beval\s*\(|\bwith\s*\(/,
  ignored: /^_/,
  // `let`/`const` (block-scoped, certain); `var` too inside a function.
  local: parentIs('lexical_declaration', 'variable_declaration'),
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
    local: parentIs('expression_statement'),
  },
  go: {
    declarations: [
      ['short_var_declaration', 'left'],
      ['var_spec', 'name'],
    ],
    identifier: 'identifier',
    lists: ['expression_list'],
    reads: ['identifier'],
    dynamic: /$^/,
    ignored: /^_$/,
    // A var_spec inside a function body (package-level ones have no enclosing function).
    local: (n) => n.type === 'short_var_declaration' || n.parent?.type === 'var_declaration',
  },
  rust: {
    declarations: [['let_declaration', 'pattern']],
    identifier: 'identifier',
    reads: ['identifier'],
    stringReads: { types: ['string_literal', 'raw_string_literal'], pattern: /\{(\w+)(?::[^}]*)?\}/g },
    dynamic: /$^/,
    ignored: /^_/,
    local: () => true,
  },
  java: {
    declarations: [['variable_declarator', 'name']],
    identifier: 'identifier',
    reads: ['identifier'],
    dynamic: /$^/,
    ignored: /^_$/,
    local: parentIs('local_variable_declaration'),
    assignments: ['assignment_expression'],
  },
  csharp: {
    declarations: [['variable_declarator', 'name']],
    identifier: 'identifier',
    reads: ['identifier'],
    dynamic: /$^/,
    ignored: /^_$/,
    local: (n) =>
      n.parent?.type === 'variable_declaration' && n.parent.parent?.type === 'local_declaration_statement',
    assignments: ['assignment_expression'],
  },
  kotlin: {
    declarations: [['property_declaration', 'type:variable_declaration']],
    identifier: 'simple_identifier',
    reads: ['simple_identifier', 'interpolated_identifier'],
    dynamic: /$^/,
    ignored: /^_$/,
    local: parentIs('statements'),
  },
  swift: {
    declarations: [['property_declaration', 'name']],
    identifier: 'simple_identifier',
    reads: ['simple_identifier'],
    dynamic: /$^/,
    ignored: /^_$/,
    local: parentIs('statements'),
  },
  scala: {
    declarations: [
      ['val_definition', 'pattern'],
      ['var_definition', 'pattern'],
    ],
    identifier: 'identifier',
    reads: ['identifier'],
    dynamic: /$^/,
    ignored: /^_$/,
    local: parentIs('block', 'indented_block'),
  },
};

/** The plain names a declaration's target declares; none for destructuring, attributes and other patterns. */
function declaredNames(target: SyntaxNode, spec: UnusedSpec): SyntaxNode[] {
  if (target.type === spec.identifier) return [target];
  if (spec.lists?.includes(target.type)) return target.children.filter((c) => c.type === spec.identifier);
  // Kotlin's variable_declaration and Swift's pattern wrap the name (and maybe a type annotation).
  const named = target.children.filter((c) => c.named);
  const first = named[0];
  if (first?.type === spec.identifier && named.every((c, i) => i === 0 || /type/.test(c.type)))
    return [first];
  return [];
}

function selectChild(node: SyntaxNode, selector: string): SyntaxNode | undefined {
  if (selector.startsWith('type:')) return node.children.find((c) => c.type === selector.slice(5));
  return node.children.find((c) => c.field === selector);
}

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
      if (spec.reads.includes(node.type) && !plainWrite(node, spec, source)) {
        const name = source.slice(node.startIndex, node.endIndex);
        uses.set(name, (uses.get(name) ?? 0) + 1);
      }
      if (spec.stringReads?.types.includes(node.type)) {
        for (const m of source.slice(node.startIndex, node.endIndex).matchAll(spec.stringReads.pattern)) {
          const name = m[1] as string;
          uses.set(name, (uses.get(name) ?? 0) + 1);
        }
      }
      const decl = spec.declarations.find(([type]) => type === node.type);
      if (decl && spec.local(node) && ownFunction(node, profile.functions) === fn) {
        const target = selectChild(node, decl[1]);
        // Only plain names: destructuring and attributes have other readers.
        if (target) declared.push(...declaredNames(target, spec));
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
        cwe: 'CWE-563',
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

/** `x` in `x = v;`: stored, not read (`x += v` reads it; so does `y = x = v`, whose value is used). */
function plainWrite(node: SyntaxNode, spec: UnusedSpec, source: string): boolean {
  const parent = node.parent;
  if (!parent || !spec.assignments?.includes(parent.type) || node.field !== 'left') return false;
  const operator = parent.children.find((c) => c.field === 'operator');
  const op = operator ? source.slice(operator.startIndex, operator.endIndex) : '';
  return op === '=' && parent.parent?.type === 'expression_statement';
}

function ownFunction(node: SyntaxNode, functions: Record<string, string>): SyntaxNode | undefined {
  let p = node.parent;
  while (p && !(p.named && functions[p.type])) p = p.parent;
  return p ?? undefined;
}
