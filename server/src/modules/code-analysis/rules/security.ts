import { callText } from './security-crypto';
import { KEY_RULES } from './security-keys';
import { SECRET_RULES } from './security-secrets';
import { forJs, type RuleDefinition } from './types';

/** libxml2 asked to substitute entities or load external DTDs (`XML_PARSE_NOENT`, `xmlSubstituteEntitiesDefault(1)`). */
const LIBXML2_ENTITIES = `((identifier) @finding (#match? @finding "^XML_PARSE_(NOENT|DTDLOAD)$"))
          ((call_expression function: (identifier) @fn arguments: (argument_list . (number_literal) @v)) @finding
            (#match? @fn "^xml(SubstituteEntitiesDefault|LoadExtDtdDefaultValue)$") (#not-eq? @v "0"))`;

/** Pattern rules for security; flows from untrusted input to sinks are in taint/. */
export const SECURITY_RULES: RuleDefinition[] = [
  {
    id: 'security/insecure-randomness',
    needles: ['random', 'Random', 'rand', 'uniqid', 'lcg_value'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-338',
    message:
      '`{finding}` is not cryptographically secure but makes `{name}`, which looks like a secret; use crypto.randomBytes / crypto.randomUUID / secrets.token_hex / SecureRandom.',
    languages: {
      ...forJs(`((variable_declarator name: (identifier) @name value: (_) @finding)
                   (#match? @finding "Math\\\\.random\\\\(")
                   (#match? @name "([Tt]oken|[Ss]ecret|[Pp]assword|[Nn]once|[Ss]alt|[Oo]tp|[Ss]ession|[Aa]pi_?[Kk]ey|[Rr]eset|[Cc]ode)"))
                 ((assignment_expression left: (_) @name right: (_) @finding)
                   (#match? @finding "Math\\\\.random\\\\(")
                   (#match? @name "([Tt]oken|[Ss]ecret|[Pp]assword|[Nn]once|[Ss]alt|[Oo]tp|[Ss]ession|[Aa]pi_?[Kk]ey|[Rr]eset|[Cc]ode)"))`),
      python: `((assignment left: (_) @name right: (call function: (attribute object: (identifier) @m attribute: (identifier) @fn)) @finding)
        (#eq? @m "random") (#match? @fn "^(random|randint|randrange|choice|choices|getrandbits|sample)$")
        (#match? @name "([Tt]oken|[Ss]ecret|[Pp]assword|[Nn]once|[Ss]alt|[Oo]tp|[Ss]ession|[Kk]ey|[Cc]ode)"))`,
      java: `((variable_declarator name: (identifier) @name value: (_) @finding)
        (#match? @finding "new\\\\s+Random\\\\(|Math\\\\.random\\\\(")
        (#match? @name "([Tt]oken|[Ss]ecret|[Pp]assword|[Nn]once|[Ss]alt|[Oo]tp|[Ss]ession|[Kk]ey)"))`,
      php: `((assignment_expression left: (_) @name right: (function_call_expression function: (name) @fn) @finding)
        (#match? @fn "^(rand|mt_rand|uniqid|lcg_value)$") (#match? @name "([Tt]oken|[Ss]ecret|[Pp]assword|[Nn]once|[Ss]alt|[Kk]ey)"))`,
    },
  },
  {
    id: 'security/tls-verification-disabled',
    needles: [
      'verify',
      'ssl',
      'rejectUnauthorized',
      'strictSSL',
      'checkServerIdentity',
      'NO_VERIFY',
      'HTTPSVERIFY',
      'CURL_INSECURE',
      'sslVerify',
      'trusted-host',
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'InsecureSkipVerify',
      'CURLOPT_SSL',
      'VERIFY_NONE',
      'check',
      'Certificate',
      'HostnameVerifier',
      'hostnameVerifier',
      'danger_accept_invalid',
      'curl',
      'wget',
      'SslVerifyMode',
      'dangerous',
      'URLCredential',
      'ALLOW_ALL_HOSTNAME_VERIFIER',
    ],
    // A URLSession delegate that answers a trust challenge with the server's own trust, unevaluated, accepts any
    // certificate; one that evaluates it (SecTrustEvaluateWithError) does not.
    unlessByLanguage: { swift: ['SecTrustEvaluate'] },
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-295',
    message:
      '`{finding}` turns off TLS certificate verification, allowing man-in-the-middle attacks; keep verification on and trust the right CA instead.',
    languages: {
      // PyJWT's pre-2.0 `jwt.decode(token, verify=False)` is a signature, not TLS (rules/python-web-calls.ts).
      python: `((call function: (_) @fn arguments: (argument_list (keyword_argument name: (identifier) @k value: (false)) @finding)) (#eq? @k "verify") (#not-match? @fn "(^|[.])(jwt|jws)[.]decode(_complete)?$"))
                ((attribute object: (identifier) @m attribute: (identifier) @a) @finding (#eq? @m "ssl") (#eq? @a "_create_unverified_context"))
                ((attribute object: (identifier) @m attribute: (identifier) @a) @finding (#eq? @m "ssl") (#eq? @a "CERT_NONE"))`,
      // `rejectUnauthorized: false` (https, tls, ws, got), request's `strictSSL: false`, a `checkServerIdentity` that
      // accepts any host.
      ...forJs(`((pair key: (property_identifier) @k value: (false)) @finding (#match? @k "^(rejectUnauthorized|strictSSL)$"))
                 ((pair key: (property_identifier) @k value: (arrow_function body: [(undefined) (null) (true)])) @finding (#eq? @k "checkServerIdentity"))
                 ((assignment_expression left: (_) @l right: (string)) @finding (#match? @l "NODE_TLS_REJECT_UNAUTHORIZED"))`),
      go: `((keyed_element (literal_element (identifier) @k) (literal_element [(true) (unary_expression operand: (false))])) @finding (#eq? @k "InsecureSkipVerify"))
           ((assignment_statement left: (expression_list (selector_expression field: (field_identifier) @k)) right: (expression_list (true))) @finding
             (#eq? @k "InsecureSkipVerify"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments (argument (name) @opt) . (argument [(boolean) (integer)] @v))) @finding
        (#eq? @fn "curl_setopt") (#match? @opt "^CURLOPT_SSL_VERIFY(PEER|HOST)$") (#match? @v "^(false|FALSE|0)$"))
        ((array_element_initializer (string) @opt (boolean) @v) @finding
          (#match? @opt "^.(verify_peer|verify_peer_name|verify).$") (#match? @v "^(false|FALSE)$"))
        ((member_call_expression name: (name) @fn) @finding (#eq? @fn "withoutVerifying"))
        ((scoped_call_expression name: (name) @fn) @finding (#eq? @fn "withoutVerifying"))`,
      // Faraday `ssl: { verify: false }`, HTTParty `verify: false`, RestClient `verify_ssl: false`.
      ruby: `((scope_resolution name: (constant) @c) @finding (#eq? @c "VERIFY_NONE"))
             ((pair key: [(hash_key_symbol) (simple_symbol)] @k value: (false)) @finding (#match? @k "^:?(verify|verify_ssl|ssl_verify|verify_peer)$"))`,
      // An empty check, comments aside (`// trust anyone`), accepts every certificate.
      java: `((method_declaration name: (identifier) @n body: (block) @b) @finding (#match? @n "^(checkServerTrusted|checkClientTrusted)$")
               (#match? @b "^\\\\{(\\\\s|//[^\\\\n]*|/\\\\*[^*]*\\\\*+/)*\\\\}$"))
             ((identifier) @finding (#eq? @finding "ALLOW_ALL_HOSTNAME_VERIFIER"))
             ((object_creation_expression type: (type_identifier) @t) @finding (#eq? @t "NoopHostnameVerifier"))
             ((method_invocation name: (identifier) @n arguments: (argument_list (lambda_expression body: (true)))) @finding (#match? @n "^(setHostnameVerifier|setDefaultHostnameVerifier|hostnameVerifier)$"))
             ((class_declaration name: (identifier) @finding interfaces: (super_interfaces (type_list (type_identifier) @i))
                body: (class_body (method_declaration name: (identifier) @v body: (block . (return_statement (true)) .))))
               (#eq? @i "HostnameVerifier") (#eq? @v "verify"))
             ((object_creation_expression type: (type_identifier) @i
                (class_body (method_declaration name: (identifier) @v body: (block . (return_statement (true)) .)))) @finding
               (#eq? @i "HostnameVerifier") (#eq? @v "verify"))`,
      kotlin: `${callText('call_expression', '(\\.hostnameVerifier|^HostnameVerifier)\\s*\\{\\s*[\\w\\s,]*->\\s*true\\s*\\}$')}
             ((function_declaration (simple_identifier) @n (function_body) @b) @finding (#match? @n "^check(Server|Client)Trusted$") (#match? @b "^\\\\{(\\\\s|//[^\\\\n]*|/\\\\*[^*]*\\\\*+/)*\\\\}$"))`,
      csharp: `((assignment_expression left: (_) @l right: (lambda_expression body: (boolean_literal) @v)) @finding
               (#match? @l "(ServerCertificate(Custom)?ValidationCallback|RemoteCertificateValidationCallback)$") (#eq? @v "true"))
             ((assignment_expression left: (_) @l right: [(lambda_expression body: (block . (return_statement (boolean_literal) @v) .))
                                                          (anonymous_method_expression (block . (return_statement (boolean_literal) @v) .))]) @finding
               (#match? @l "(ServerCertificate(Custom)?ValidationCallback|RemoteCertificateValidationCallback)$") (#eq? @v "true"))
             ((member_access_expression name: (identifier) @n) @finding (#eq? @n "DangerousAcceptAnyServerCertificateValidator"))`,
      rust: `${callText('call_expression', '\\.danger_accept_invalid_(certs|hostnames)\\(\\s*true\\s*\\)$')}
             ((scoped_identifier) @finding (#match? @finding "^(openssl::ssl::)?SslVerifyMode::NONE$"))
             ${callText('call_expression', '\\.dangerous\\(\\)\\s*\\.\\s*(set_certificate_verifier|with_custom_certificate_verifier)\\(')}`,
      ...Object.fromEntries(
        ['c', 'cpp'].map((lang) => [
          lang,
          `((call_expression function: (identifier) @fn arguments: (argument_list (_) . (identifier) @v)) @finding
             (#match? @fn "^SSL(_CTX)?_set_verify$") (#eq? @v "SSL_VERIFY_NONE"))
           ${callText('call_expression', '^curl_easy_setopt\\(\\s*\\w+\\s*,\\s*CURLOPT_SSL_VERIFY(PEER|HOST)\\s*,\\s*(0L?|false|FALSE)\\s*\\)$')}`,
        ]),
      ),
      // Scala: an X509TrustManager whose checks are empty, a hostname verifier that answers true, Play WS/Akka's
      // "loose" acceptAnyCertificate.
      scala: `((function_definition name: (identifier) @n body: [(block) (unit)] @b) @finding
               (#match? @n "^check(Server|Client)Trusted$") (#match? @b "^(\\\\{\\\\s*\\\\}|\\\\(\\\\s*\\\\))$"))
             ((identifier) @finding (#eq? @finding "ALLOW_ALL_HOSTNAME_VERIFIER"))
             ((instance_expression (type_identifier) @t) @finding (#eq? @t "NoopHostnameVerifier"))
             ((call_expression function: (field_expression field: (identifier) @n) arguments: (arguments (lambda_expression (boolean_literal) @v))) @finding
               (#match? @n "^(setHostnameVerifier|setDefaultHostnameVerifier|hostnameVerifier)$") (#eq? @v "true"))
             ((call_expression function: (field_expression field: (identifier) @n) arguments: (arguments (boolean_literal) @v)) @finding
               (#eq? @n "withAcceptAnyCertificate") (#eq? @v "true"))`,
      swift: callText('call_expression', '^URLCredential\\(\\s*trust:'),
      bash: `((command name: (command_name) @n argument: (word) @a) @finding (#eq? @n "curl") (#match? @a "^(--insecure|-[a-zA-Z]*k[a-zA-Z]*)$"))
             ((command name: (command_name) @n argument: (word) @a) @finding (#eq? @n "wget") (#eq? @a "--no-check-certificate"))
             ((command name: (command_name) @n argument: (word) @a) @finding (#eq? @n "git") (#match? @a "^http\\.sslVerify=(false|0)$"))
             ((command name: (command_name) @n argument: (word) @a . argument: (word) @v) @finding (#match? @n "^(npm|yarn|pnpm)$") (#match? @a "^strict-ssl$") (#eq? @v "false"))
             ((command name: (command_name) @n argument: (word) @a) @finding (#match? @n "^pip3?$") (#eq? @a "--trusted-host"))
             ((variable_assignment name: (variable_name) @v value: (_) @val) @finding
               (#match? @v "^(GIT_SSL_NO_VERIFY|NODE_TLS_REJECT_UNAUTHORIZED|PYTHONHTTPSVERIFY|CURL_INSECURE)$") (#match? @val "^[\\"']?(true|1|0)[\\"']?$"))`,
    },
    // GIT_SSL_NO_VERIFY and CURL_INSECURE turn verification off when set; the other two when set to 0.
    check: (c) =>
      !c.val || /^(GIT_SSL_NO_VERIFY|CURL_INSECURE)$/.test(c.v?.text ?? '') !== /0/.test(c.val.text),
  },
  {
    id: 'security/xxe',
    needles: [
      'resolve_entities',
      'load_dtd',
      'etree',
      'ElementTree',
      'ET',
      'minidom',
      'sax',
      'Factory',
      'libxml',
      'LIBXML_NOENT',
      'noent',
      'NOENT',
      'DtdProcessing',
      'XmlUrlResolver',
      'ProhibitDtd',
      'dtdload',
      'resolveExternals',
      'substituteEntities',
      'shouldResolveExternalEntities',
      'XML_PARSE_NOENT',
      'XML_PARSE_DTDLOAD',
      'xmlSubstituteEntitiesDefault',
    ],
    // A factory in a file that hardens one (DTDs disallowed, external entities off) is taken as hardened.
    unlessByLanguage: {
      java: ['disallow-doctype-decl', 'ACCESS_EXTERNAL_DTD', 'external-general-entities', 'SUPPORT_DTD'],
      kotlin: ['disallow-doctype-decl', 'ACCESS_EXTERNAL_DTD', 'external-general-entities', 'SUPPORT_DTD'],
      scala: ['disallow-doctype-decl', 'ACCESS_EXTERNAL_DTD', 'external-general-entities', 'SUPPORT_DTD'],
    },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-611',
    message:
      '`{finding}` may resolve external entities in untrusted XML (XXE); disable DTDs and external entities (defusedxml in Python, setFeature("http://apache.org/xml/features/disallow-doctype-decl", true) in Java).',
    languages: {
      python: `((keyword_argument name: (identifier) @k value: (true)) @finding (#match? @k "^(resolve_entities|load_dtd)$"))
`,
      java: `((method_invocation object: (identifier) @cls name: (identifier) @fn) @finding
        (#match? @cls "^(DocumentBuilderFactory|SAXParserFactory|XMLInputFactory|TransformerFactory)$") (#match? @fn "^new(Instance|Factory)$"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments (argument (boolean) @v))) @finding (#eq? @fn "libxml_disable_entity_loader") (#match? @v "^(false|FALSE)$"))
             ((name) @finding (#match? @finding "^LIBXML_(NOENT|DTDLOAD)$"))
             ((assignment_expression left: (member_access_expression name: (name) @p) right: (boolean) @v) @finding
               (#match? @p "^(substituteEntities|resolveExternals)$") (#match? @v "^(true|TRUE)$"))`,
      ...forJs(
        `((pair key: (property_identifier) @k value: (true)) @finding (#match? @k "^(noent|dtdload)$"))`,
      ),
      kotlin: callText(
        'call_expression',
        '^(javax\\.xml\\.(parsers|stream|transform)\\.)?(DocumentBuilderFactory|SAXParserFactory|XMLInputFactory|TransformerFactory)\\.new(Instance|Factory)\\(',
      ),
      scala: callText(
        'call_expression',
        '^(javax\\.xml\\.(parsers|stream|transform)\\.)?(DocumentBuilderFactory|SAXParserFactory|XMLInputFactory|TransformerFactory)\\.new(Instance|Factory)\\(',
      ),
      swift: `((assignment target: (directly_assignable_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @p))) result: (boolean_literal) @v) @finding
               (#eq? @p "shouldResolveExternalEntities") (#eq? @v "true"))`,
      c: LIBXML2_ENTITIES,
      cpp: LIBXML2_ENTITIES,
      ruby: callText(
        'call',
        '^Nokogiri::XML(::Document)?(\\.parse)?\\b[\\s\\S]*\\b(noent|NOENT|dtdload|DTDLOAD)\\b',
      ),
      csharp: `((member_access_expression) @finding (#eq? @finding "DtdProcessing.Parse"))
               ((assignment_expression left: (_) @l right: (object_creation_expression type: (identifier) @t)) @finding
                 (#match? @l "XmlResolver$") (#eq? @t "XmlUrlResolver"))
               ((assignment_expression left: (_) @l right: (boolean_literal) @v) @finding
                 (#match? @l "ProhibitDtd$") (#eq? @v "false"))`,
    },
  },
  {
    id: 'security/sql-injection',
    needles: ['#$'],
    category: 'security',
    severity: 'critical',
    confidence: 'medium',
    cwe: 'CWE-89',
    message:
      "`{finding}` splices a value into the SQL text with Slick's `#$` (no bind parameter); use `$value` so Slick binds it.",
    languages: {
      scala: `((interpolated_string_expression interpolator: (identifier) @i (interpolated_string) @s) @finding (#match? @i "^sqlu?$") (#match? @s ${JSON.stringify('#[$][{]?[A-Za-z_]')}))`,
    },
  },
  {
    id: 'security/debug-mode',
    needles: [
      'debug',
      'DEBUG',
      'display_errors',
      'showStackError',
      'consider_all_requests_local',
      'show_detailed_exceptions',
    ],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-489',
    message:
      '`{finding}` leaves debug mode on, which exposes stack traces and (for Flask/Werkzeug) an interactive console; read it from configuration and keep it off in production.',
    languages: {
      python: `((call function: (attribute attribute: (identifier) @fn) arguments: (argument_list (keyword_argument name: (identifier) @k value: (true)))) @finding
                  (#eq? @fn "run") (#eq? @k "debug"))
                ((assignment left: (identifier) @k right: (true)) @finding (#eq? @k "DEBUG"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (argument (string) @opt) . (argument) @v)) @finding
        (#eq? @fn "ini_set") (#match? @opt "display_errors") (#match? @v "^(1|true|'1'|\\"1\\"|'On'|\\"On\\"|'on')$"))
        ((function_call_expression function: (name) @fn arguments: (arguments . (argument [(string) (encapsed_string)] @opt) .)) @finding
          (#eq? @fn "putenv") (#match? @opt "^.APP_DEBUG=(true|1).$"))
        ((array_element_initializer (string) @opt [(boolean) (string)] @v) @finding
          (#match? @opt "^.(app\\.debug|APP_DEBUG).$") (#match? @v "^.?(true|TRUE|1).?$"))`,
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @opt) . (true))) @finding
        (#eq? @fn "set") (#match? @opt "^(debug|showStackError)$"))`),
      // Rails' `consider_all_requests_local = true`, or a controller's `show_detailed_exceptions?` answering true.
      ruby: `((assignment left: (call method: (identifier) @m) right: (true)) @finding (#eq? @m "consider_all_requests_local"))
             ((method name: (identifier) @m (body_statement [(true) (return (argument_list (true)))])) @finding
               (#eq? @m "show_detailed_exceptions?"))`,
    },
  },
  {
    // Semgrep's phpinfo-use, PHPCS's DiscouragedFunctions: the page lists the server's configuration, modules,
    // paths and environment (database passwords, API keys set there) to whoever loads it.
    id: 'security/phpinfo-exposure',
    needles: ['phpinfo'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-497',
    message:
      "`{finding}` shows the server's configuration and environment (secrets set there included) to whoever requests the page; remove it from deployed code.",
    languages: {
      php: `((function_call_expression function: (name) @fn) @finding (#match? @fn "^(phpinfo|phpcredits)$"))`,
    },
  },
  ...SECRET_RULES,
  ...KEY_RULES,
];
