import type { RuleDefinition } from './types';

const argCount = (text: string | undefined): number => {
  const inner = (text ?? '')
    .trim()
    .replace(/^\(|\)$/g, '')
    .trim();
  if (inner === '') return 0;
  let depth = 0;
  let count = 1;
  for (const ch of inner) {
    if ('([{'.includes(ch)) depth += 1;
    else if (')]}'.includes(ch)) depth -= 1;
    else if (ch === ',' && depth === 0) count += 1;
  }
  return count;
};

/**
 * Java library calls whose result is the only sign of failure, and deprecated ones with a documented replacement
 * (SpotBugs RV_RETURN_VALUE_IGNORED_BAD_PRACTICE, SonarSource S899 and S1874).
 */
export const API_MISUSE_RULES: RuleDefinition[] = [
  {
    id: 'bug/unchecked-return-value',
    category: 'bug',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-252',
    message:
      '`{finding}` reports failure (or how much it did) only through its return value, which is ignored here; check it.',
    languages: {
      java: `(expression_statement (method_invocation name: (identifier) @n arguments: (argument_list) @args
               (#match? @n "^(read|skip|delete|mkdir|mkdirs|createNewFile|renameTo|setLastModified|setReadOnly|setReadable|setWritable|setExecutable)$")) @finding)`,
    },
    // `in.read()` alone reads one byte and drops it on purpose; a buffer given to `read` is meant to be filled.
    check: (c) => c.n?.text !== 'read' || argCount(c.args?.text) > 0,
  },
  {
    id: 'bug/deprecated-api',
    needles: ['URLEncoder', 'URLDecoder', 'Date', 'getBytes'],
    category: 'bug',
    severity: 'low',
    confidence: 'high',
    cwe: 'CWE-477',
    message:
      '`{finding}` is deprecated: it depends on the platform default charset or parses dates loosely; use the replacement its documentation names (URLEncoder.encode(s, UTF_8), DateFormat.parse, getBytes(charset)).',
    languages: {
      java: `(method_invocation object: (_) @o name: (identifier) @n arguments: (argument_list) @args) @finding`,
    },
    check: (c) => {
      const object = (c.o?.text ?? '').replace(/^java\.(util|net)\./, '');
      const n = c.n?.text;
      const args = argCount(c.args?.text);
      if ((object === 'URLEncoder' && n === 'encode') || (object === 'URLDecoder' && n === 'decode'))
        return args === 1;
      if (object === 'Date' && n === 'parse') return true;
      return n === 'getBytes' && args === 4;
    },
  },
];
