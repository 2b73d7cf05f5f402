import type { Captures, RuleDefinition } from './types';

/**
 * Code built at run time from a value that is not literal text, as the field's audit rules read it (Bandit B307,
 * ESLint no-eval and security/detect-eval-with-expression, Semgrep's eval-detected, ruby-eval and
 * php file-inclusion, Brakeman's Evaluation): where the dataflow proves input reaches the call it reports code
 * injection itself (these rules yield to it), and a string the code wrote itself (`eval("1 + 2")`) is no finding. What is
 * left is an audit finding (low confidence): the value comes from somewhere the analysis cannot see.
 */

/** Literal text with no interpolation: `"…"`, `'…'`, a template or f-string with no `${…}`/`{…}`/`#{…}`/`$x` part. */
function literalText(node: { text: string; type: string } | undefined): boolean {
  if (!node) return false;
  const t = node.text.trim();
  if (/^(string|string_literal|template_string|encapsed_string|heredoc|nowdoc)$/.test(node.type)) {
    if (/^[rbuRBU]*[fF]/.test(t)) return !/\{[^{]/.test(t.replace(/\{\{/g, ''));
    if (t.startsWith('`')) return !t.includes('${');
    if (t.startsWith('"') || t.startsWith('<<')) return !/#\{|\$\{|\$[A-Za-z_{]/.test(t);
    return true;
  }
  // `%q{…}` and other quoted literals in Ruby.
  return /^%[qQw]?[{([<|]/.test(t) && !t.includes('#{');
}

/** A value that is not literal text and not a block or lambda handed to `class_eval do … end`. */
const nonLiteral = (c: Captures): boolean => !literalText(c.arg);

/** An included path with no variable part: `__DIR__ . '/x.php'`, `dirname(__FILE__) . '/x.php'`, `CONFIG . '/x'`. */
const includesVariable = (c: Captures): boolean => /\$[A-Za-z_]/.test(c.arg?.text ?? '');

export const DYNAMIC_CODE_RULES: RuleDefinition[] = [
  {
    id: 'security/dynamic-code-evaluation',
    needles: ['eval', 'exec', 'Function'],
    category: 'security',
    severity: 'medium',
    confidence: 'low',
    cwe: 'CWE-95',
    yieldsTo: 'security/code-injection',
    message:
      '`{finding}` runs code built from a value that is not literal text; if any of it can come from outside, it runs as the program. Dispatch on a fixed set of operations instead.',
    languages: {
      python: `((call function: (identifier) @fn arguments: (argument_list . (_) @arg)) @finding (#match? @fn "^(eval|exec)$"))`,
      javascript: `((call_expression function: (identifier) @fn arguments: (arguments . (_) @arg)) @finding (#eq? @fn "eval"))
        ((new_expression constructor: (identifier) @fn arguments: (arguments (_) @arg .)) @finding (#eq? @fn "Function"))`,
      typescript: `((call_expression function: (identifier) @fn arguments: (arguments . (_) @arg)) @finding (#eq? @fn "eval"))
        ((new_expression constructor: (identifier) @fn arguments: (arguments (_) @arg .)) @finding (#eq? @fn "Function"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (argument (_) @arg))) @finding (#eq? @fn "eval"))`,
      // `eval(s)`, `obj.instance_eval(s)`, `Klass.class_eval(s)`, `binding.eval(s)` given a string (a block is Ruby).
      ruby: `((call method: (identifier) @fn arguments: (argument_list . (_) @arg)) @finding (#match? @fn "^(eval|instance_eval|class_eval|module_eval)$"))`,
    },
    check: nonLiteral,
  },
  {
    id: 'security/dynamic-file-inclusion',
    needles: ['include', 'require'],
    category: 'security',
    severity: 'high',
    confidence: 'low',
    cwe: 'CWE-98',
    yieldsTo: 'security/path-traversal',
    message:
      '`{finding}` loads and runs a PHP file whose path is built from a variable; a path from outside runs any file (or URL) as code. Include a fixed file, or map a key to one.',
    languages: {
      php: `[(include_expression (_) @arg) (include_once_expression (_) @arg) (require_expression (_) @arg) (require_once_expression (_) @arg)] @finding`,
    },
    check: includesVariable,
  },
];
