import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/**
 * CORS that lets any site read authenticated responses (CWE-942), as the Semgrep registry's express, .NET and PHP
 * rules report it: the request's own `Origin` reflected into `Access-Control-Allow-Origin`, or any origin allowed
 * together with credentials (`cors({ origin: true, credentials: true })`, `SetIsOriginAllowed(_ => true)` or
 * `AllowAnyOrigin()` with `AllowCredentials()`). A fixed origin or an allow-list is not reported.
 */
const ALLOW_ORIGIN = JSON.stringify(`^['"]Access-Control-Allow-Origin['"]$`);
const REQUEST_ORIGIN = JSON.stringify(
  String.raw`^(req|request|ctx)\.(headers\.origin|headers\[['"]origin['"]\]|get\(['"]origin['"]\)|header\(['"]origin['"]\))$`,
);
const RUBY_REQUEST_ORIGIN = JSON.stringify(
  String.raw`^request\.(origin|headers\[['"](Origin|HTTP_ORIGIN)['"]\]|env\[['"]HTTP_ORIGIN['"]\])$`,
);

/** A Go CORS options entry that admits every origin, in options that also allow credentials. */
function goAnyOriginWithCredentials(entry: string, options: string): boolean {
  if (!/\bAllowCredentials\s*:\s*true\b/.test(options)) return false;
  return (
    /^Allow(ed)?Origins\s*:\s*\[\]string\s*\{\s*"\*"\s*,?\s*\}$/.test(entry) ||
    /^AllowAllOrigins\s*:\s*true$/.test(entry) ||
    /^AllowOriginFunc\s*:\s*func\s*\([^)]*\)\s*bool\s*\{\s*return\s+true\s*\}$/.test(entry)
  );
}

/**
 * Spring's CorsConfiguration allowing any origin (`addAllowedOrigin("*")`, `setAllowedOrigins(List.of("*"))`) in the
 * block that turns credentials on (`setAllowCredentials(true)`), either order; `@CrossOrigin(origins = "*",
 * allowCredentials = "true")` says both itself.
 */
const ORIGIN_CALL = `(expression_statement (method_invocation name: (identifier) @m arguments: (argument_list . (_) @star .)) @finding)`;
const CREDENTIALS_CALL = `(expression_statement (method_invocation name: (identifier) @cr arguments: (argument_list . (true) .)))`;
const ORIGIN_PREDICATES = `(#match? @m "^(addAllowedOrigin|addAllowedOriginPattern|setAllowedOrigins|setAllowedOriginPatterns)$")
          (#match? @star "^(.[*].|[a-zA-Z.]+[(].[*].[)])$") (#eq? @cr "setAllowCredentials")`;
const ANY_ORIGIN_BEAN = `((block ${ORIGIN_CALL} ${CREDENTIALS_CALL}) ${ORIGIN_PREDICATES})
        ((block ${CREDENTIALS_CALL} ${ORIGIN_CALL}) ${ORIGIN_PREDICATES})`;

/**
 * A response header set by hand to allow any origin (`*`) or the `null` origin (sandboxed frames, `data:` pages),
 * as FindSecBugs' PERMISSIVE_CORS and Semgrep's permissive-cors read it: `response.addHeader(...)`,
 * `w.Header().Set(...)`, `header("Access-Control-Allow-Origin: *")`, `response["Access-Control-Allow-Origin"] = "*"`.
 */
const ACAO = '[Aa]ccess-[Cc]ontrol-[Aa]llow-[Oo]rigin';
const ANY = '(\\*|null)';
const headerCall = (methods: string, q: string) =>
  `\\.(${methods})\\(\\s*${q}${ACAO}${q}\\s*,\\s*${q}${ANY}${q}\\s*\\)$`;
const headerStore = (q: string) => `\\[\\s*${q}${ACAO}${q}\\s*\\]\\s*=\\s*${q}${ANY}${q}$`;
const JVM_HEADER = headerCall('addHeader|setHeader|header|set|add', '"');

