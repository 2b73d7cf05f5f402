import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/** RSA and DSA keys shorter than 2048 bits are within reach of factoring (NIST SP 800-131A). */
const MIN_KEY_BITS = 2048;

/** Elliptic curves under 224 bits (SECP192R1, SECT163K1, …), as weak as RSA under 2048. */
const WEAK_CURVE = /\bSEC[PT]1\d\d[RK]\d\b/;

/**
 * Whether a key-generating call asks for a weak key: the size named by a keyword (`key_size=`, `bits=`,
 * `modulusLength:`), else the first integer between 512 and 16384 bits (65537 is a public exponent), or a curve
 * under 224 bits. A size held in a variable is not judged.
 */
export function weakKeySize(call: string): boolean {
  if (WEAK_CURVE.test(call)) return true;
  const named = /\b(key_size|bits|modulusLength|keySize)\s*[=:]\s*(\d+)/.exec(call);
  if (named) return Number(named[2]) < MIN_KEY_BITS;
  if (/\b(key_size|bits|modulusLength|keySize)\s*[=:]/.test(call)) return false;
  for (const m of call.matchAll(/(?<![\w.])(\d{3,5})(?![\w.])/g)) {
    const bits = Number(m[1]);
    if (bits >= 512 && bits <= 16384) return bits < MIN_KEY_BITS;
  }
  return false;
}

/** A shared temporary directory at the start of a path (regular-expression text). */
const TMP = '(/tmp|/var/tmp|/dev/shm)/';

const C_KEYGEN = callText(
  'call_expression',
  '^(RSA_generate_key(_ex)?|DSA_generate_parameters(_ex)?|EVP_PKEY_CTX_set_rsa_keygen_bits)\\(',
);

