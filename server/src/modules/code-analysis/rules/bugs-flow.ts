import { type Captures, forJs, type RuleDefinition } from './types';

const JUMPS = '[(return_statement) (throw_statement) (break_statement) (continue_statement)]';
/** What may legitimately follow a jump: hoisted declarations, comments, empty statements. */
const reachable = (c: Captures): boolean =>
  ![
    'function_declaration',
    'generator_function_declaration',
    'comment',
    'empty_statement',
    'line_comment',
    'block_comment',
    'class_declaration',
    'multiline_comment',
    // Ruby: a method's `rescue`/`ensure`/`else` clauses follow its statements, reached by raising.
    'rescue',
    'ensure',
    'else',
    'heredoc_body',
  ].includes(c.finding?.type ?? '');
const emptyBlock = (c: Captures): boolean => (c.body?.text ?? '').replace(/\s+/g, '') === '{}';

/** Control-flow and exception-handling bug rules. */
export const FLOW_BUG_RULES: RuleDefinition[] = [
  {
    id: 'bug/unreachable-code',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    message:
      'This statement can never run: it follows a return, throw, break or continue in the same block. Remove it or move it before the jump.',
    languages: {
      ...forJs(`(statement_block ${JUMPS} . (_) @finding)`),
      python: `(block [(return_statement) (raise_statement) (break_statement) (continue_statement)] . (_) @finding)`,
      java: `(block ${JUMPS} . (_) @finding)`,
      go: `(statement_list [(return_statement) (break_statement) (continue_statement)] . (_) @finding)`,
      c: `(compound_statement [(return_statement) (break_statement) (continue_statement)] . (_) @finding)`,
      csharp: `(block ${JUMPS} . (_) @finding)`,
      php: `(compound_statement [(return_statement) (break_statement) (continue_statement)] . (_) @finding)`,
      // detekt UnreachableCode, RuboCop Lint/UnreachableCode, SonarSource S1763 (Swift).
      // Kotlin's grammar sometimes splits `return value` into a bare `return` and the value as the next
      // statement (after an `as` cast ending the line before): a statement on the jump's own line is its value.
      kotlin: `(statements (jump_expression) @jump . (_) @finding)`,
      ruby: `[${['body_statement', 'then', 'else', 'begin', 'do', 'block_body'].map((list) => `(${list} [(return) (break) (next) (redo) (retry)] . (_) @finding)`).join(' ')}]`,
      swift: `(statements (control_transfer_statement) . (_) @finding)`,
    },
    check: (c) => reachable(c) && (c.jump === undefined || c.jump.row !== c.finding?.row),
  },
  {
    id: 'bug/empty-catch',
    needles: ['catch', 'except', 'rescue'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-390',
    message:
      'This handler swallows the error silently; log it, handle it, or rethrow (and say why in a comment if ignoring is intended).',
    languages: {
      ...forJs(`(catch_clause body: (statement_block) @body) @finding`),
      java: `(catch_clause body: (block) @body) @finding`,
      csharp: `(catch_clause body: (block) @body) @finding`,
      php: `(catch_clause body: (compound_statement) @body) @finding`,
      python: `(except_clause (block . (pass_statement) .)) @finding`,
      // detekt EmptyCatchBlock, RuboCop Lint/SuppressedException, SonarSource S108 (Swift): a comment inside says
      // the silence is meant, and is left alone as in the other languages.
      kotlin: `(catch_block) @finding`,
      swift: `(catch_block) @finding`,
      ruby: `(rescue !body) @finding`,
    },
    check: (c) => {
      const f = c.finding;
      if (f?.type === 'catch_block') return /\{\s*\}$/.test(f.text);
      if (f?.type === 'rescue') return !f.text.includes('#');
      return c.body === undefined || emptyBlock(c);
    },
  },
  {
    id: 'bug/bare-except',
    needles: ['except'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    message:
      'A bare `except:` also catches SystemExit and KeyboardInterrupt; catch `Exception` (or the specific errors) instead.',
    languages: { python: `((except_clause . "except" . ":") @finding)` },
  },
  {
    id: 'bug/mutable-default-argument',
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    message:
      'Default value {finding} is created once and shared by every call; use `None` as the default and create the object inside the function.',
    languages: {
      python: `[(default_parameter value: [(list) (dictionary) (set) (list_comprehension) (dictionary_comprehension)] @finding)
                (typed_default_parameter value: [(list) (dictionary) (set)] @finding)]`,
      ruby: `(optional_parameter value: [(array) (hash)] @finding)`,
    },
  },
  {
    id: 'bug/switch-fall-through',
    needles: ['case'],
    category: 'bug',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-484',
    message:
      'This case falls through into the next one; end it with `break` (or `return`), or add a `// falls through` comment if intended.',
    languages: {
      ...forJs(`((switch_case value: (_) @value (_) @last .) @finding . [(switch_case) (switch_default)])`),
      c: `((case_statement value: (_) @value (_) @last .) @finding . (case_statement))`,
      // Java's grammar leaves a comment after a group's last statement between the groups, so no anchor there.
      java: `((switch_block_statement_group (switch_label (_) @value) (_) @last .) @finding (switch_block_statement_group))`,
    },
    check: (c) =>
      c.last !== undefined &&
      c.last.text !== c.value?.text &&
      ![
        'break_statement',
        'return_statement',
        'throw_statement',
        'continue_statement',
        'comment',
        'goto_statement',
      ].includes(c.last.type) &&
      !/\b(exit|abort|process\.exit)\s*\(/.test(c.last.text),
  },
];
