import { forJs, type RuleDefinition } from './types';

/** The value of a product of integer literals (`60 * 60 * 24 * 365`), or undefined for anything else. */
function product(text: string | undefined): number | undefined {
  const inner = (text ?? '')
    .replace(/^\(|\)$/g, '')
    .replace(/[\s_]/g, '')
    .replace(/[Ll]$/, '');
  if (!/^-?\d+(\*\d+)*$/.test(inner)) return undefined;
  return inner.split('*').reduce((p, n) => p * Number(n), 1);
}

const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** Session and cookie lifetimes and error details that outlive or reveal more than they should. */
export const SESSION_RULES: RuleDefinition[] = [
  {
    id: 'security/session-never-expires',
    needles: ['setMaxInactiveInterval'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-613',
    message:
      '`{finding}`: a session that never times out stays usable by whoever obtains its cookie; set a timeout in seconds (e.g. 1800).',
    languages: {
      java: `(method_invocation name: (identifier) @n (#eq? @n "setMaxInactiveInterval") arguments: (argument_list . (_) @value .)) @finding`,
    },
    check: (c) => {
      const v = product(c.value?.text);
      return v !== undefined && v <= 0;
    },
  },
  {
    id: 'security/persistent-cookie',
    needles: ['setMaxAge', 'max_age'],
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-539',
    message:
      '`{finding}` keeps the cookie on the client for over a year, where anyone using the device can read it; keep it a session cookie or make it short-lived.',
    languages: {
      java: `(method_invocation name: (identifier) @n (#eq? @n "setMaxAge") arguments: (argument_list . (_) @value .)) @finding`,
      python: `(call function: (attribute attribute: (identifier) @n) (#eq? @n "set_cookie")
                arguments: (argument_list (keyword_argument name: (identifier) @k (#eq? @k "max_age") value: (_) @value))) @finding`,
    },
    check: (c) => (product(c.value?.text) ?? 0) > YEAR_SECONDS,
  },
  {
    id: 'security/stack-trace-exposure',
    needles: ['printStackTrace', '.stack'],
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-209',
    message:
      '`{finding}` prints the stack trace, with class names, paths and versions, to the console or to the response; log it through the logger and show the user a generic message.',
    languages: {
      java: `(method_invocation name: (identifier) @n (#eq? @n "printStackTrace")) @finding`,
      kotlin: `(call_expression (navigation_expression (navigation_suffix (simple_identifier) @n)) (#eq? @n "printStackTrace")) @finding`,
      // Express/Koa (CodeQL js/stack-trace-exposure): `res.send(err.stack)`, `res.json({ error: err.stack })`.
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @n)
                   arguments: (arguments [(member_expression property: (property_identifier) @p)
                                          (object (pair value: (member_expression property: (property_identifier) @p)))])) @finding
                 (#match? @n "^(send|json|end|write|jsonp)$") (#eq? @p "stack"))
                ((assignment_expression left: (member_expression) @n right: (member_expression property: (property_identifier) @p)) @finding
                 (#match? @n "^ctx\\\\.(body|response\\\\.body)$") (#eq? @p "stack"))`),
    },
  },
];
