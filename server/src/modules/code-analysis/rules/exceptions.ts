import { type Captures, forJs, type RuleDefinition } from './types';

const GENERIC_JAVA = /^(java\.lang\.)?(Exception|Throwable|RuntimeException|Error)$/;
const GENERIC_CSHARP = /^(System\.)?(Exception|SystemException)$/;
const isGeneric = (c: Captures): boolean =>
  (c.type?.text ?? '')
    .split('|')
    .map((t) => t.trim())
    .some((t) => GENERIC_JAVA.test(t) || GENERIC_CSHARP.test(t));

/** Exception handling that hides or invents failures (SonarSource S1143, S2221, S112, S1696). */
export const EXCEPTION_RULES: RuleDefinition[] = [
  {
    id: 'bug/return-in-finally',
    needles: ['finally', 'ensure'],
    category: 'bug',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-584',
    message:
      'A `return` inside `finally` discards any exception thrown in the `try` (and its own return value); return after the try statement instead.',
    languages: {
      java: `(finally_clause) @finding`,
      csharp: `(finally_clause) @finding`,
      python: `(finally_clause) @finding`,
      php: `(finally_clause) @finding`,
      ...forJs(`(finally_clause) @finding`),
      // detekt ReturnFromFinally; RuboCop Lint/EnsureReturn (a `return` in `ensure` discards the exception too).
      kotlin: `(finally_block) @finding`,
      ruby: `(ensure) @finding`,
    },
    // A return in a function defined inside the finally block returns from that function only (Kotlin's
    // `return@label` leaves a lambda).
    check: (c) => {
      const text = c.finding?.text ?? '';
      return /\breturn\b(?!@)/.test(text) && !/\b(function|def|lambda|fun|proc|Proc\.new)\b|=>|->/.test(text);
    },
  },
  {
    id: 'bug/catch-generic-exception',
    needles: ['catch'],
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-396',
    message:
      '`catch ({type} …)` also catches failures this code does not expect (programming errors, interruptions); catch the specific exceptions the `try` can throw.',
    languages: {
      java: `(catch_clause (catch_formal_parameter (catch_type) @type)) @finding`,
      csharp: `(catch_clause (catch_declaration type: (_) @type)) @finding`,
    },
    check: isGeneric,
  },
  {
    id: 'bug/catch-null-pointer',
    needles: ['NullPointerException', 'NullReferenceException'],
    category: 'bug',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-395',
    message:
      'Catching `{type}` hides the null dereference that caused it; test for null before using the value instead.',
    languages: {
      java: `(catch_clause (catch_formal_parameter (catch_type) @type (#match? @type "NullPointerException"))) @finding`,
      csharp: `(catch_clause (catch_declaration type: (_) @type (#match? @type "NullReferenceException"))) @finding`,
    },
  },
  {
    id: 'bug/generic-exception-thrown',
    needles: ['throw'],
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-397',
    message:
      '`{type}` says nothing about what failed, and callers must catch everything to handle it; declare or throw a specific exception type.',
    languages: {
      java: `[(throws (_) @type) @finding
              (throw_statement (object_creation_expression type: (_) @type)) @finding]`,
      csharp: `(throw_statement (object_creation_expression type: (_) @type)) @finding`,
    },
    check: (c) => GENERIC_JAVA.test(c.type?.text ?? '') || GENERIC_CSHARP.test(c.type?.text ?? ''),
  },
];
