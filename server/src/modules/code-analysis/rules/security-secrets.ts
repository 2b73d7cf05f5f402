import { forJs, type RuleDefinition } from './types';

const NAME =
  '"(^|[.>])[_$]?([A-Za-z_]*_)?([Pp]ass(word|wd)?|PASS(WORD|WD)?|[Ss]ecret|SECRET|[Aa]pi_?[Kk]ey|API_?KEY|[Aa]ccess_?[Kk]ey|ACCESS_?KEY|[Pp]rivate_?[Kk]ey|PRIVATE_?KEY|[Aa]uth_?[Tt]oken|AUTH_?TOKEN|[Cc]lient_?[Ss]ecret|CLIENT_?SECRET)([A-Z_][A-Za-z_]*)?$"';
/** A literal that looks like a real secret, not a placeholder, an env-var name or an empty string. */
const VALUE = '"^.[^$<{%]{5,}.$"';
const PLACEHOLDER = '"(?:changeme|example|placeholder|your[_-]|xxx|\\\\*\\\\*\\\\*|dummy|test|TODO|<)"';

/**
 * Key formats of the common providers (as gitleaks and GitHub's secret scanning define them): AWS access key ids,
 * GitHub, GitLab, Slack, Stripe, Google, OpenAI, Anthropic, SendGrid, npm, Twilio; and a password written inside a
 * connection string (`Password=…;`) or a URL (`scheme://user:password@host`).
 */
const TOKEN = JSON.stringify(
  [
    '\\b(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\\b',
    '\\bgh[pousr]_[A-Za-z0-9]{36,}',
    '\\bgithub_pat_[A-Za-z0-9_]{60,}',
    '\\bglpat-[A-Za-z0-9_-]{20,}',
    '\\bxox[abposr]-[A-Za-z0-9-]{10,}',
    '\\b(sk|rk)_live_[A-Za-z0-9]{20,}',
    '\\bAIza[0-9A-Za-z_-]{35}',
    '\\bsk-(proj-|svcacct-|ant-(api\\d+-)?)?[A-Za-z0-9_-]{32,}',
    '\\bSG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}',
    '\\bnpm_[A-Za-z0-9]{36}',
    '\\bSK[0-9a-f]{32}\\b',
    '\\b(Password|PASSWORD|password|Pwd|PWD|pwd)\\s*=\\s*[^;\'"\\s{}$%<]{4,}\\s*(;|[\'"]$)',
    '\\b[a-z][a-z0-9+.-]*://[^/\\s:@\'"]+:[^/\\s:@\'"$%{}<]{3,}@[^\\s\'"]',
  ].join('|'),
);
const TOKEN_NEEDLES = [
  'AKIA',
  'ASIA',
  'ABIA',
  'ACCA',
  'gh',
  'github_pat_',
  'glpat-',
  'xox',
  '_live_',
  'AIza',
  'sk-',
  'SG.',
  'npm_',
  'SK',
  'assword',
  'ASSWORD',
  'wd',
  'WD',
  '://',
];

/** One top-level pattern per shape, each carrying the name and value checks (predicates do not reach into alternations). */
const secret = (patterns: string[]): string =>
  patterns
    .map(
      (p) =>
        `(${p} (#match? @name ${NAME}) (#match? @finding ${VALUE}) (#not-match? @finding ${PLACEHOLDER}))`,
    )
    .join('\n');

/** String literal node types per grammar. */
export const STRING_TYPES: Record<string, string> = {
  python: '(string)',
  javascript: '[(string) (template_string)]',
  typescript: '[(string) (template_string)]',
  tsx: '[(string) (template_string)]',
  java: '[(string_literal)]',
  go: '[(raw_string_literal) (interpreted_string_literal)]',
  php: '[(string) (encapsed_string) (heredoc)]',
  ruby: '(string)',
  csharp: '[(string_literal) (verbatim_string_literal)]',
  kotlin: '(string_literal)',
  rust: '[(string_literal) (raw_string_literal)]',
  scala: '(string)',
  swift: '[(line_string_literal) (multi_line_string_literal)]',
  c: '(string_literal)',
  cpp: '[(string_literal) (raw_string_literal)]',
  bash: '[(string) (raw_string)]',
};

