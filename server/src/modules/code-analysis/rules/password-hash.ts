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
/** A `MessageDigest` by its usual local names, or made in place. */
const JCA_DIGEST =
  '^(md|digest|messageDigest|sha\\\\w*|md5\\\\w*|hasher)$|MessageDigest\\\\.getInstance\\\\(';

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
      // .NET: `SHA256.HashData(Encoding.UTF8.GetBytes(password))`, `sha.ComputeHash(…password…)`; the JCA's
      // `MessageDigest` given the password in Kotlin and Scala.
      csharp: `((invocation_expression function: (member_access_expression name: (identifier) @m) arguments: (argument_list . (argument) @v)) @finding
          (#match? @m "^(HashData|ComputeHash)$") (#match? @v "${PASSWORD}"))`,
      kotlin: `((call_expression (navigation_expression (_) @d (navigation_suffix (simple_identifier) @m)) (call_suffix (value_arguments . (value_argument) @v))) @finding
          (#match? @d "${JCA_DIGEST}") (#match? @m "^(digest|update)$") (#match? @v "${PASSWORD}"))`,
      scala: `((call_expression function: (field_expression value: (_) @d field: (identifier) @m) arguments: (arguments . (_) @v)) @finding
          (#match? @d "${JCA_DIGEST}") (#match? @m "^(digest|update)$") (#match? @v "${PASSWORD}"))`,
      // RustCrypto: `Sha256::digest(password.as_bytes())`, `hasher.update(password)`.
      rust: `((call_expression function: [(scoped_identifier) (field_expression)] @fn arguments: (arguments . (_) @v)) @finding
          (#match? @fn "^((sha2|sha1|md5|md-5)::)?(Sha256|Sha384|Sha512|Sha1|Md5)::digest$|^(hasher|sha|sha256|md5|digest)\\.update$") (#match? @v "${PASSWORD}"))`,
      // CryptoKit: `SHA256.hash(data: Data(password.utf8))`.
      swift: `((call_expression (navigation_expression target: (_) @d suffix: (navigation_suffix suffix: (simple_identifier) @m)) (call_suffix (value_arguments . (value_argument) @v))) @finding
          (#match? @d "^(Insecure\\.)?(SHA256|SHA384|SHA512|MD5|SHA1)$") (#eq? @m "hash") (#match? @v "${PASSWORD}"))`,
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
