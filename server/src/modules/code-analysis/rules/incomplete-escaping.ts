import { forJs, type RuleDefinition } from './types';

/**
 * Escaping that replaces only the first occurrence (CWE-116, CodeQL js/incomplete-sanitization, Semgrep's
 * incomplete-sanitization): JavaScript's `s.replace('<', '&lt;')` with a string pattern replaces one character,
 * so `<<script>` still carries a `<`. A global regular expression or `replaceAll` replaces every one.
 */
export const INCOMPLETE_ESCAPING_RULES: RuleDefinition[] = [
  {
    id: 'security/incomplete-escaping',
    needles: ['.replace('],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-116',
    message:
      '`{finding}` replaces only the first occurrence of the character, so a value with two of them is not escaped; use a global regular expression (`/</g`), `replaceAll`, or an escaping library.',
    languages: forJs(`((call_expression function: (member_expression property: (property_identifier) @m)
                         arguments: (arguments . (string) @ch)) @finding
                       (#eq? @m "replace") (#match? @ch ${JSON.stringify(String.raw`^["']([<>'"*|{}\[\]%$&]|\\[nrt&])["']$`)}))`),
  },
];
