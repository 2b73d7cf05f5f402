import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/** A byte string written in the code: `[]byte("…")`, `[]byte{…}`, `b"…"`, `"…".getBytes()`, `new byte[]{…}`. */
const GO_BYTES = '\\[\\]byte(\\(\\s*"|\\{)';

/**
 * An IV or nonce written in the code (CWE-1204; gosec G407): every message under that key gets the same one, which
 * breaks CBC's and CTR/GCM's guarantees (GCM loses its authentication). Only literals at the call are read here, and
 * only where data is encrypted: decryption must use the IV it is given.
 */
export const HARDCODED_IV_RULES: RuleDefinition[] = [
  {
    id: 'security/hardcoded-iv',
    needles: [
      'IV',
      'iv',
      'Iv',
      'nonce',
      'Nonce',
      'NewCBC',
      'NewCFB',
      'NewCTR',
      'NewOFB',
      'Seal',
      'MODE_',
      'modes.',
      'openssl_encrypt',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-1204',
    message:
      '`{finding}` uses an IV or nonce written in the code, so every message gets the same one; generate a fresh random IV per message (crypto/rand, SecureRandom, os.urandom) and send it with the ciphertext.',
    languages: {
      go: `${callText('call_expression', `^[\\w.]*\\.(NewCBCEncrypter|NewCFBEncrypter|NewCTR|NewOFB)\\(\\s*\\w+\\s*,\\s*${GO_BYTES}`)}
           ${callText('call_expression', `^[\\w.]*\\.Seal\\(\\s*[\\w.\\[\\]:]+\\s*,\\s*${GO_BYTES}`)}`,
      java: callText(
        'object_creation_expression',
        '^new\\s+(javax\\.crypto\\.spec\\.)?(IvParameterSpec\\(\\s*|GCMParameterSpec\\(\\s*\\d+\\s*,\\s*)("|new\\s+byte\\s*\\[\\s*\\d*\\s*\\]\\s*\\{?)',
      ),
      kotlin: callText(
        'call_expression',
        '^(IvParameterSpec\\(\\s*|GCMParameterSpec\\(\\s*\\d+\\s*,\\s*)("|byteArrayOf\\(|ByteArray\\(\\s*\\d)',
      ),
      python: callText(
        'call',
        '(^[\\w.]*\\bmodes\\.(CBC|CFB|CFB8|OFB|CTR|GCM)\\(\\s*b?["\']|^[\\w.]*\\.new\\([^()]*\\b(iv|IV|nonce)\\s*=\\s*b?["\']|^[\\w.]*\\.new\\(\\s*\\w+\\s*,\\s*[\\w.]*MODE_\\w+\\s*,\\s*b?["\'])',
      ),
      ...forJs(
        callText(
          'call_expression',
          '^[\\w.]*createCipheriv\\(\\s*[^,]+,\\s*[^,]+,\\s*(["\'`]|Buffer\\.(from\\(\\s*["\'`\\[]|alloc\\())',
        ),
      ),
      php: callText('function_call_expression', '^openssl_encrypt\\((\\s*[^,]+,){4}\\s*["\']'),
      ruby: `((assignment left: (call method: (identifier) @m) right: (string)) @finding (#eq? @m "iv"))`,
      csharp: `((assignment_expression left: (member_access_expression name: (identifier) @n) right: (_) @v) @finding
                 (#eq? @n "IV") (#match? @v "^(new\\\\s+byte\\\\s*\\\\[\\\\s*\\\\d*\\\\s*\\\\]|Encoding\\\\.\\\\w+\\\\.GetBytes\\\\(\\\\s*\\")"))`,
    },
  },
];
