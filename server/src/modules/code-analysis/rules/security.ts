import { SECRET_RULES } from './security-secrets';
import { forJs, type RuleDefinition } from './types';

/** Pattern rules for security; flows from untrusted input to sinks are in taint/. */
export const SECURITY_RULES: RuleDefinition[] = [
  {
    id: 'security/weak-hash',
    needles: ['md5', 'MD5', 'sha1', 'SHA1', 'SHA-1', 'md4', 'Digest'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message:
      'Weak hash `{finding}`: MD5 and SHA-1 are broken for security use; use SHA-256 or better (and bcrypt/scrypt/argon2 for passwords).',
    languages: {
      python: `((call function: (attribute object: (identifier) @mod attribute: (identifier) @fn)) @finding (#eq? @mod "hashlib") (#match? @fn "^(md5|sha1|md4)$"))
                ((call function: (attribute object: (identifier) @mod attribute: (identifier) @fn) arguments: (argument_list . (string (string_content) @alg))) @finding
                  (#eq? @mod "hashlib") (#eq? @fn "new") (#match? @alg "^(md5|MD5|sha1|SHA1|md4)$"))`,
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @alg))) @finding
        (#match? @fn "^(createHash|createHmac)$") (#match? @alg "^(md5|sha1|MD5|SHA1|md4|RSA-MD5)$"))`),
      java: `((method_invocation object: (identifier) @cls name: (identifier) @fn arguments: (argument_list . (string_literal) @alg)) @finding
        (#eq? @cls "MessageDigest") (#eq? @fn "getInstance") (#match? @alg "\\"(MD5|MD2|SHA-?1|md5|sha-?1)\\""))`,
      go: `((call_expression function: (selector_expression operand: (identifier) @pkg field: (field_identifier) @fn)) @finding
        (#match? @pkg "^(md5|sha1)$") (#match? @fn "^(New|Sum)$"))`,
      php: `((function_call_expression function: (name) @fn) @finding (#match? @fn "^(md5|sha1|md5_file|sha1_file)$"))`,
      ruby: `((scope_resolution scope: (constant) @m name: (constant) @alg) @finding (#eq? @m "Digest") (#match? @alg "^(MD5|SHA1)$"))`,
      csharp: `((invocation_expression function: (member_access_expression expression: (identifier) @cls name: (identifier) @fn)) @finding
        (#match? @cls "^(MD5|SHA1)$") (#eq? @fn "Create"))`,
    },
  },
  {
    id: 'security/weak-cipher',
    needles: ['DES', 'des', 'ARC', 'RC4', 'rc4', 'Blowfish', 'bf', 'ECB', 'ecb', 'RC2', 'rc2'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      'Weak cipher or mode `{finding}`: DES, 3DES, RC4, Blowfish and ECB mode do not protect data; use AES-GCM or ChaCha20-Poly1305.',
    languages: {
      python: `((call function: (attribute object: (identifier) @cls attribute: (identifier) @fn)) @finding
        (#match? @cls "^(DES|DES3|ARC4|ARC2|Blowfish)$") (#eq? @fn "new"))`,
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @alg))) @finding
        (#match? @fn "^createCipher(iv)?$") (#match? @alg "^(des|rc4|bf|blowfish|rc2)|-ecb$|^des-ede"))`),
      java: `((method_invocation object: (identifier) @cls name: (identifier) @fn arguments: (argument_list . (string_literal) @alg)) @finding
        (#eq? @cls "Cipher") (#eq? @fn "getInstance") (#match? @alg "\\"(DES|DESede|RC4|RC2|Blowfish|AES\\"|AES/ECB|[A-Za-z0-9]+/ECB)"))`,
      go: `((call_expression function: (selector_expression operand: (identifier) @pkg field: (field_identifier) @fn)) @finding
        (#match? @pkg "^(des|rc4)$") (#match? @fn "^New(Cipher|TripleDESCipher)$"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (_) . (argument (string) @alg))) @finding
        (#match? @fn "^openssl_(en|de)crypt$") (#match? @alg "(?:des|rc4|bf-|-ecb)"))`,
    },
  },
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
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'InsecureSkipVerify',
      'CURLOPT_SSL',
      'VERIFY_NONE',
      'check',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-295',
    message:
      '`{finding}` turns off TLS certificate verification, allowing man-in-the-middle attacks; keep verification on and trust the right CA instead.',
    languages: {
      python: `((keyword_argument name: (identifier) @k value: (false)) @finding (#eq? @k "verify"))
                ((attribute object: (identifier) @m attribute: (identifier) @a) @finding (#eq? @m "ssl") (#eq? @a "_create_unverified_context"))
                ((attribute object: (identifier) @m attribute: (identifier) @a) @finding (#eq? @m "ssl") (#eq? @a "CERT_NONE"))`,
      ...forJs(`((pair key: (property_identifier) @k value: (false)) @finding (#eq? @k "rejectUnauthorized"))
                 ((assignment_expression left: (_) @l right: (string)) @finding (#match? @l "NODE_TLS_REJECT_UNAUTHORIZED"))`),
      go: `((keyed_element (literal_element (identifier) @k) (literal_element (true))) @finding (#eq? @k "InsecureSkipVerify"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments (argument (name) @opt) . (argument [(boolean) (integer)] @v))) @finding
        (#eq? @fn "curl_setopt") (#match? @opt "^CURLOPT_SSL_VERIFY(PEER|HOST)$") (#match? @v "^(false|FALSE|0)$"))`,
      ruby: `((scope_resolution name: (constant) @c) @finding (#eq? @c "VERIFY_NONE"))`,
      java: `((method_declaration name: (identifier) @n body: (block . "{" . "}")) @finding (#match? @n "^(checkServerTrusted|checkClientTrusted)$"))`,
    },
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
    ],
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
             ((name) @finding (#eq? @finding "LIBXML_NOENT"))`,
      ...forJs(`((pair key: (property_identifier) @k value: (true)) @finding (#eq? @k "noent"))`),
    },
  },
  {
    id: 'security/debug-mode',
    needles: ['debug', 'DEBUG', 'display_errors', 'showStackError', 'consider_all_requests_local'],
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
        (#eq? @fn "ini_set") (#match? @opt "display_errors") (#match? @v "^(1|true|'1'|\\"1\\"|'On'|\\"On\\"|'on')$"))`,
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @opt) . (true))) @finding
        (#eq? @fn "set") (#match? @opt "^(debug|showStackError)$"))`),
      ruby: `((assignment left: (call method: (identifier) @m) right: (true)) @finding (#eq? @m "consider_all_requests_local"))`,
    },
  },
  ...SECRET_RULES,
];
