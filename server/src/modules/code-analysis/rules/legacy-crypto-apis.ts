import { forJs, type RuleDefinition } from './types';

/**
 * Node's `crypto.createCipher`/`createDecipher` (CWE-327, the Semgrep registry's `create-de-cipher-no-iv`): they
 * derive the key and IV from a password with one round of MD5 and no salt, so equal passwords give equal streams;
 * deprecated since Node 10 and removed in 22. `createCipheriv` with a random IV is not reported.
 */
export const LEGACY_CRYPTO_API_RULES: RuleDefinition[] = [
  {
    id: 'security/password-derived-cipher',
    needles: ['createCipher(', 'createDecipher('],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      '`{finding}` derives key and IV from a password with one MD5 round and no salt; use crypto.createCipheriv with a key from scrypt and a random IV.',
    languages: forJs(
      `((call_expression function: [(identifier) (member_expression)] @fn) @finding (#match? @fn "(^|\\\\.)create(Cipher|Decipher)$"))`,
    ),
  },
];
