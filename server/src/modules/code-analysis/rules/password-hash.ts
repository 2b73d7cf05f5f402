import { forJs, type RuleDefinition } from './types';

/**
 * A password stored as a fast, unsalted digest (CWE-916), as the Semgrep registry's PHP, Node and Ruby rules report
 * it: `md5($password)`, `sha1($pass . $salt)`, `hash('sha256', $password)`,
 * `crypto.createHash('md5').update(password)`, `Digest::SHA256.hexdigest(password)`, Python `hashlib.sha256(password…)`, Go `sha256.Sum256([]byte(password))`,
 * Java `DigestUtils.sha256Hex(password)` and `MessageDigest.digest(password.getBytes())`. A GPU tries billions of these a
 * second; password_hash, bcrypt, scrypt and Argon2 are slow on purpose. Digests of other values are not reported
 * here (the weak-hash rule reports MD5 and SHA-1 wherever they are used).
 */
/** A name saying password (`$password`, `userPwd`, `PASS`), not one merely containing the letters (`$bypass`). */
const PASSWORD = '(^|[^a-zA-Z]|[a-z](?=P))([pP]ass(word|wd|phrase)?|[pP]wd|PASS(WORD)?)';

export const PASSWORD_HASH_RULES: RuleDefinition[] = [
  {
    id: 'security/password-fast-hash',
    needles: ['pass', 'Pass', 'pwd'],
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-916',
    message:
      '`{finding}` hashes a password with a fast digest that a GPU brute-forces; use password_hash/bcrypt/scrypt/Argon2.',
    languages: {
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (argument) @v)) @finding (#match? @fn "^(md5|sha1|crc32)$") (#match? @v "${PASSWORD}"))
        ((function_call_expression function: (name) @fn arguments: (arguments . (argument (string) @alg) . (argument) @v)) @finding (#eq? @fn "hash") (#match? @alg "[mM][dD]5|[sS][hH][aA](1|256|512)") (#match? @v "${PASSWORD}"))`,
      ...forJs(`((call_expression function: (member_expression object: (call_expression function: (_) @fn arguments: (arguments . (string) @alg)) property: (property_identifier) @m) arguments: (arguments . (_) @v)) @finding
          (#match? @fn "createHash$") (#match? @alg "md5|sha1|sha256|sha512") (#eq? @m "update") (#match? @v "${PASSWORD}"))`),
      ruby: `((call receiver: (scope_resolution) @d method: (identifier) @m arguments: (argument_list . (_) @v)) @finding
          (#match? @d "^(::)?Digest::(MD5|SHA1|SHA256|SHA512)$") (#match? @m "^(hexdigest|digest|base64digest)$") (#match? @v "${PASSWORD}"))`,
      python: `((call function: (attribute) @fn arguments: (argument_list . (_) @v)) @finding
          (#match? @fn "^hashlib\\.(md5|sha1|sha224|sha256|sha384|sha512|sha3_256|sha3_512|blake2b|blake2s)$") (#match? @v "${PASSWORD}"))`,
      go: `((call_expression function: (selector_expression) @fn arguments: (argument_list . (_) @v)) @finding
          (#match? @fn "^(md5|sha1|sha256|sha512)\\.Sum(224|256|384|512)?$") (#match? @v "${PASSWORD}"))`,
      // Commons Codec and Guava digests of a password, or a MessageDigest (the file's) fed one.
      java: `((method_invocation object: (identifier) @o name: (identifier) @m arguments: (argument_list . (_) @v)) @finding
          (#eq? @o "DigestUtils") (#match? @m "^(md5|sha1|sha256|sha384|sha512|sha|md2)(Hex)?$") (#match? @v "${PASSWORD}"))
        ((method_invocation object: (method_invocation object: (identifier) @o name: (identifier) @alg) name: (identifier) @m arguments: (argument_list . (_) @v)) @finding
          (#eq? @o "Hashing") (#match? @alg "^(md5|sha1|sha256|sha384|sha512)$") (#match? @m "^hash(String|Bytes|Unencoded)$") (#match? @v "${PASSWORD}"))
        ((method_invocation object: (identifier) @o name: (identifier) @m arguments: (argument_list . (_) @v)) @finding
          (#match? @o "^(md|digest|messageDigest|sha\\w*|md5\\w*)$") (#match? @m "^(digest|update)$") (#match? @v "${PASSWORD}"))`,
    },
    needlesByLanguage: { java: ['DigestUtils', 'Hashing', 'MessageDigest'] },
  },
];
