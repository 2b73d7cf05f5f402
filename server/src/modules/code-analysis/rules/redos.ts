import { catastrophicRegex } from './regex-backtracking';
import { literalText } from './secret-values';
import { type Captures, forJs, type RuleDefinition } from './types';

/**
 * Regular expressions written in the code that can backtrack exponentially (CWE-1333), in the languages whose
 * engines backtrack: JavaScript, Python, Java, Kotlin, Scala, C#, Ruby, PHP (PCRE) and Swift. Go's `regexp` and
 * Rust's `regex` run in linear time and are not checked.
 */

/** The regex source of a literal: escapes of the host language undone, PCRE delimiters and flags removed. */
function regexSource(c: Captures): { source: string; ignoreCase: boolean } {
  const text = c.finding?.text ?? '';
  if (c.finding?.type === 'regex_pattern') return { source: text, ignoreCase: false };
  let body = literalText(text);
  const raw = /^([rR]|@|[rR][bB]|[bB][rR])["']|^`|^"""/.test(text) || text === body;
  if (!raw) body = body.replace(/\\(["'\\])/g, '$1');
  const delimited = c.pcre !== undefined || c.finding?.type === 'regex';
  if (delimited) {
    const m = /^([^\w\s\\])([\s\S]*)(\1|[)\]}>])([a-zA-Z]*)$/.exec(body);
    if (m) return { source: m[2] ?? '', ignoreCase: (m[4] ?? '').includes('i') };
  }
  return { source: body, ignoreCase: false };
}

const JAVA_LIKE_STRING = '(string_literal) @finding';

export const REDOS_RULES: RuleDefinition[] = [
  {
    id: 'security/redos',
    needles: ['+', '*'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-1333',
    message:
      'The regular expression {finding} can backtrack exponentially on some inputs (a repetition inside a repetition, or overlapping alternatives under one): a long crafted string stalls the thread (ReDoS); make the pieces unambiguous, bound them, or use a linear-time engine.',
    languages: {
      ...forJs(`(regex pattern: (regex_pattern) @finding)
                ((new_expression constructor: (identifier) @c arguments: (arguments . [(string) (template_string)] @finding)) (#eq? @c "RegExp"))
                ((call_expression function: (identifier) @c arguments: (arguments . [(string) (template_string)] @finding)) (#eq? @c "RegExp"))`),
      python: `((call function: (attribute object: (identifier) @m attribute: (identifier) @f) arguments: (argument_list . (string) @finding))
                 (#match? @m "^(re|regex)$") (#match? @f "^(compile|match|search|fullmatch|findall|finditer|sub|subn|split)$"))`,
      java: `((method_invocation object: (identifier) @o name: (identifier) @f arguments: (argument_list . ${JAVA_LIKE_STRING}))
               (#eq? @o "Pattern") (#match? @f "^(compile|matches)$"))
             ((method_invocation name: (identifier) @f arguments: (argument_list . ${JAVA_LIKE_STRING}))
               (#match? @f "^(matches|replaceAll|replaceFirst)$"))`,
      kotlin: `((call_expression (simple_identifier) @c (call_suffix (value_arguments . (value_argument (string_literal) @finding)))) (#eq? @c "Regex"))
               ((call_expression (navigation_expression (string_literal) @finding (navigation_suffix (simple_identifier) @f))) (#eq? @f "toRegex"))
               ((call_expression (navigation_expression (simple_identifier) @o (navigation_suffix (simple_identifier) @f)) (call_suffix (value_arguments . (value_argument (string_literal) @finding))))
                 (#eq? @o "Pattern") (#eq? @f "compile"))`,
      scala: `((field_expression value: (string) @finding field: (identifier) @f) (#eq? @f "r"))
              ((call_expression function: (field_expression value: (identifier) @o field: (identifier) @f) arguments: (arguments . (string) @finding))
                (#eq? @o "Pattern") (#eq? @f "compile"))`,
      csharp: `((object_creation_expression type: (identifier) @t arguments: (argument_list . (argument [(string_literal) (verbatim_string_literal)] @finding))) (#eq? @t "Regex"))
               ((invocation_expression function: (member_access_expression expression: (identifier) @o name: (identifier) @f)
                  arguments: (argument_list . (argument) . (argument [(string_literal) (verbatim_string_literal)] @finding)))
                (#eq? @o "Regex") (#match? @f "^(IsMatch|Match|Matches|Replace|Split)$"))`,
      ruby: `(regex) @finding
             ((call receiver: (constant) @o method: (identifier) @f arguments: (argument_list . (string) @finding)) (#eq? @o "Regexp") (#eq? @f "new"))`,
      php: `((function_call_expression function: (name) @f arguments: (arguments . (argument [(string) (encapsed_string)] @finding @pcre)))
              (#match? @f "^preg_(match|match_all|replace|replace_callback|split|grep)$"))`,
      swift: `((call_expression (simple_identifier) @c (call_suffix (value_arguments (value_argument name: (value_argument_label (simple_identifier) @l) value: (line_string_literal) @finding))))
                (#eq? @c "NSRegularExpression") (#eq? @l "pattern"))`,
    },
    check: (c) => {
      const { source, ignoreCase } = regexSource(c);
      return catastrophicRegex(source, ignoreCase);
    },
  },
];
