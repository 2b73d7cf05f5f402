import type { RuleDefinition } from './types';

/**
 * iOS storage of secrets, as the Semgrep registry's Swift rules and MobSF report it: keychain items readable while
 * the device is locked (`kSecAttrAccessibleAlways`, CWE-311) and credentials written to `UserDefaults`, a plain
 * property list in the app's container (CWE-312). Values named like a user name or setting are not reported.
 */
const SECRET_NAME =
  /(pass(word|wd|code)?|pwd|secret|token|api_?key|private_?key|(crypto|encryption|signing|aes|hmac|master)_?key|credential|pin\b)/i;

export const IOS_STORAGE_RULES: RuleDefinition[] = [
  {
    id: 'security/keychain-accessible-always',
    needles: ['kSecAttrAccessibleAlways'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-311',
    message:
      '`{finding}` keeps the keychain item readable while the device is locked; use kSecAttrAccessibleWhenUnlocked(ThisDeviceOnly) or AfterFirstUnlockThisDeviceOnly.',
    languages: {
      swift: `((simple_identifier) @finding (#match? @finding "^kSecAttrAccessibleAlways(ThisDeviceOnly)?$"))`,
    },
  },
  {
    id: 'security/sensitive-data-in-defaults',
    needles: ['UserDefaults', 'defaults'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-312',
    message:
      '`{finding}` stores a secret in UserDefaults, a plain file in the app container and its backups; keep it in the keychain.',
    languages: {
      swift: `((call_expression (navigation_expression target: (_) @recv suffix: (navigation_suffix suffix: (simple_identifier) @m)) (call_suffix (value_arguments . (value_argument) @value))) @finding
        (#match? @recv "(UserDefaults\\\\.standard|[dD]efaults)$") (#eq? @m "set"))`,
    },
    // The value or its key names a secret; a flag or a number stored under such a key (`hasSeenPasswordTips`) is not one.
    check: (c) =>
      !/^(true|false|nil|-?\d[\d_.]*)$/.test(c.value?.text ?? '') &&
      (SECRET_NAME.test(c.value?.text ?? '') ||
        SECRET_NAME.test(c.finding?.text.replace(c.value?.text ?? '', '') ?? '')),
  },
];