/** APIs whose use is the weakness, whatever the data: short keys, predictable temp names, unescaped templates. */
export const RISKY_API_RULES: RuleDefinition[] = [
  {
    id: 'security/weak-key-size',
    needles: [
      'rsa',
      'RSA',
      'dsa',
      'DSA',
      'key_size',
      'modulusLength',
      'initialize',
      'GenerateKey',
      'KeySize',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-326',
    message:
      '`{finding}` makes an RSA/DSA key shorter than 2048 bits, which can be factored; use 2048 bits or more (3072 for keys that must last).',
    languages: {
      python: callText(
        'call',
        '^[\\w.]*(rsa|dsa|RSA|DSA|\\bec)\\.(generate_private_key|generate_parameters|generate)\\(',
      ),
      go: callText('call_expression', '^(rsa|dsa)\\.(GenerateKey|GenerateMultiPrimeKey)\\('),
      java: callText('method_invocation', '\\.initialize\\(\\s*\\d+'),
      kotlin: callText('call_expression', '\\.initialize\\(\\s*\\d+'),
      ...forJs(callText('call_expression', '^([\\w.]*\\.)?generateKeyPair(Sync)?\\(\\s*[\'"](rsa|dsa)')),
      c: C_KEYGEN,
      cpp: C_KEYGEN,
      ruby: callText('call', '^OpenSSL::PKey::(RSA|DSA)\\.(new|generate)\\(\\s*\\d+'),
      php: `((array_element_initializer (string) @k (integer) @finding) (#match? @k "private_key_bits"))`,
      // .NET: `new RSACryptoServiceProvider(1024)`, `RSA.Create(1024)`, `new DSACryptoServiceProvider(1024)`, `rsa.KeySize = 1024`
      // (an RSA/DSA object by its name: an AES object's KeySize is symmetric).
      csharp: `${callText('object_creation_expression', '^new\\s+(RSA|DSA)(CryptoServiceProvider|Cng|OpenSsl)\\(\\s*\\d+')}
               ${callText('invocation_expression', '^(RSA|DSA)\\.Create\\(\\s*\\d+')}
               ((assignment_expression left: (member_access_expression expression: (identifier) @r name: (identifier) @n) right: (integer_literal) @finding) @k
                 (#eq? @n "KeySize") (#match? @r "[rR][sS][aA]|[dD][sS][aA]"))`,
    },
    check: (c) => (c.k ? Number(c.finding?.text) < MIN_KEY_BITS : weakKeySize(c.finding?.text ?? '')),
  },
  {
    id: 'security/insecure-temp-file',
    needles: ['mktemp', 'tmpnam', 'tempnam'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-377',
    message:
      '`{finding}` returns a temporary file name that another process can create first (a race to a symlink); create the file atomically (tempfile.mkstemp / NamedTemporaryFile, mkstemp(3)).',
    languages: {
      c: callText('call_expression', '^(mktemp|tmpnam|tempnam)\\('),
      cpp: callText('call_expression', '^(std::)?(mktemp|tmpnam|tempnam)\\('),
    },
  },
  {
    id: 'security/hardcoded-temp-path',
    needles: ['/tmp/', '/var/tmp/', '/dev/shm/'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-377',
    message:
      '`{finding}` opens a fixed name in a shared temporary directory, which another user can create first (or point elsewhere with a symlink); create it with mkstemp / os.CreateTemp / Files.createTempFile instead.',
    languages: {
      python: callText('call', `^(open|io\\.open|os\\.open|codecs\\.open)\\(\\s*[rbuRB]?["']${TMP}`),
      go: callText('call_expression', `^(os\\.(Create|OpenFile|WriteFile)|ioutil\\.WriteFile)\\(\\s*"${TMP}`),
      java: callText(
        'object_creation_expression',
        `^new\\s+(java\\.io\\.)?(File|FileOutputStream|FileWriter|PrintWriter|RandomAccessFile)\\(\\s*"${TMP}`,
      ),
      ...forJs(
        callText(
          'call_expression',
          `^([\\w.]*\\.)?(writeFile|writeFileSync|open|openSync|createWriteStream|appendFile|appendFileSync)\\(\\s*["'\x60]${TMP}`,
        ),
      ),
      c: callText('call_expression', `^(fopen|open|creat)\\(\\s*"${TMP}`),
      cpp: callText('call_expression', `^(fopen|open|creat)\\(\\s*"${TMP}`),
      php: callText('function_call_expression', `^(fopen|file_put_contents|touch)\\(\\s*["']${TMP}`),
      ruby: callText('call', `^File\\.(open|write|new)\\(\\s*["']${TMP}`),
      // `cmd > /tmp/name`: a fixed name another user can create first, as a symlink to a file of this user's.
      bash: `((file_redirect destination: [(word) (string)] @p) @finding (#match? @p ${JSON.stringify(`^["']?${TMP}[\\w.-]+["']?$`)}))`,
    },
  },
  {
    id: 'security/template-autoescape-off',
    needles: ['Environment', 'noEscape', 'autoescape', 'escape_html', 'disable_escape', 'Mustache.escape'],
    // Other libraries have an `Environment` too (simulations, gym): only a file using jinja2 means its templates.
    needlesByLanguage: { python: ['jinja2', 'autoescape'] },
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-79',
    message:
      '`{finding}` renders templates without HTML escaping, so any value in them can inject script; turn autoescaping on (jinja2 `autoescape=True` or `select_autoescape()`, Django `Context(autoescape=True)` and the TEMPLATES option, nunjucks/Twig `autoescape: true`, Haml `escape_html: true`).',
    languages: {
      python: `((call function: [(identifier) @fn (attribute attribute: (identifier) @fn)] arguments: (argument_list) @args) @finding
                 (#eq? @fn "Environment"))
               ((call function: [(identifier) @fn (attribute attribute: (identifier) @fn)]
                  arguments: (argument_list (keyword_argument name: (identifier) @kw value: (false)))) @finding
                 (#eq? @fn "Context") (#eq? @kw "autoescape"))
               ((pair key: (string) @k value: (false)) @finding (#match? @k "^[\\"']autoescape[\\"']$"))`,
      // Handlebars `noEscape`, nunjucks/swig `autoescape: false`, Mustache.js's escape replaced.
      ...forJs(`((pair key: (property_identifier) @k value: (true)) @finding (#eq? @k "noEscape"))
        ((pair key: [(property_identifier) (string)] @k value: (false)) @finding (#match? @k "^[\\"']?autoescape[\\"']?$"))
        ((assignment_expression left: (member_expression object: (identifier) @o property: (property_identifier) @p)
           right: [(function_expression) (arrow_function)]) @finding (#eq? @o "Mustache") (#eq? @p "escape"))`),
      // Twig's `'autoescape' => false`.
      php: `((array_element_initializer [(string) (encapsed_string)] @k (boolean) @v) @finding
              (#match? @k "^[\\"']autoescape[\\"']$") (#match? @v "^(false|FALSE)$"))`,
      // Haml `escape_html: false` (and its global option), Slim `disable_escape: true`.
      ruby: `((pair key: (hash_key_symbol) @k value: (false)) @finding (#eq? @k "escape_html"))
             ((pair key: (hash_key_symbol) @k value: (true)) @finding (#eq? @k "disable_escape"))
             ((assignment left: (element_reference (simple_symbol) @k) right: (false)) @finding (#eq? @k ":escape_html"))`,
    },
    check: (c) => {
      if (!c.args) return true;
      // On only when evidently on: `True` or `select_autoescape(…)`; a variable or another call may be anything.
      const setting = /\bautoescape\s*=\s*([^,)]+)/.exec(c.args.text)?.[1]?.trim();
      return setting === undefined || !(setting === 'True' || /(^|\.)select_autoescape\(/.test(setting));
    },
  },
  {
    // Semgrep's go import-text-template: text/template writes values as they are; only html/template escapes them.
    id: 'security/text-template-response',
    needles: ['"text/template"'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-79',
    message:
      '`{finding}` writes a text/template to the HTTP response: it does not escape HTML, so any value in it can inject script; use html/template.',
    languages: {
      go: `((call_expression function: (selector_expression field: (field_identifier) @m) arguments: (argument_list . (_) @w)) @finding
             (#match? @m "^Execute(Template)?$") (#match? @w "^(w|rw|writer|resp|res|response|c\\.Writer|ctx\\.Writer)$"))`,
    },
  },
];
