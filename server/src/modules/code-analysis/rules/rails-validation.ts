import type { RuleDefinition } from './types';

/**
 * Brakeman's ValidationRegex (CWE-777): a Rails format validation anchored with `^`/`$`, which match at any line
 * break in Ruby, so `"ok\n<script>…"` passes; `\A` and `\z` anchor the whole string.
 */
export const RAILS_VALIDATION_RULES: RuleDefinition[] = [
  {
    id: 'security/validation-regex-line-anchors',
    needles: ['validates', 'format'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-777',
    message:
      '`{finding}` anchors the validation with ^ or $, which match at any line break in Ruby: a value with a newline passes; use \\A and \\z.',
    languages: {
      ruby: `((pair key: (hash_key_symbol) @k value: (regex) @re) @finding (#eq? @k "with") (#match? @re "^/\\\\^|[$]/[a-z]*$"))`,
    },
  },
];