export const SECRET_RULES: RuleDefinition[] = [
  {
    id: 'security/hardcoded-credential',
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-798',
    message:
      'Hard-coded credential in `{name}`: anyone with the code has it, and rotating it needs a release; read it from the environment or a secret manager.',
    languages: {
      ...forJs(
        secret([
          '(variable_declarator name: (identifier) @name value: (string) @finding)',
          '(pair key: [(property_identifier) (string)] @name value: (string) @finding)',
          '(assignment_expression left: [(identifier) (member_expression property: (property_identifier))] @name right: (string) @finding)',
        ]),
      ),
      python: secret([
        '(assignment left: [(identifier) (attribute)] @name right: (string) @finding)',
        '(keyword_argument name: (identifier) @name value: (string) @finding)',
        '(comparison_operator [(identifier) (attribute)] @name ["==" "!="] (string) @finding)',
      ]),
      java: `((variable_declarator name: (identifier) @name value: (string_literal) @finding)
        (#match? @name ${NAME}) (#match? @finding ${VALUE}) (#not-match? @finding ${PLACEHOLDER}))`,
      go: secret([
        '(short_var_declaration left: (expression_list (identifier) @name) right: (expression_list (interpreted_string_literal) @finding))',
        '(const_spec name: (identifier) @name value: (expression_list (interpreted_string_literal) @finding))',
        '(var_spec name: (identifier) @name value: (expression_list (interpreted_string_literal) @finding))',
        '(assignment_statement left: (expression_list [(identifier) (selector_expression)] @name) right: (expression_list (interpreted_string_literal) @finding))',
        '(keyed_element (literal_element (identifier) @name) (literal_element (interpreted_string_literal) @finding))',
        // `password == "…"`: the secret is written in the comparison.
        '(binary_expression left: [(identifier) (selector_expression)] @name operator: ["==" "!="] right: (interpreted_string_literal) @finding)',
        '(binary_expression left: (interpreted_string_literal) @finding operator: ["==" "!="] right: [(identifier) (selector_expression)] @name)',
      ]),
      ruby: `((assignment left: [(identifier) (constant)] @name right: (string) @finding)
        (#match? @name ${NAME}) (#match? @finding ${VALUE}) (#not-match? @finding ${PLACEHOLDER}))`,
      csharp: `((variable_declarator name: (identifier) @name (string_literal) @finding)
        (#match? @name ${NAME}) (#match? @finding ${VALUE}) (#not-match? @finding ${PLACEHOLDER}))`,
      kotlin: secret([
        '(property_declaration (variable_declaration (simple_identifier) @name) (string_literal) @finding)',
      ]),
      swift: secret([
        '(property_declaration name: (pattern bound_identifier: (simple_identifier) @name) value: (line_string_literal) @finding)',
      ]),
      scala: secret([
        '(val_definition pattern: (identifier) @name value: (string) @finding)',
        '(var_definition pattern: (identifier) @name value: (string) @finding)',
      ]),
      rust: secret([
        '(const_item name: (identifier) @name value: (string_literal) @finding)',
        '(static_item name: (identifier) @name value: (string_literal) @finding)',
        '(let_declaration pattern: (identifier) @name value: (string_literal) @finding)',
      ]),
      ...Object.fromEntries(
        ['c', 'cpp'].map((lang) => [
          lang,
          secret([
            '(preproc_def name: (identifier) @name value: (preproc_arg) @finding)',
            '(init_declarator declarator: [(identifier) (pointer_declarator declarator: (identifier)) (array_declarator declarator: (identifier))] @name value: (string_literal) @finding)',
          ]),
        ]),
      ),
      bash: secret([
        '(variable_assignment name: (variable_name) @name value: [(word) (string) (raw_string)] @finding)',
      ]),
      php: `((assignment_expression left: (variable_name (name) @name) right: [(string) (encapsed_string)] @finding)
        (#match? @name ${NAME}) (#match? @finding ${VALUE}) (#not-match? @finding ${PLACEHOLDER}))
        ((array_element_initializer (string (string_content) @name) [(string) (encapsed_string)] @finding)
        (#match? @name ${NAME}) (#match? @finding ${VALUE}) (#not-match? @finding ${PLACEHOLDER}))`,
    },
  },
  {
    id: 'security/hardcoded-token',
    needles: TOKEN_NEEDLES,
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-798',
    message:
      "A credential in a provider's key format (or a password inside a connection string or URL) is written in the code; revoke it, and read it from the environment or a secret manager.",
    languages: Object.fromEntries(
      Object.entries(STRING_TYPES).map(([lang, types]) => [
        lang,
        // Bash values are often unquoted words (`export KEY=AKIA…`).
        `(${lang === 'bash' ? '[(string) (raw_string) (word)]' : types} @finding (#match? @finding ${TOKEN}))`,
      ]),
    ),
  },
  {
    id: 'security/hardcoded-private-key',
    needles: ['PRIVATE KEY'],
    category: 'security',
    severity: 'critical',
    confidence: 'high',
    cwe: 'CWE-798',
    message:
      'A private key is embedded in the code; remove it, rotate it, and load keys from a secret store.',
    languages: Object.fromEntries(
      Object.entries(STRING_TYPES).map(([lang, types]) => [
        lang,
        `(${types} @finding (#match? @finding "-----BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED) )?PRIVATE KEY-----"))`,
      ]),
    ),
  },
];
