import { FORMAT_NEEDLES, privateKeyBlock, secretFormat } from './secret-formats';
import { credentialName, credentialValue } from './secret-values';
import type { RuleDefinition } from './types';

/**
 * Names that may hold a credential; `credentialName` decides on the words. The predicate only spares the check the
 * many assignments that cannot be one.
 */
const NAME_HINT =
  '"([Pp]ass|PASS|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Kk]ey|KEY|[Pp][Ww]|PW|[Cc]red|CRED|[Bb]earer|BEARER)"';

/** One top-level pattern per shape, each with the name hint (predicates do not reach into alternations). */
const named = (patterns: string[]): string =>
  patterns.map((p) => `(${p} (#match? @name ${NAME_HINT}))`).join('\n');

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

const JS_SHAPES = [
  '(variable_declarator name: (identifier) @name value: (string) @finding)',
  '(pair key: [(property_identifier) (string)] @name value: (string) @finding)',
  '(assignment_expression left: [(identifier) (member_expression property: (property_identifier))] @name right: (string) @finding)',
  '(assignment_pattern left: (identifier) @name right: (string) @finding)',
  '(binary_expression left: [(identifier) (member_expression)] @name operator: ["==" "==="] right: (string) @finding)',
];
const C_SHAPES = [
  '(preproc_def name: (identifier) @name value: (preproc_arg) @finding)',
  '(init_declarator declarator: [(identifier) (pointer_declarator declarator: (identifier)) (array_declarator declarator: (identifier))] @name value: (string_literal) @finding)',
  '(assignment_expression left: [(identifier) (field_expression field: (field_identifier))] @name right: (string_literal) @finding)',
  '(call_expression function: (identifier) @cmp arguments: (argument_list . (identifier) @name . (string_literal) @finding) (#match? @cmp "^str(n)?cmp$"))',
];

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
      javascript: named([
        ...JS_SHAPES,
        '(field_definition property: (property_identifier) @name value: (string) @finding)',
      ]),
      ...Object.fromEntries(
        ['typescript', 'tsx'].map((l) => [
          l,
          named([
            ...JS_SHAPES,
            '(public_field_definition name: (property_identifier) @name value: (string) @finding)',
          ]),
        ]),
      ),
      python: named([
        '(assignment left: [(identifier) (attribute)] @name right: (string) @finding)',
        '(assignment left: (subscript subscript: (string) @name) right: (string) @finding)',
        '(keyword_argument name: (identifier) @name value: (string) @finding)',
        '(default_parameter name: (identifier) @name value: (string) @finding)',
        '(typed_default_parameter name: (identifier) @name value: (string) @finding)',
        '(pair key: (string) @name value: (string) @finding)',
        '(comparison_operator [(identifier) (attribute)] @name (string) @finding)',
      ]),
      java: named([
        '(variable_declarator name: (identifier) @name value: (string_literal) @finding)',
        '(assignment_expression left: [(identifier) (field_access field: (identifier))] @name right: (string_literal) @finding)',
        '(method_invocation name: (identifier) @name arguments: (argument_list . (string_literal) @finding .))',
        '(method_invocation name: (identifier) @m arguments: (argument_list . (string_literal) @name . (string_literal) @finding .) (#match? @m "^(put|setProperty|addHeader|setHeader|header|set|with|option)$"))',
        '(method_invocation object: [(identifier) (field_access)] @name name: (identifier) @m arguments: (argument_list . (string_literal) @finding .) (#match? @m "^equals$"))',
      ]),
      go: named([
        '(short_var_declaration left: (expression_list (identifier) @name) right: (expression_list (interpreted_string_literal) @finding))',
        '(const_spec name: (identifier) @name value: (expression_list (interpreted_string_literal) @finding))',
        '(var_spec name: (identifier) @name value: (expression_list (interpreted_string_literal) @finding))',
        '(keyed_element key: (literal_element (identifier) @name) value: (literal_element (interpreted_string_literal) @finding))',
        '(assignment_statement left: (expression_list [(identifier) (selector_expression field: (field_identifier))] @name) right: (expression_list (interpreted_string_literal) @finding))',
        '(keyed_element key: (literal_element (interpreted_string_literal) @name) value: (literal_element (interpreted_string_literal) @finding))',
        '(binary_expression left: [(identifier) (selector_expression)] @name operator: ["==" "!="] right: (interpreted_string_literal) @finding)',
        '(binary_expression left: (interpreted_string_literal) @finding operator: ["==" "!="] right: [(identifier) (selector_expression)] @name)',
      ]),
      ruby: named([
        '(assignment left: [(identifier) (constant) (instance_variable) (class_variable) (global_variable) (call method: (identifier))] @name right: (string) @finding)',
        '(pair key: [(hash_key_symbol) (simple_symbol) (string)] @name value: (string) @finding)',
        '(binary left: [(identifier) (instance_variable) (call)] @name operator: "==" right: (string) @finding)',
      ]),
      csharp: named([
        '(variable_declarator name: (identifier) @name (string_literal) @finding)',
        '(assignment_expression left: [(identifier) (member_access_expression name: (identifier))] @name right: [(string_literal) (verbatim_string_literal)] @finding)',
        '(property_declaration name: (identifier) @name value: (string_literal) @finding)',
        '(argument name: (identifier) @name (string_literal) @finding)',
      ]),
      kotlin: named([
        '(property_declaration (variable_declaration (simple_identifier) @name) (string_literal) @finding)',
        '(value_argument (simple_identifier) @name (string_literal) @finding)',
        '(assignment (directly_assignable_expression) @name (string_literal) @finding)',
      ]),
      swift: named([
        '(property_declaration name: (pattern bound_identifier: (simple_identifier) @name) value: (line_string_literal) @finding)',
        '(value_argument name: (value_argument_label (simple_identifier) @name) value: (line_string_literal) @finding)',
        '(assignment target: (directly_assignable_expression) @name result: (line_string_literal) @finding)',
      ]),
      scala: named([
        '(val_definition pattern: (identifier) @name value: (string) @finding)',
        '(var_definition pattern: (identifier) @name value: (string) @finding)',
        '(assignment_expression left: [(identifier) (field_expression)] @name right: (string) @finding)',
      ]),
      rust: named([
        '(const_item name: (identifier) @name value: (string_literal) @finding)',
        '(static_item name: (identifier) @name value: (string_literal) @finding)',
        '(let_declaration pattern: (identifier) @name value: (string_literal) @finding)',
        '(let_declaration pattern: (identifier) @name value: (call_expression function: (field_expression value: (string_literal) @finding)))',
        '(field_initializer field: (field_identifier) @name value: (string_literal) @finding)',
        '(field_initializer field: (field_identifier) @name value: (call_expression function: (field_expression value: (string_literal) @finding)))',
        '(field_initializer field: (field_identifier) @name value: (call_expression function: (scoped_identifier) arguments: (arguments . (string_literal) @finding .)))',
      ]),
      c: named(C_SHAPES),
      cpp: named(C_SHAPES),
      bash: named([
        '(variable_assignment name: (variable_name) @name value: [(word) (string) (raw_string)] @finding)',
      ]),
      php: named([
        '(assignment_expression left: [(variable_name (name)) (member_access_expression name: (name))] @name right: [(string) (encapsed_string)] @finding)',
        '(array_element_initializer (string) @name [(string) (encapsed_string)] @finding)',
        '(property_element name: (variable_name (name)) @name default_value: [(string) (encapsed_string)] @finding)',
        '(const_element (name) @name [(string) (encapsed_string)] @finding)',
        '(function_call_expression function: (name) @fn arguments: (arguments . (argument (string) @name) . (argument [(string) (encapsed_string)] @finding) .) (#eq? @fn "define"))',
        '(binary_expression left: (variable_name) @name operator: ["==" "==="] right: (string) @finding)',
      ]),
    },
    check: (c) =>
      credentialName(c.name?.text ?? '') && credentialValue(c.name?.text ?? '', c.finding?.text ?? ''),
  },
  {
    id: 'security/hardcoded-token',
    needles: FORMAT_NEEDLES,
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
        `(${lang === 'bash' ? '[(string) (raw_string) (word)]' : types} @finding)`,
      ]),
    ),
    check: (c) => secretFormat(c.finding?.text ?? '') !== undefined,
  },
  {
    id: 'security/hardcoded-private-key',
    needles: ['PRIVATE KEY'],
    category: 'security',
    severity: 'critical',
    confidence: 'high',
    cwe: 'CWE-321',
    message:
      'A private key is embedded in the code; remove it, rotate it, and load keys from a secret store.',
    languages: Object.fromEntries(
      Object.entries(STRING_TYPES).map(([lang, types]) => [
        lang,
        `(${types} @finding (#match? @finding "PRIVATE KEY"))`,
      ]),
    ),
    check: (c) => privateKeyBlock(c.finding?.text ?? ''),
  },
];
