import { forJs, type RuleDefinition } from './types';

/** Names of values that must not be kept in clear: passwords, secrets, card numbers (not session ids or settings). */
const SENSITIVE = /(passw(or)?d|passwd|\bpwd|secret|credit_?card|card_?number|\bcvv|\bssn)/i;

/**
 * A password or secret written to the browser's `localStorage`/`sessionStorage` (CWE-312, CodeQL
 * js/clear-text-storage-of-sensitive-data): any script on the origin, and anyone with the profile on disk, reads
 * it back in clear.
 */
export const CLIENT_STORAGE_RULES: RuleDefinition[] = [
  {
    id: 'security/sensitive-data-in-web-storage',
    needles: ['localStorage', 'sessionStorage'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-312',
    message:
      '`{finding}` keeps a password or secret in web storage, readable in clear by any script on the page and on disk; keep only a short-lived session token there, or nothing.',
    languages:
      forJs(`((call_expression function: (member_expression object: (_) @o property: (property_identifier) @m)
                         arguments: (arguments . (_) @key . (_) @value .)) @finding
                       (#match? @o "^(window\\\\.)?(localStorage|sessionStorage)$") (#eq? @m "setItem"))
                      ((assignment_expression left: [(member_expression object: (_) @o property: (property_identifier) @key)
                                                     (subscript_expression object: (_) @o index: (string) @key)]) @finding
                       (#match? @o "^(window\\\\.)?(localStorage|sessionStorage)$"))`),
    check: (c) => {
      // The key names what is stored; a value that is itself the password variable says the same.
      return (
        SENSITIVE.test(c.key?.text ?? '') || (c.value?.type === 'identifier' && SENSITIVE.test(c.value.text))
      );
    },
  },
];