export const CORS_RULES: RuleDefinition[] = [
  {
    id: 'security/cors-permissive',
    needles: ['origin', 'Origin', 'ORIGIN', 'permissive', 'anyHost'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-942',
    message:
      '`{finding}` lets any web site make credentialed requests and read the answers; allow a fixed list of origins.',
    languages: {
      ...forJs(`((object (pair key: (property_identifier) @o value: [(true) (string)] @ov) (pair key: (property_identifier) @c value: (true)) @finding) (#eq? @o "origin") (#match? @ov "^(true|['\\"][*]['\\"])$") (#eq? @c "credentials"))
        ((object (pair key: (property_identifier) @c value: (true)) @finding (pair key: (property_identifier) @o value: [(true) (string)] @ov)) (#eq? @o "origin") (#match? @ov "^(true|['\\"][*]['\\"])$") (#eq? @c "credentials"))
        ((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments . (string) @h . (_) @v .)) @finding
          (#match? @m "^(setHeader|set|header|append)$") (#match? @h ${ALLOW_ORIGIN}) (#match? @v ${REQUEST_ORIGIN}))`),
      csharp: `((invocation_expression function: (member_access_expression expression: (invocation_expression function: (member_access_expression name: (identifier) @any) arguments: (argument_list) @a) name: (identifier) @cred)) @finding
          (#match? @any "^(AllowAnyOrigin|SetIsOriginAllowed)$") (#eq? @cred "AllowCredentials"))`,
      // Servlets and Spring: the `Origin` header echoed, or any origin pattern with credentials.
      java: `((method_invocation name: (identifier) @m arguments: (argument_list . (string_literal) @h . (method_invocation name: (identifier) @g arguments: (argument_list . (string_literal) @o)) .)) @finding
          (#match? @m "^(setHeader|addHeader)$") (#match? @h "Access-Control-Allow-Origin") (#eq? @g "getHeader") (#match? @o "^.[Oo]rigin.$"))
        ((method_invocation object: (method_invocation name: (identifier) @any arguments: (argument_list . (string_literal) @star .)) name: (identifier) @cred arguments: (argument_list (true))) @finding
          (#match? @any "^(allowedOriginPatterns|allowedOrigins)$") (#match? @star "^.[*].$") (#eq? @cred "allowCredentials"))
        ${ANY_ORIGIN_BEAN}
        ((annotation name: (identifier) @a) @finding (#eq? @a "CrossOrigin")
          (#match? @finding "origins[ ]*=[ ]*[{]?[ ]*.[*].") (#match? @finding "allowCredentials[ ]*=[ ]*.true."))`,
      // Spring's registry in Kotlin: any origin pattern with credentials; Ktor's CORS plugin with `anyHost()` and
      // `allowCredentials = true`.
      kotlin: `((call_expression (navigation_expression (call_expression (navigation_expression (navigation_suffix (simple_identifier) @any)) (call_suffix (value_arguments . (value_argument (string_literal) @star) .))) (navigation_suffix (simple_identifier) @cred)) (call_suffix (value_arguments (value_argument (boolean_literal) @t)))) @finding
          (#match? @any "^(allowedOriginPatterns|allowedOrigins)$") (#eq? @star "\\"*\\"") (#eq? @cred "allowCredentials") (#eq? @t "true"))
        ((call_expression) @finding (#match? @finding "^install\\\\(\\\\s*CORS\\\\s*\\\\)(?=[\\\\s\\\\S]*anyHost\\\\(\\\\s*\\\\))(?=[\\\\s\\\\S]*allowCredentials\\\\s*=\\\\s*true)"))`,
      // actix-cors' `Cors::permissive()` (every origin, with credentials) or any origin with credentials;
      // tower-http's `CorsLayer::very_permissive()` mirrors the request's origin and allows credentials.
      rust: `((call_expression function: (scoped_identifier) @f) @finding (#match? @f "^(actix_cors::)?Cors::permissive$|^(tower_http::cors::)?CorsLayer::very_permissive$"))
        ((call_expression function: (field_expression value: (call_expression function: (field_expression field: (field_identifier) @any)) field: (field_identifier) @cred)) @finding
          (#eq? @any "allow_any_origin") (#eq? @cred "supports_credentials"))
        ((call_expression function: (field_expression value: (call_expression function: (field_expression field: (field_identifier) @cred)) field: (field_identifier) @any)) @finding
          (#eq? @any "allow_any_origin") (#eq? @cred "supports_credentials"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments (argument (binary_expression left: (string) @h right: (_) @v)))) @finding
          (#eq? @fn "header") (#match? @h "Access-Control-Allow-Origin") (#match? @v "HTTP_ORIGIN|getHeader|header\\\\("))`,
      // django-cors-headers settings: every origin allowed, and credentials too, in either order (flask-cors calls
      // are python-web-calls.ts').
      python: `((module (expression_statement (assignment left: (identifier) @all right: (true))) @finding (expression_statement (assignment left: (identifier) @cred right: (true))))
          (#match? @all "^(CORS_ALLOW_ALL_ORIGINS|CORS_ORIGIN_ALLOW_ALL)$") (#eq? @cred "CORS_ALLOW_CREDENTIALS"))
        ((module (expression_statement (assignment left: (identifier) @cred right: (true))) (expression_statement (assignment left: (identifier) @all right: (true))) @finding)
          (#match? @all "^(CORS_ALLOW_ALL_ORIGINS|CORS_ORIGIN_ALLOW_ALL)$") (#eq? @cred "CORS_ALLOW_CREDENTIALS"))`,
      // CodeQL go/cors-misconfiguration: the `Origin` header echoed; rs/cors and gin-contrib/cors options allowing
      // any origin (`"*"`, `AllowAllOrigins`, an `AllowOriginFunc` that returns true) with credentials.
      go: `((call_expression function: (selector_expression field: (field_identifier) @m) arguments: (argument_list . (interpreted_string_literal) @h . (call_expression function: (selector_expression field: (field_identifier) @g) arguments: (argument_list . (interpreted_string_literal) @o)) .)) @finding
          (#match? @m "^(Set|Add)$") (#match? @h "Access-Control-Allow-Origin") (#eq? @g "Get") (#match? @o "^.[Oo]rigin.$"))
        ((composite_literal type: (qualified_type) @t body: (literal_value (keyed_element key: (literal_element (identifier) @k)) @finding) @body)
          (#match? @t "^cors\\.(Options|Config)$") (#match? @k "^(AllowedOrigins|AllowOrigins|AllowAllOrigins|AllowOriginFunc)$"))`,
      // Rails and Sinatra: the request's `Origin` echoed into the response header.
      ruby: `((assignment left: (element_reference object: (_) @o (string) @h) right: (_) @v) @finding
          (#match? @o "^(response\\\\.)?headers$") (#match? @h "Access-Control-Allow-Origin")
          (#match? @v ${RUBY_REQUEST_ORIGIN}))`,
    },
    // `SetIsOriginAllowed(origin => allowed.Contains(origin))` checks; only a predicate that is always true is open.
    check: (c) => {
      if (c.body) return goAnyOriginWithCredentials(c.finding?.text ?? '', c.body.text);
      return c.any?.text !== 'SetIsOriginAllowed' || /^\(\s*\w+\s*=>\s*true\s*\)$/.test(c.a?.text ?? '');
    },
  },
  {
    // NestJS (Semgrep nestjs-header-cors-any): `app.enableCors()` (whose default is `*`), `enableCors({ origin: '*' })`,
    // `NestFactory.create(M, { cors: true })`, an `@Header('Access-Control-Allow-Origin', '*')` handler. Any site may
    // read the responses; without credentials that exposes what the network position grants (an intranet API), so it
    // is a risky configuration (medium), not the credentialed case above.
    id: 'security/cors-any-origin',
    needles: ['enableCors', 'cors', 'Access-Control-Allow-Origin', 'access-control-allow-origin'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-942',
    message:
      "`{finding}` lets every web site read these responses (Access-Control-Allow-Origin: *); allow the origins that need it (`origin: ['https://app.example.com']`).",
    languages: {
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @m) arguments: (arguments) @args) @finding
        (#eq? @m "enableCors"))
      ((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @m)
          arguments: (arguments (object (pair key: (property_identifier) @k value: (_) @cors)))) @finding
        (#eq? @o "NestFactory") (#eq? @m "create") (#eq? @k "cors"))
      ((decorator (call_expression function: (identifier) @h arguments: (arguments . (string) @n . (string) @v .))) @finding
        (#eq? @h "Header") (#match? @n "^.[Aa]ccess-[Cc]ontrol-[Aa]llow-[Oo]rigin.$") (#match? @v "^.[*].$"))
      ${callText('call_expression', headerCall('setHeader|header|set|append', '[\'"`]'))}`),
      java: callText('method_invocation', JVM_HEADER),
      kotlin: callText('call_expression', JVM_HEADER),
      scala: callText('call_expression', JVM_HEADER),
      csharp: callText(
        'invocation_expression',
        headerCall('Add|Append|AppendHeader|AddHeader|Set|TryAdd', '"'),
      ),
      go: callText('call_expression', headerCall('Set|Add', '"')),
      // PHP's function names are case-insensitive (`Header(…)`), and a header value's trailing blanks are dropped.
      php: callText(
        'function_call_expression',
        `^[Hh][Ee][Aa][Dd][Ee][Rr]\\(\\s*["']${ACAO}:\\s*${ANY}\\s*["']`,
      ),
      python: `${callText('assignment', headerStore('["\']'))}
        ${callText('call', headerCall('add|set|__setitem__', '["\']'))}`,
      ruby: `${callText('assignment', headerStore('["\']'))}
        ${callText('call', headerCall('set_header|add_header', '["\']'))}`,
    },
    check: (c) => {
      const anyOrigin = (options: string) => /\borigin\s*:\s*(true|['"`]\*['"`])/.test(options);
      if (c.args) return /^\(\s*\)$/.test(c.args.text) || anyOrigin(c.args.text);
      if (c.cors) return c.cors.type === 'true' || anyOrigin(c.cors.text);
      return true;
    },
  },
];
