import type { RuleDefinition } from './types';

/**
 * PHP features that turn data into code or variables, as the Semgrep registry's PHP rules and PHPCS security
 * sniffs report them: `preg_replace` with the `/e` modifier evaluates the replacement as PHP (CWE-94, removed in
 * PHP 7 but still in old code), and `extract()` of request data overwrites any local variable the request names
 * (CWE-621). `preg_replace_callback` and `extract` of the code's own arrays are not reported.
 */
const SUPERGLOBAL =
  '^\\\\$_(GET|POST|REQUEST|COOKIE|FILES|SERVER)\\\\b|^\\\\$request->(all|input|query)\\\\(';

/** The pattern literal's modifiers (after the closing delimiter: `'/x/ie'`, `'{x}e'`) include `e`. */
function hasEvalModifier(literal: string, fn: string): boolean {
  if (fn !== 'preg_replace') return false;
  const body = literal.slice(1, -1);
  const delimiter = body[0];
  if (!delimiter || /[a-zA-Z0-9\s\\]/.test(delimiter)) return false;
  const closing = { '(': ')', '[': ']', '{': '}', '<': '>' }[delimiter] ?? delimiter;
  const end = body.lastIndexOf(closing);
  return end > 0 && /^[a-zA-Z]*e[a-zA-Z]*$/.test(body.slice(end + 1));
}

export const PHP_DYNAMIC_RULES: RuleDefinition[] = [
  {
    id: 'security/preg-replace-eval',
    needles: ['preg_replace'],
    category: 'security',
    severity: 'critical',
    confidence: 'high',
    cwe: 'CWE-94',
    message:
      '`{finding}` uses the `/e` modifier, which runs the replacement as PHP code; use preg_replace_callback.',
    languages: {
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (argument [(string) (encapsed_string)] @re))) @finding
        (#eq? @fn "preg_replace"))`,
    },
    check: (c) => hasEvalModifier(c.re?.text ?? '', c.fn?.text ?? ''),
  },
  {
    id: 'security/variable-extraction',
    needles: ['extract', 'parse_str'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-621',
    message:
      '`{finding}` turns request fields into local variables, so the request can overwrite any of them ($is_admin, $sql); read the fields you need explicitly.',
    languages: {
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (argument (_) @src) .)) @finding (#eq? @fn "extract") (#match? @src "${SUPERGLOBAL}"))
        ((function_call_expression function: (name) @fn arguments: (arguments . (argument) .)) @finding (#eq? @fn "parse_str"))`,
    },
  },
];
