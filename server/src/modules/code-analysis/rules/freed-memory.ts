import type { SyntaxNode } from '../parsing/tree';
import { field, type Hit, type Scope, type ScopedRule } from './scoped';

/**
 * Memory used or released again after `free(p)` / `delete p` (CWE-416 use after free, CWE-415 double free), as the
 * Semgrep registry's C rules and the CERT MEM30-C/MEM31-C checkers report them: the statements that follow the
 * release in the same block, up to one that assigns the pointer again (`p = NULL`, `p = malloc(…)`) or leaves the
 * block. A release inside a branch and a use after it are not followed (the branch may not run).
 */
const FREED = /^(identifier|field_expression)$/;
const LEAVES = /^(return_statement|break_statement|continue_statement|goto_statement|throw_statement)$/;

const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What `free(p)` / `delete p` / `delete[] p` in an expression statement releases. */
function released(statement: SyntaxNode, scope: Scope): SyntaxNode | undefined {
  const expr = statement.children.find((c) => c.named);
  if (!expr) return undefined;
  if (expr.type === 'delete_expression') return expr.children.find((c) => c.named && FREED.test(c.type));
  if (expr.type !== 'call_expression') return undefined;
  const fn = field(expr, 'function');
  if (!fn || scope.text(fn) !== 'free') return undefined;
  const args = field(expr, 'arguments')?.children.filter((c) => c.named) ?? [];
  return args.length === 1 && args[0] && FREED.test(args[0].type) ? args[0] : undefined;
}

/**
 * The statements after a release that use the pointer (`double`: the one that releases it again). Every use is
 * reported, as the Semgrep rules do: each is a separate read of freed memory a reviewer must move or remove.
 */
function followUp(statement: SyntaxNode, scope: Scope, double: boolean): Hit[] | undefined {
  const target = released(statement, scope);
  const parent = statement.parent;
  if (!target || !parent) return undefined;
  const name = scope.text(target).replace(/\s+/g, '');
  // `p->buf` is also given a new meaning when `p` itself is assigned.
  const roots = [...new Set([name, name.split(/->|\./)[0] ?? name])];
  const assigned = new RegExp(`(^|[^\\w.>])(${roots.map(escape).join('|')})\\s*=(?!=)`);
  const mention = new RegExp(`(^|[^\\w.>])${literally(name)}(?![\\w])`);
  const releasedAgain = new RegExp(
    `(^|[^\\w.>])(free\\s*\\(\\s*${literally(name)}\\s*\\)|delete(\\s*\\[\\s*\\])?\\s+${literally(name)}\\s*;)`,
  );
  const siblings = parent.children;
  const uses: Hit[] = [];
  for (const next of siblings.slice(siblings.indexOf(statement) + 1)) {
    if (!next.named || next.type === 'comment') continue;
    const text = scope.text(next).replace(/\s+(->|\.)\s*/g, '$1');
    const again = releasedAgain.test(text);
    const used = mention.test(text.replace(/\bsizeof\s*\([^)]*\)/g, ''));
    if (assigned.test(text) && !again) break;
    if (again) return double && uses.length === 0 ? [{ at: next, detail: name }] : uses;
    if (used) {
      if (double) return undefined;
      uses.push({ at: next, detail: name });
    }
    if (LEAVES.test(next.type)) break;
  }
  return uses;
}

const NODES = { c: ['expression_statement'], cpp: ['expression_statement'] };

/**
 * A file checked with `access()` and then opened by its name (CWE-367, CodeQL cpp/toctou-race-condition):
 * between the two calls another process can swap the file for a symlink; open it once and check the descriptor
 * (`fstat`, `O_NOFOLLOW`).
 */
const CHECKS = /^(access|faccessat|eaccess|euidaccess)$/;
const USES =
  'fopen|open|openat|creat|unlink|remove|rename|chmod|chown|truncate|execv|execve|execl|execlp|execvp';

function checkThenUse(call: SyntaxNode, scope: Scope): Hit | undefined {
  const fn = field(call, 'function');
  if (!fn || !CHECKS.test(scope.text(fn))) return undefined;
  const path = field(call, 'arguments')?.children.find((c) => c.named);
  // A variable, a member, or C++'s `path.c_str()`.
  if (!path || !/^[\w.>-]+(\.c_str\(\))?$/.test(scope.text(path))) return undefined;
  const body = scope.enclosing(call, ['function_definition']);
  if (!body) return undefined;
  const after = scope.text(body).slice(call.endIndex - body.startIndex);
  const use = new RegExp(`\\b(${USES})\\s*\\(\\s*${literally(scope.text(path))}\\s*[,)]`);
  return use.test(after) ? { at: call, detail: scope.text(path) } : undefined;
}

export const FREED_MEMORY_RULES: ScopedRule[] = [
  {
    id: 'security/use-after-free',
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-416',
    message:
      '`{detail}` is used after the memory it points to was freed: the allocator may have handed it out again, so this reads or corrupts other data; use it before freeing, or set it to NULL and check.',
    needles: ['free(', 'delete'],
    nodes: NODES,
    test: (node, scope) => followUp(node, scope, false),
  },
  {
    id: 'security/double-free',
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-415',
    message:
      '`{detail}` is freed twice, which corrupts the allocator and can be exploited; free it once and set the pointer to NULL after freeing.',
    needles: ['free(', 'delete'],
    nodes: NODES,
    test: (node, scope) => followUp(node, scope, true),
  },
  {
    id: 'security/toctou-file-check',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-367',
    message:
      'The file `{detail}` is checked, then used by its name: another process can replace it in between (a symlink to another file); open it once and check the open descriptor (fstat, O_NOFOLLOW).',
    needles: ['access('],
    nodes: { c: ['call_expression'], cpp: ['call_expression'] },
    test: checkThenUse,
  },
];
