import type { CodeLanguage } from '@tessera/shared';
import type { SyntaxNode } from '../parsing/tree';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

interface LoopSyntax {
  loops: string[];
  /** Nodes that leave the loop (a `break` only when not inside a nested loop or switch). */
  exits: string[];
  /** Calls that end the process or thread. */
  exitCalls: RegExp;
  /** Nested loops and switches own their unlabelled breaks; nested functions and classes run elsewhere. */
  breakOwners: string[];
  nested: string[];
}

const JAVA: LoopSyntax = {
  loops: ['while_statement', 'do_statement', 'for_statement'],
  exits: ['return_statement', 'throw_statement', 'yield_statement'],
  exitCalls: /^(System\.exit|Runtime\.getRuntime\(\)\.(exit|halt))\s*\(/,
  breakOwners: [
    'while_statement',
    'do_statement',
    'for_statement',
    'enhanced_for_statement',
    'switch_expression',
    'switch_statement',
  ],
  nested: ['class_body', 'lambda_expression'],
};
const CSHARP: LoopSyntax = {
  loops: ['while_statement', 'do_statement', 'for_statement'],
  exits: ['return_statement', 'throw_statement', 'yield_statement', 'goto_statement'],
  exitCalls: /^(Environment\.Exit|Application\.Exit)\s*\(/,
  breakOwners: ['while_statement', 'do_statement', 'for_statement', 'foreach_statement', 'switch_statement'],
  nested: [
    'lambda_expression',
    'local_function_statement',
    'anonymous_method_expression',
    'class_declaration',
  ],
};
const SYNTAX: Partial<Record<CodeLanguage, LoopSyntax>> = { java: JAVA, csharp: CSHARP };

const unparenthesised = (node: SyntaxNode | undefined): SyntaxNode | undefined => {
  let n = node;
  while (n?.type === 'parenthesized_expression') n = n.children.find((c) => c.named);
  return n;
};

/** `while (true)`, `do … while (true)`, `for (;;)`: a loop whose condition cannot become false. */
function alwaysTrue(loop: SyntaxNode, scope: Scope): boolean {
  if (loop.type === 'for_statement') {
    const condition = field(loop, 'condition');
    return condition === undefined || scope.text(condition).trim() === 'true';
  }
  const condition = unparenthesised(field(loop, 'condition'));
  return condition !== undefined && scope.text(condition).trim() === 'true';
}

/** Whether anything in the loop's body can leave it: a return, throw, exit call, labelled or own break. */
function canLeave(loop: SyntaxNode, syntax: LoopSyntax, scope: Scope): boolean {
  const body = field(loop, 'body');
  if (!body) return true;
  const inside = descendants(
    body,
    [...syntax.exits, 'break_statement', 'method_invocation', 'invocation_expression'],
    syntax.nested,
  );
  return inside.some((n) => {
    if (syntax.exits.includes(n.type)) return true;
    if (n.type === 'break_statement') {
      if (n.children.some((c) => c.type === 'identifier')) return true;
      for (let p = n.parent; p && p !== loop; p = p.parent)
        if (syntax.breakOwners.includes(p.type)) return false;
      return true;
    }
    return syntax.exitCalls.test(scope.text(n));
  });
}

/** Loops that can never end (SonarSource S2189, CodeQL java/unreachable-exit-in-loop's simplest form). */
export const INFINITE_LOOP_RULES: ScopedRule[] = [
  {
    id: 'bug/infinite-loop',
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-835',
    message:
      'This loop can never end: its condition is always true and nothing in it breaks, returns or throws. Add an exit condition.',
    needles: ['while', 'for'],
    nodes: { java: JAVA.loops, csharp: CSHARP.loops },
    test: (loop, scope) => {
      const syntax = SYNTAX[scope.language];
      if (!syntax || !alwaysTrue(loop, scope) || canLeave(loop, syntax, scope)) return;
      return {};
    },
  },
];
