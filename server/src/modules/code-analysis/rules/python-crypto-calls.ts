import type { ParsedSource } from '../parsing/parse';
import type { PythonCallRule } from './python-call-rule';
import { argument, literalString, nodeText, type PythonCall } from './python-imports';

const HASH_MESSAGE =
  'Weak hash `{call}`: MD2, MD4, MD5 and SHA-1 are broken for security use; use SHA-256 or better (bcrypt/scrypt/argon2 for passwords), or pass usedforsecurity=False where the digest is not a security control.';
const CIPHER_MESSAGE =
  'Weak cipher or mode `{call}`: DES, 3DES, RC2, RC4, Blowfish, IDEA, CAST5, SEED, XOR and ECB mode do not protect data; use AES-GCM or ChaCha20-Poly1305.';

/** hashlib's `usedforsecurity=False` (Python 3.9+) says the digest is a checksum, not a security control. */
const forSecurity = (call: PythonCall, parsed: ParsedSource): boolean => {
  const flag = call.keywords.get('usedforsecurity');
  return !flag || nodeText(parsed, flag) !== 'False';
};

/** Names hashlib.new accepts for the broken digests (it is case-insensitive). */
const WEAK_HASH_NAMES = new Set(['md2', 'md4', 'md5', 'sha', 'sha1', 'md5-sha1', 'md5_sha1']);

/**
 * Weak digests and ciphers in hashlib, crypt, PyCrypto/PyCryptodome(x) and pyca/cryptography, named through the
 * file's imports (Bandit B303, B304, B305, B324). Java's and the other languages' are in security-crypto.ts.
 */
export const PYTHON_CRYPTO_CALLS: PythonCallRule[] = [
  {
    id: 'security/weak-hash',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message: HASH_MESSAGE,
    callee: /^hashlib\.(md5|sha1|md4)$/,
    judge: forSecurity,
  },
  {
    id: 'security/weak-hash',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message: HASH_MESSAGE,
    callee: /^hashlib\.new$/,
    judge: (call, parsed) => {
      const name = literalString(parsed, argument(call, 0, 'name'))?.toLowerCase();
      return name !== undefined && WEAK_HASH_NAMES.has(name) && forSecurity(call, parsed);
    },
  },
  {
    id: 'security/weak-hash',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message: HASH_MESSAGE,
    callee:
      /^(Crypto|Cryptodome)\.Hash\.(MD2|MD4|MD5|SHA|SHA1)\.new$|^cryptography\.hazmat\.primitives\.hashes\.(MD5|SHA1)$/,
  },
  {
    // crypt's traditional DES and MD5 schemes; Blowfish (bcrypt) and SHA-512 are fine, and the default is the best.
    id: 'security/weak-hash',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message: HASH_MESSAGE,
    callee: /^crypt\.(crypt|mksalt)$/,
    judge: (call, parsed) => {
      const method = call.name.endsWith('mksalt') ? argument(call, 0, 'method') : argument(call, 1, 'salt');
      return method !== undefined && /(^|\.)METHOD_(CRYPT|MD5)$/.test(nodeText(parsed, method));
    },
  },
  {
    id: 'security/weak-cipher',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message: CIPHER_MESSAGE,
    callee:
      /^(Crypto|Cryptodome)\.Cipher\.(DES|DES3|ARC2|ARC4|Blowfish|XOR|CAST)\.new$|^cryptography\.hazmat\.primitives\.ciphers\.(algorithms|decrepit\.ciphers\.algorithms)\.(ARC4|Blowfish|IDEA|CAST5|SEED|TripleDES)$|^cryptography\.hazmat\.primitives\.ciphers\.modes\.ECB$/,
  },
  {
    // Written without an import in sight (a snippet): the cipher modules' own names.
    id: 'security/weak-cipher',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message: CIPHER_MESSAGE,
    callee: /^(DES|DES3|ARC4|ARC2|Blowfish)\.new$/,
    judge: (call) => !call.imported,
  },
  {
    // Any PyCryptodome cipher in ECB mode (`AES.new(key, AES.MODE_ECB)`).
    id: 'security/weak-cipher',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message: CIPHER_MESSAGE,
    callee: /^(Crypto|Cryptodome)\.Cipher\.\w+\.new$|^AES\.new$/,
    judge: (call, parsed) => {
      const mode = argument(call, 1, 'mode');
      return mode !== undefined && /(^|\.)MODE_ECB$/.test(nodeText(parsed, mode));
    },
  },
];
