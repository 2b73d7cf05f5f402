import { forJs, type RuleDefinition } from './types';

/** A string literal saying `None` (any quotes, any case of the first letter). */
const NONE = '^.[Nn][Oo][Nn][Ee].$';

/**
 * Cookies set with `SameSite=None` (CWE-1275): the browser sends them on requests other sites start, so a session
 * cookie so marked gives up the browsers' default defence against cross-site request forgery (Lax). Semgrep's
 * gorilla session-cookie-samesitenone, cookie-missing-samesite and the framework cookie rules read an explicit None
 * as the finding; a cookie meant for third-party embedding needs it, and the message says what must then hold.
 */
export const SAME_SITE_RULES: RuleDefinition[] = [
  {
    id: 'security/cookie-samesite-none',
    needles: ['SameSite', 'samesite', 'sameSite', 'same_site'],
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-1275',
    message:
      "`{finding}` lets the browser send the cookie on requests other sites start, giving up SameSite's defence against CSRF; use Lax or Strict, or (for a cookie meant for embedding) keep it Secure and out of authentication.",
    languages: {
      // `http.Cookie{SameSite: http.SameSiteNoneMode}`, gorilla `sessions.Options{SameSite: http.SameSiteNoneMode}`.
      go: `((keyed_element) @finding (#match? @finding "^SameSite\\\\s*:\\\\s*(http[.])?SameSiteNoneMode$"))`,
      // `response.set_cookie(…, samesite="None")`, Django's `SESSION_COOKIE_SAMESITE = "None"`.
      python: `((keyword_argument name: (identifier) @k value: (string) @v) @finding (#eq? @k "samesite") (#match? @v "${NONE}"))
               ((assignment left: (identifier) @k right: (string) @v) @finding (#match? @k "^(SESSION|CSRF|LANGUAGE)_COOKIE_SAMESITE$") (#match? @v "${NONE}"))`,
      // `res.cookie(n, v, { sameSite: 'none' })`, express-session / cookie-session `cookie: { sameSite: 'none' }`.
      ...forJs(
        `((pair key: (property_identifier) @k value: (string) @v) @finding (#match? @k "^(sameSite|samesite)$") (#match? @v "${NONE}"))`,
      ),
      // Spring's `ResponseCookie.from(…).sameSite("None")`, a servlet cookie's `setAttribute("SameSite", "None")`.
      java: `((method_invocation name: (identifier) @m arguments: (argument_list . (string_literal) @v .)) @finding (#eq? @m "sameSite") (#match? @v "${NONE}"))
             ((method_invocation name: (identifier) @m arguments: (argument_list . (string_literal) @k . (string_literal) @v .)) @finding
               (#eq? @m "setAttribute") (#match? @k "^.SameSite.$") (#match? @v "${NONE}"))`,
      // `new CookieOptions { SameSite = SameSiteMode.None }`, `options.Cookie.SameSite = SameSiteMode.None`.
      csharp: `((assignment_expression left: (_) @k right: (member_access_expression) @v) @finding
                (#match? @k "(^|[.])SameSite$") (#match? @v "SameSiteMode[.]None$"))`,
      // `setcookie($n, $v, ['samesite' => 'None'])`, `session_set_cookie_params(['samesite' => 'None'])`.
      php: `((array_element_initializer [(string) (encapsed_string)] @k [(string) (encapsed_string)] @v) @finding (#match? @k "^.[Ss]ame[Ss]ite.$") (#match? @v "${NONE}"))`,
      // Rails `cookies[:x] = { value: v, same_site: :none }`, `session_store … same_site: :none`.
      ruby: `((pair key: [(hash_key_symbol) (simple_symbol)] @k value: (simple_symbol) @v) @finding (#match? @k "^:?same_site$") (#eq? @v ":none"))`,
    },
  },
];
