import { callText } from './security-crypto';
import type { RuleDefinition } from './types';

/**
 * JVM APIs the Semgrep registry's Kotlin and Java rules and FindSecBugs report wherever they appear: `NullCipher`,
 * which "encrypts" to the plaintext (CWE-327), Apache's `DefaultHttpClient`, deprecated and without TLS 1.2
 * (CWE-326), and a JNDI LDAP context that binds anonymously (`SECURITY_AUTHENTICATION` = "none", CWE-287).
 */
const created = (name: string) => ({
  java: callText('object_creation_expression', `^new\\s+([\\w.]+\\.)?${name}\\(`),
  kotlin: callText('call_expression', `^([\\w.]+\\.)?${name}\\(`),
  scala: callText('instance_expression', `^new\\s+([\\w.]+\\.)?${name}\\b`),
});
const ANONYMOUS_PUT =
  '\\.put\\(\\s*(javax\\.naming\\.)?(Context|DirContext)\\.SECURITY_AUTHENTICATION\\s*,\\s*"none"\\s*\\)$';

export const JVM_INSECURE_API_RULES: RuleDefinition[] = [
  {
    id: 'security/null-cipher',
    needles: ['NullCipher'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message: '`{finding}` returns the plaintext unchanged as its "ciphertext"; use a real cipher (AES/GCM).',
    languages: created('NullCipher'),
  },
  {
    id: 'security/default-http-client',
    needles: ['DefaultHttpClient'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-326',
    message:
      '`{finding}` is deprecated and does not negotiate TLS 1.2; use HttpClientBuilder (HttpClients.createDefault()) or java.net.http.HttpClient.',
    languages: created('DefaultHttpClient'),
  },
  {
    id: 'security/ldap-anonymous-bind',
    needles: ['SECURITY_AUTHENTICATION'],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-287',
    message:
      '`{finding}` binds to the directory anonymously, without credentials; authenticate the bind (`"simple"` over LDAPS, or SASL).',
    languages: {
      java: callText('method_invocation', ANONYMOUS_PUT),
      kotlin: `${callText('call_expression', ANONYMOUS_PUT)}
               ((assignment) @finding (#match? @finding "SECURITY_AUTHENTICATION\\\\]\\\\s*=\\\\s*\\"none\\"$"))`,
      scala: callText('call_expression', ANONYMOUS_PUT),
    },
  },
];
