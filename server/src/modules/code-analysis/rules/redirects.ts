import type { SyntaxNode } from '../parsing/tree';
import { field, type Scope, type ScopedRule } from './scoped';

const COMMENTS = ['comment', 'line_comment', 'block_comment'];

/** The next statement after `statement` in its block, comments skipped. */
function nextSibling(statement: SyntaxNode): SyntaxNode | undefined {
  const siblings = statement.parent?.children ?? [];
  const i = siblings.indexOf(statement);
  return siblings.slice(i + 1).find((s) => s.named && !COMMENTS.includes(s.type));
}

/**
 * The statement that runs after `statement`: its next sibling, or when it ends the body of an `if` (the common
 * `if (!user) { redirect }` guard), the statement after that `if`.
 */
function nextStatement(statement: SyntaxNode): SyntaxNode | undefined {
  const next = nextSibling(statement);
  if (next) return next;
  const block = statement.parent;
  if (block?.parent?.type === 'if_statement' && block.field === 'body') return nextSibling(block.parent);
  if (block?.parent?.type === 'if_statement' && block.field === 'consequence')
    return nextSibling(block.parent);
  return undefined;
}

/** The redirecting call of an expression statement, per language. */
function redirects(statement: SyntaxNode, scope: Scope): boolean {
  const call = statement.children.find((c) => c.named);
  if (!call) return false;
  if (scope.language === 'java')
    return call.type === 'method_invocation' && scope.text(field(call, 'name') ?? call) === 'sendRedirect';
  if (call.type !== 'function_call_expression' || scope.text(field(call, 'function') ?? call) !== 'header')
    return false;
  const first = field(call, 'arguments')?.children.find((c) => c.named);
  return first !== undefined && /^["']\s*Location\s*:/i.test(scope.text(first).replace(/^\(/, ''));
}

/** Statements that end the handler: what may follow a redirect. */
const ENDS: Record<string, RegExp> = {
  java: /^(return_statement|throw_statement|break_statement)$/,
  php: /^(return_statement|exit_statement|throw_expression)$/,
};
const PHP_ENDING_CALLS = /^(exit|die)\s*\(/;

/**
 * Code that keeps running after a redirect (CWE-698): the response is committed, yet the handler goes on doing
 * what the redirect was meant to prevent (Fortify "J2EE Bad Practices"; in PHP, the `header('Location: …')`
 * without `exit` that lets an unauthenticated client read the rest of the page).
 */
export const REDIRECT_RULES: ScopedRule[] = [
  {
    id: 'security/redirect-without-exit',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-698',
    message:
      'Code runs after this redirect: the client is sent away, but the handler keeps doing what the redirect was meant to prevent. `return` (PHP: `exit`) right after it.',
    needles: ['sendRedirect', 'Location'],
    nodes: { java: ['expression_statement'], php: ['expression_statement'] },
    test: (statement, scope) => {
      if (!redirects(statement, scope)) return;
      const next = nextStatement(statement);
      if (!next || (ENDS[scope.language]?.test(next.type) ?? true)) return;
      if (scope.language === 'php' && PHP_ENDING_CALLS.test(scope.text(next))) return;
      return {};
    },
  },
];
