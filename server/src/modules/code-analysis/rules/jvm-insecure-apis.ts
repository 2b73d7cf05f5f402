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
  {
    // NIO permission sets that let group or others write (`perms.add(PosixFilePermission.OTHERS_WRITE)`), the enum
    // form of the `rwxrwxrwx` strings permissive-file-mode reads elsewhere (Semgrep's overly-permissive-file-permission).
    id: 'security/permissive-posix-permission',
    needles: ['PosixFilePermission'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-732',
    message:
      '`{finding}` lets other users write the file; grant write to the owner only (rw-------, rw-r-----).',
    languages: {
      java: `((field_access object: (_) @o field: (identifier) @f) @finding
               (#match? @o "(^|\\.)PosixFilePermission$") (#match? @f "^(OTHERS_WRITE|GROUP_WRITE)$"))`,
      kotlin: callText(
        'navigation_expression',
        '^([\\w.]+\\.)?PosixFilePermission\\.(OTHERS_WRITE|GROUP_WRITE)$',
      ),
      scala: callText('field_expression', '^([\\w.]+\\.)?PosixFilePermission\\.(OTHERS_WRITE|GROUP_WRITE)$'),
    },
  },
  {
    // Servlet URL rewriting (Semgrep's url-rewriting, FindSecBugs URL_REWRITING): `encodeURL` adds `;jsessionid=…` to
    // links for clients without cookies, so the session id lands in logs, history and Referer headers.
    id: 'security/session-id-in-url',
    needles: ['encodeURL', 'encodeRedirectURL', 'encodeUrl', 'encodeRedirectUrl'],
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-598',
    message:
      '`{finding}` may write the session id into the URL, where logs, history and Referer headers keep it; track sessions by cookie only (tracking-mode COOKIE).',
    languages: {
      java: `((method_invocation name: (identifier) @m) @finding (#match? @m "^encode(Redirect)?U(RL|rl)$"))`,
      kotlin: callText('call_expression', '\\.encode(Redirect)?U(RL|rl)\\('),
    },
  },
  {
    // A hand-written MessageDigest (Semgrep's avoid-implementing-custom-digests, FindSecBugs CUSTOM_MESSAGE_DIGEST).
    id: 'security/custom-digest',
    needles: ['MessageDigest'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      '`{finding}` implements its own message digest; home-made hashes are rarely sound, use a standard one (SHA-256, SHA-3) from the JCA.',
    languages: {
      java: `((class_declaration name: (identifier) @finding superclass: (superclass (_) @s)) (#match? @s "(^|\\.)MessageDigest$"))`,
    },
  },
];
