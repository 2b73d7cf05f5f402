import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/**
 * Cross-site request forgery protection turned off (CWE-352), as Semgrep, Brakeman, CodeQL and the Roslyn security
 * analyzers (SCS0016) report it: Django's `@csrf_exempt`, Flask-WTF's `WTF_CSRF_ENABLED = False` and
 * `@csrf.exempt`, Spring Security's `csrf().disable()` in its three spellings, Rails controllers that skip
 * `verify_authenticity_token` or inherit `ActionController::Base` without `protect_from_forgery`, ASP.NET
 * `[IgnoreAntiforgeryToken]` and state-changing actions without `[ValidateAntiForgeryToken]`, Laravel's
 * `VerifyCsrfToken` excepting every route.
 */
const SPRING =
  '\\.csrf\\(\\s*\\)\\s*\\.disable\\(\\s*\\)$|\\.csrf\\(\\s*(\\w+\\s*->\\s*\\w+\\.disable\\(\\s*\\)|AbstractHttpConfigurer::disable|\\{\\s*(\\w+\\s*->\\s*)?(it\\.)?disable\\(\\s*\\)\\s*\\})\\s*\\)$';

export const CSRF_RULES: RuleDefinition[] = [
  {
    id: 'security/csrf-disabled',
    needles: [
      'csrf',
      'CSRF',
      'authenticity_token',
      'ActionController::Base',
      'Antiforgery',
      'HttpPost',
      'HttpPut',
      'HttpDelete',
      'HttpPatch',
      'VerifyCsrfToken',
    ],
    // A project that validates the antiforgery token for every action (a global filter) needs no attribute.
    unlessByLanguage: { csharp: ['AutoValidateAntiforgeryToken', 'ApiController'] },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-352',
    message:
      "`{finding}` turns off CSRF protection: another site can make a signed-in user submit this request; keep the framework's CSRF check on (use a token, or SameSite cookies and a custom header for APIs).",
    languages: {
      python: `((decorator [(identifier) (attribute)] @d) @finding (#match? @d "^(csrf_exempt|csrf\\\\.exempt)$"))
               ((assignment left: (identifier) @k right: (false)) @finding (#match? @k "^WTF_CSRF_(ENABLED|CHECK_DEFAULT)$"))
               ((assignment left: (subscript subscript: (string) @k) right: (false)) @finding (#match? @k "WTF_CSRF_(ENABLED|CHECK_DEFAULT)"))
               ((pair key: (string) @k value: (false)) @finding (#match? @k "WTF_CSRF_(ENABLED|CHECK_DEFAULT)"))`,
      // Reported on the `csrf` call itself: a security chain spans many lines.
      java: `((method_invocation name: (identifier) @finding arguments: (argument_list) @args) (#eq? @finding "csrf"))
             ((method_invocation object: (method_invocation name: (identifier) @finding arguments: (argument_list) @args) name: (identifier) @d)
               (#eq? @finding "csrf") (#eq? @d "disable"))`,
      // Kotlin also passes the customizer as a trailing lambda: `.csrf { it.disable() }`.
      kotlin: `${callText('call_expression', `${SPRING}|\\.csrf\\s*\\{\\s*(\\w+\\s*->\\s*\\w+\\.|it\\.)?disable\\(\\s*\\)\\s*\\}$`)}
               ((call_expression (simple_identifier) @c (call_suffix (annotated_lambda (lambda_literal (statements (call_expression (simple_identifier) @d)))))) @finding
                 (#eq? @c "csrf") (#eq? @d "disable"))`,
      scala: callText('call_expression', SPRING),
      ruby: `((call method: (identifier) @m arguments: (argument_list (simple_symbol) @s)) @finding
               (#match? @m "^(skip_before_action|skip_before_filter|skip_forgery_protection)$") (#eq? @s ":verify_authenticity_token"))
             ((call method: (identifier) @m) @finding (#eq? @m "skip_forgery_protection"))
             ((class superclass: (superclass) @sc) @finding (#match? @sc "ActionController::Base$"))`,
      csharp: `((attribute name: (identifier) @a) @finding (#match? @a "^IgnoreAntiforgeryToken(Attribute)?$"))
               ((method_declaration (attribute_list (attribute name: (identifier) @a))) @finding (#match? @a "^Http(Post|Put|Delete|Patch)$"))`,
      php: `((property_element name: (variable_name (name) @n) default_value: (array_creation_expression (array_element_initializer (string) @v))) @finding
              (#eq? @n "except") (#match? @v "^[\\"']\\\\*[\\"']$"))
            ((array_element_initializer (string) @k (boolean) @v) @finding (#match? @k "^.csrf_protection.$") (#match? @v "^(false|FALSE)$"))`,
      // Express: csurf told to skip a state-changing method, lusca or another middleware given `csrf: false`.
      ...forJs(`((pair key: (property_identifier) @k value: (array (string) @v)) @finding
                   (#eq? @k "ignoreMethods") (#match? @v "^[\\"'](POST|PUT|PATCH|DELETE|post|put|patch|delete)[\\"']$"))
                 ((pair key: (property_identifier) @k value: (false)) @finding (#eq? @k "csrf"))`),
    },
    check: (c) => {
      if (c.args)
        return c.d
          ? /^\(\s*\)$/.test(c.args.text)
          : /^\(\s*(\w+\s*->\s*\w+\.disable\(\s*\)|\w+\s*->\s*\{\s*\w+\.disable\(\s*\);?\s*\}|AbstractHttpConfigurer::disable)\s*\)$/.test(
              c.args.text,
            );
      const text = c.finding?.text ?? '';
      if (c.sc)
        return (
          !/\bprotect_from_forgery\b/.test(text) || /protect_from_forgery\s+with:\s*:null_session/.test(text)
        );
      if (c.a && /^Http/.test(c.a.text))
        return !/ValidateAntiForgeryToken/.test(text.slice(0, text.indexOf('(')));
      return true;
    },
  },
  {
    // FindSecBugs SPRING_CSRF_UNRESTRICTED_REQUEST_MAPPING, Semgrep's unrestricted-request-mapping: a handler mapped
    // without `method =` answers GET too, which Spring Security's CSRF check lets through, so a state change it makes
    // can be triggered by a link or an image on another site.
    id: 'security/csrf-unrestricted-request-mapping',
    needles: ['RequestMapping'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-352',
    message:
      '`{finding}` maps the handler to every HTTP method, GET included, which CSRF protection does not check; name the method (`method = RequestMethod.POST`, or @PostMapping).',
    languages: {
      java: `((method_declaration (modifiers [(annotation name: (identifier) @a arguments: (annotation_argument_list) @args) (marker_annotation name: (identifier) @a)] @finding))
               (#eq? @a "RequestMapping"))`,
    },
    check: (c) => !/\bmethod\s*=/.test(c.args?.text ?? ''),
  },
  {
    // gosec G121: Go 1.25's http.CrossOriginProtection exempts the paths a bypass pattern matches; a pattern that
    // matches every path ("/", "/*", "/{path...}") or comes from a variable turns the protection off.
    id: 'security/csrf-protection-bypassed',
    needles: ['AddInsecureBypassPattern'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-352',
    message:
      '`{finding}` exempts every path (or one chosen at run time) from cross-origin protection, so cross-site requests reach all handlers; bypass only fixed, narrow paths such as a webhook.',
    languages: {
      go: `((call_expression function: (selector_expression field: (field_identifier) @fn) arguments: (argument_list . (_) @p .)) @finding
             (#eq? @fn "AddInsecureBypassPattern"))`,
    },
    check: (c) => {
      const p = c.p;
      if (!p) return false;
      if (!/^(interpreted_string_literal|raw_string_literal)$/.test(p.type)) return true;
      const path = p.text
        .slice(1, -1)
        .replace(/^[A-Z]+\s+/, '')
        .replace(/^[^/]*(?=\/)/, '');
      return /^\/(\*|\{[^}]*\.\.\.\})?$/.test(path);
    },
  },
];
