import { STRING_TYPES } from './security-secrets';
import { forJs, type RuleDefinition } from './types';

/** Cookies set without the Secure flag (CWE-614). */
/** Whether a cookie's options set the Secure flag: `secure=True`, `Secure: true`, `'secure' => true`, PHP's sixth argument. */
function securedCookie(args: string, fn: string | undefined): boolean {
  // A value read from settings (`secure=settings.SESSION_COOKIE_SECURE`) is the deployment's choice, not a literal off.
  // (`>` is excluded so that `=>` is not read as `=` followed by a value.)
  if (
    /['"]?(\b|is)[Ss]ecure['"]?\s*(=>|=|:)\s*(?!(False|false|FALSE|None|null|nil|0)\b|''|""|'0'|"0")[^\s,)}>]/.test(
      args,
    )
  )
    return true;
  // A builder's `.secure(true)` (Rust's cookie crate).
  if (/\.secure\(\s*(?!false\b)[^\s)]/.test(args)) return true;
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

/**
 * Hosts a plain-text URL may name without exposing anything: this machine and private networks, names reserved for
 * tests and documentation (RFC 2606/6761), and XML/schema namespace URIs, which are names, never fetched.
 */
const HARMLESS_HOST =
  /^(localhost|127\.|0\.0\.0\.0$|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|([\w-]+\.)*(local|localhost|test|example|invalid|internal|lan|home\.arpa)$|([\w-]+\.)*example\.(com|org|net)$|([\w-]+\.)*(w3\.org|xml\.org|purl\.org|xmlsoap\.org|openxmlformats\.org|apache\.org|java\.sun\.com|jcp\.org|xmlpull\.org|json-schema\.org|ns\.adobe\.com|schemas\.[\w.-]+))/i;

/**
 * Whether a string literal is a URL to a remote host over a cleartext protocol (`"http://api.shop.com/pay"`,
 * `'ws://…'`, `"ftp://…"`). Only a literal that starts with the URL and names its host counts: `"http://" + host`
 * and `url.startswith("http://")` name none, prose that mentions a URL does not start with one.
 */
export function cleartextUrl(literal: string, harmless: RegExp = HARMLESS_HOST): boolean {
  const body = literal.replace(/^[A-Za-z@$]{0,2}("""|'''|["'`])/, '');
  const m = /^(http|ws|ftp):\/\/([^\s"'`/?#\\]+)/i.exec(body);
  if (!m?.[2]) return false;
  const host = (m[2].split('@').pop() ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (!/^[A-Za-z0-9.-]+$/.test(host) || (!host.includes('.') && host !== '::1')) return false;
  return !harmless.test(host);
}

export const WEB_SECURITY_RULES: RuleDefinition[] = [
  {
    id: 'security/insecure-cookie',
    needles: ['set_cookie', 'cookie', 'Cookie', 'COOKIE_SECURE', 'session', 'Session'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-614',
    message:
      '`{finding}` sets a cookie without the Secure flag, so it is also sent over plain HTTP; pass secure=True (and httponly=True, samesite).',
    languages: {
      // Also Django/Flask settings that turn the session or CSRF cookie's Secure flag off.
      python: `((call function: (attribute attribute: (identifier) @fn) arguments: (argument_list) @args) @finding
               (#match? @fn "^set_cookie$"))
               ((assignment left: (identifier) @k right: (false)) @finding (#match? @k "^(SESSION|CSRF|LANGUAGE|REMEMBER)_COOKIE_SECURE$"))
               ((assignment left: (subscript subscript: (string) @k) right: (false)) @finding (#match? @k "^.(SESSION|CSRF|REMEMBER)_COOKIE_SECURE.$"))
               ((keyword_argument name: (identifier) @k value: (false)) @finding (#match? @k "^(SESSION|CSRF|REMEMBER)_COOKIE_SECURE$"))`,
      ...forJs(`((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @p)
                  arguments: (arguments) @args) @finding
                 (#match? @o "^(res|response|ctx)$") (#eq? @p "cookie"))
                ((call_expression function: (identifier) @fn arguments: (arguments . (object) @args .)) @finding
                 (#match? @fn "^(session|expressSession|cookieSession)$"))`),
      // Laravel's config/session.php (Semgrep laravel-cookie-secure-set): the session cookie without `'secure' => true`.
      php: `((function_call_expression function: (name) @fn arguments: (arguments) @args) @finding (#match? @fn "^(setcookie|setrawcookie|session_set_cookie_params)$"))
            ((function_call_expression function: (name) @fn arguments: (arguments . (argument (string) @opt) . (argument) @v .)) @finding
              (#eq? @fn "ini_set") (#match? @opt "session\\.cookie_secure") (#match? @v "^(0|false|FALSE|'0'|\\"0\\"|'[Oo]ff'|\\"[Oo]ff\\")$"))
            ((return_statement (array_creation_expression (array_element_initializer (string) @k (function_call_expression function: (name) @env)) @finding)) @laravel
              (#match? @k "^.cookie.$") (#eq? @env "env"))`,
      go: `((composite_literal type: (qualified_type) @t body: (literal_value) @args) @finding (#eq? @t "http.Cookie"))`,
      ruby: `((assignment left: (element_reference object: (_) @o) right: (hash) @args) @finding (#match? @o "^cookies(\\.(signed|encrypted|permanent))*$"))
             ((call method: (identifier) @store arguments: (argument_list) @args) @finding (#eq? @store "session_store"))
             ((pair key: [(simple_symbol) (hash_key_symbol)] @k value: (false)) @finding (#match? @k "^:?session_(http_only|secure)$"))`,
      csharp: `((object_creation_expression type: (identifier) @t initializer: (initializer_expression) @args) @finding (#match? @t "^(CookieOptions|HttpCookie)$"))`,
      // Play's Cookie and Akka HTTP's HttpCookie default to secure = false; Akka's request header
      // `Cookie("name" -> value)` (pairs) is what a client sends, not a cookie set.
      scala: `((call_expression function: (identifier) @fn arguments: (arguments) @args) @finding
               (#match? @fn "^(Cookie|HttpCookie)$") (#not-match? @args "->"))`,
      // The cookie crate (actix-web, axum-extra, Rocket): a `Cookie::build(…)` chain, read whole where it ends.
      rust: ['let_declaration value:', 'arguments', 'expression_statement', 'block', 'return_expression']
        .map(
          (parent) =>
            `(${parent} (call_expression) @finding @args (#match? @finding "^(cookie::)?Cookie::build\\\\("))`,
        )
        .join('\n'),
      // Spring's ResponseCookie builder (secure defaults to false), read whole where the chain ends.
      java: ['variable_declarator value:', 'return_statement', 'argument_list', 'expression_statement']
        .map(
          (parent) =>
            `(${parent} (method_invocation) @finding @args (#match? @finding "^ResponseCookie\\\\.from\\\\("))`,
        )
        .join('\n'),
      // Foundation's HTTPCookie properties, Vapor's HTTPCookies.Value (isSecure defaults to false).
      swift: `((call_expression) @finding @args (#match? @finding "^(HTTPCookie\\\\(\\\\s*properties:|HTTPCookies\\\\.Value\\\\(\\\\s*string:)"))
              ((assignment target: (directly_assignable_expression) @t result: (call_expression) @finding @args)
                (#match? @t "cookies\\\\[") (#match? @finding "^\\\\.init\\\\(\\\\s*string:"))`,
    },
    // Rails' session store is secure behind force_ssl; only an explicit `secure: false` turns that off.
    check: (c) => {
      // `:httponly => false` exposes the session cookie to script (Brakeman's SessionSettings reads both flags).
      if (c.store) return /\b(secure|httponly)(:|\s*=>)\s*false\b/.test(c.args?.text ?? '');
      if (c.laravel) return !/['"]secure['"]\s*=>\s*(true|env\()/i.test(c.laravel.text);
      return !securedCookie(c.args?.text ?? '', c.fn?.text);
    },
  },
  {
    id: 'security/cleartext-transport',
    needles: ['http://', 'ws://', 'ftp://', 'HTTP://'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-319',
    message:
      '{finding} is a cleartext URL (HTTP, WebSocket or FTP): anyone on the path can read and change what is sent; use https://, wss:// or SFTP/FTPS.',
    languages: Object.fromEntries(
      Object.entries(STRING_TYPES).map(([lang, types]) => [
        lang,
        `(${types} @finding (#match? @finding "^[A-Za-z@]{0,2}[\\"'\`]+([Hh][Tt][Tt][Pp]|[Ww][Ss]|[Ff][Tt][Pp])://"))`,
      ]),
    ),
    check: (c) => cleartextUrl(c.finding?.text ?? ''),
  },
];
