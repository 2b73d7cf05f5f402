import { forJs, type RuleDefinition } from './types';

/** Cookies set without the Secure flag (CWE-614). */
/** Whether a cookie's options set the Secure flag: `secure=True`, `Secure: true`, `'secure' => true`, PHP's sixth argument. */
function securedCookie(args: string, fn: string | undefined): boolean {
  if (/['"]?\b[Ss]ecure['"]?\s*(=>|=|:)\s*(True|true|TRUE)\b/.test(args)) return true;
  return fn !== undefined && /^set(raw)?cookie$/.test(fn) && /^true$/i.test(topLevelArguments(args)[5] ?? '');
}

/** The arguments of a call's argument list text, split at its top-level commas. */
function topLevelArguments(list: string): string[] {
  const inner = list.trim().replace(/^\(/, '').replace(/\)$/, '');
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let current = '';
  for (const ch of inner) {
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ('([{'.includes(ch)) depth += 1;
    else if (')]}'.includes(ch)) depth -= 1;
    else if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export const WEB_SECURITY_RULES: RuleDefinition[] = [
  {
    id: 'security/insecure-cookie',
    needles: ['set_cookie', 'cookie', 'Cookie'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-614',
    message:
      '`{finding}` sets a cookie without the Secure flag, so it is also sent over plain HTTP; pass secure=True (and httponly=True, samesite).',
    languages: {
      python: `((call function: (attribute attribute: (identifier) @fn) arguments: (argument_list) @args) @finding
               (#match? @fn "^set_cookie$"))`,
      ...forJs(`((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @p)
                  arguments: (arguments) @args) @finding
                 (#match? @o "^(res|response|ctx)$") (#eq? @p "cookie"))`),
      php: `((function_call_expression function: (name) @fn arguments: (arguments) @args) @finding (#match? @fn "^(setcookie|setrawcookie)$"))`,
      go: `((composite_literal type: (qualified_type) @t body: (literal_value) @args) @finding (#eq? @t "http.Cookie"))`,
      ruby: `((assignment left: (element_reference object: (_) @o) right: (hash) @args) @finding (#match? @o "^cookies(\\.(signed|encrypted|permanent))*$"))`,
      csharp: `((object_creation_expression type: (identifier) @t initializer: (initializer_expression) @args) @finding (#match? @t "^(CookieOptions|HttpCookie)$"))`,
    },
    check: (c) => !securedCookie(c.args?.text ?? '', c.fn?.text),
  },
];
