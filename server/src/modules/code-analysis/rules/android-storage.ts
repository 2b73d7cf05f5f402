import type { RuleDefinition } from './types';

/**
 * Android storage of secrets in clear (CWE-312), as MobSF and the Semgrep registry's Android rules report it: a
 * password or token written to SharedPreferences, a plain XML file in the app's data directory (readable on a rooted
 * device and in backups). Jetpack's EncryptedSharedPreferences encrypts keys and values and is not reported; values
 * whose key and text name no secret (a user name, a setting) are not either.
 */
const SECRET_NAME = /(pass(word|wd|code)?|pwd|secret|token|api_?key|private_?key|credential|\bpin\b)/i;

export const ANDROID_STORAGE_RULES: RuleDefinition[] = [
  {
    id: 'security/sensitive-data-in-preferences',
    needles: ['putString'],
    needlesByLanguage: { java: ['SharedPreferences', 'PreferenceManager', 'getPreferences'] },
    unlessByLanguage: { java: ['EncryptedSharedPreferences'], kotlin: ['EncryptedSharedPreferences'] },
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-312',
    message:
      '`{finding}` stores a secret in SharedPreferences, a plain XML file in the app data and its backups; use EncryptedSharedPreferences or the Android Keystore.',
    languages: {
      java: `((method_invocation name: (identifier) @m arguments: (argument_list . (_) @key . (_) @value .)) @finding (#eq? @m "putString"))`,
      kotlin: `((call_expression (navigation_expression (navigation_suffix (simple_identifier) @m)) (call_suffix (value_arguments . (value_argument) @key . (value_argument) @value .))) @finding
        (#eq? @m "putString"))`,
    },
    // The key or the value names a secret.
    check: (c) => SECRET_NAME.test(c.key?.text ?? '') || SECRET_NAME.test(c.value?.text ?? ''),
  },
];
