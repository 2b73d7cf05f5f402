import type { ScopedRule } from './scoped';

/**
 * An assertion that always fails where it stands (CWE-617): with assertions enabled, reaching it stops the program,
 * so whoever can reach that path can stop it. Throw an exception the caller handles instead (SonarSource S2699's
 * relative; CodeQL java/constant-assertion).
 */
export const ASSERTION_RULES: ScopedRule[] = [
  {
    id: 'bug/reachable-assertion',
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-617',
    message:
      '`{detail}` always fails: with assertions enabled, whoever reaches this line stops the program. Throw an exception instead.',
    needles: ['assert'],
    nodes: { java: ['assert_statement'] },
    test: (statement, scope) => {
      const condition = statement.children.find((c) => c.named && c.field !== 'message');
      const inner =
        condition?.type === 'parenthesized_expression' ? condition.children.find((c) => c.named) : condition;
      return inner?.type === 'false' ? { detail: scope.text(statement).replace(/\s+/g, ' ') } : undefined;
    },
  },
];
