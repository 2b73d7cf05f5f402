import type { RuleDefinition } from './types';

/** Pattern rules for security; flows from untrusted input to sinks are in taint/. */
export const SECURITY_RULES: RuleDefinition[] = [
  {
    id: 'security/weak-hash',
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message:
      'Weak hash `{finding}`: MD5 and SHA-1 are broken for security use; use SHA-256 or better (and bcrypt/scrypt/argon2 for passwords).',
    languages: {
      python: `(call function: (attribute object: (identifier) @mod attribute: (identifier) @fn) (#eq? @mod "hashlib") (#match? @fn "^(md5|sha1)$")) @finding`,
      javascript: `(call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @alg)) (#eq? @fn "createHash") (#match? @alg "^(md5|sha1|MD5|SHA1|md4)$")) @finding`,
    },
  },
];
