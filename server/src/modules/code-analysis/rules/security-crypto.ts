import { forJs, type RuleDefinition } from './types';

/** A call (or other node) whose whole text matches `pattern`, a regular expression. */
export const callText = (type: string, pattern: string): string =>
  `((${type}) @finding (#match? @finding ${JSON.stringify(pattern)}))`;

/**
 * A pattern's letters matched in either case (`des` → `[dD][eE][sS]`): the JCA looks algorithm names up ignoring
 * case, so `Cipher.getInstance("aes/ecb/nopadding")` is ECB too. Query predicates take no regex flags.
 */
const caseless = (pattern: string): string =>
  pattern.replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
/** The JCA's weak digests and ciphers (Kotlin, Scala). */
const JCA_DIGEST = `(java\\.security\\.)?MessageDigest\\.getInstance\\(\\s*"(${caseless('MD5|MD4|MD2|SHA-?1|SHA')})"\\s*\\)`;
const JCA_CIPHER = `(javax\\.crypto\\.)?Cipher\\.getInstance\\(\\s*"(${caseless('DES|DESede|TripleDES|RC4|RC2|ARCFOUR|Blowfish|AES"|AES/ECB')}|[A-Za-z0-9]+/${caseless('ECB')}(?!/${caseless('OAEP')})|${caseless('RSA')}/[A-Za-z0-9]+/${caseless('NoPadding')})`;
/** Apache Commons Codec's MD5 and SHA-1 helpers, as Java's rule reads them (`DigestUtils.getMd5Digest()`, `md5Hex(x)`). */
const CODEC_DIGEST =
  '^(org\\.apache\\.commons\\.codec\\.digest\\.)?DigestUtils\\.(md2|md5|sha1?|get(Md2|Md5|Sha1?)Digest)(Hex)?\\((?:[^()]|\\([^()]*\\))*\\)$';
/** OpenSSL and the C library. */
const NATIVE_DIGEST = '^(MD5|MD4|SHA1|MD5_Init|MD4_Init|SHA1_Init|EVP_md5|EVP_md4|EVP_sha1)\\(';
const NATIVE_CIPHER =
  '^(EVP_des_\\w+|EVP_rc4\\w*|EVP_rc2_\\w+|EVP_bf_\\w+|EVP_aes_\\d+_ecb|DES_\\w+|BF_\\w*crypt\\w*|RC4|RC4_set_key)\\(';
/** OpenSSL's lookups by name (`EVP_get_cipherbyname`, OpenSSL 3's `EVP_CIPHER_fetch(libctx, "DES-EDE3-CBC", props)`). */
const NATIVE_DIGEST_BY_NAME =
  '^(EVP_get_digestbyname\\(|EVP_MD_fetch\\([^,]*,)\\s*"([Mm][Dd][245]|[Ss][Hh][Aa]-?1)"';
const NATIVE_CIPHER_BY_NAME =
  '^(EVP_get_cipherbyname\\(|EVP_CIPHER_fetch\\([^,]*,)\\s*"([Dd][Ee][Ss]|[Rr][Cc][24]|[Bb][Ff]-|[Bb][Ll][Oo][Ww][Ff][Ii][Ss][Hh]|[\\w-]+-[Ee][Cc][Bb]")';
const NATIVE_RANDOM = '^(std::)?(rand|srand|random|srandom|drand48|srand48|lrand48|mrand48)\\(';

/**
 * Weak hashes and ciphers (CWE-327/328; Python's are read through its imports in python-crypto-calls.ts), and predictable random generators (CWE-330). A predictable generator is
 * reported wherever it is used (as SpotBugs' PREDICTABLE_RANDOM and Bandit's B311 do): whether its numbers end up
 * in a token cannot be told from one call, and a secure generator costs nothing. Java's algorithm names are checked
 * by the dataflow (taint/catalogues/java.ts), which folds constants.
 */
export const CRYPTO_RULES: RuleDefinition[] = [
  {
    id: 'security/weak-hash',
    // `crypt($password)` without a salt: PHP falls back to a weak default (standard DES or MD5).
    needles: [
      'md5',
      'MD5',
      'sha1',
      'SHA1',
      'SHA-1',
      'md4',
      'ripemd160',
      'Digest',
      'Md5',
      'Sha1',
      '"SHA"',
      'crypt(',
    ],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-328',
    message:
      'Weak hash `{finding}`: MD4, MD5, SHA-1 and RIPEMD-160 are broken or deprecated for security use; use SHA-256 or better (and bcrypt/scrypt/argon2 for passwords).',
    languages: {
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @alg))) @finding
        (#match? @fn "^(createHash|createHmac)$") (#match? @alg "^(md5|sha1|MD5|SHA1|md4|RSA-MD5)$"))
        ((call_expression function: (identifier) @fn arguments: (arguments . (string (string_fragment) @alg))) @finding
        (#match? @fn "^(createHash|createHmac)$") (#match? @alg "^(md5|sha1|MD5|SHA1|md4|RSA-MD5)$"))`),
      java: `((method_invocation object: (identifier) @cls name: (identifier) @fn arguments: (argument_list . (string_literal) @alg)) @finding
        (#eq? @cls "MessageDigest") (#eq? @fn "getInstance") (#match? @alg "\\"(MD5|MD2|SHA-?1|md5|sha-?1)\\""))
        ((method_invocation object: (identifier) @cls name: (identifier) @fn) @finding
          (#eq? @cls "DigestUtils") (#match? @fn "^(md2|md5|sha1?|get(Md2|Md5|Sha1?)Digest)(Hex)?$"))`,
      go: `((call_expression function: (selector_expression operand: (identifier) @pkg field: (field_identifier) @fn)) @finding
        (#match? @pkg "^(md5|sha1|md4|ripemd160)$") (#match? @fn "^(New|Sum)$"))`,
      php: `((function_call_expression function: (name) @fn) @finding (#match? @fn "^(md5|sha1|md5_file|sha1_file)$"))
            ((function_call_expression function: (name) @fn arguments: (arguments . (argument [(string) (encapsed_string)] @alg))) @finding
              (#match? @fn "^(hash|hash_file|hash_init)$") (#match? @alg "^.(md5|sha1|md4|md2).$"))
            ((function_call_expression function: (name) @fn arguments: (arguments . (argument) .)) @finding
              (#eq? @fn "crypt"))`,
      ruby: `((scope_resolution scope: (_) @m name: (constant) @alg) @finding (#match? @m "^(OpenSSL::)?Digest$") (#match? @alg "^(MD5|SHA1|MD4|RMD160)$"))
             ${callText('call', '^OpenSSL::Digest\\.(new|digest|hexdigest)\\(\\s*[\'"](md5|sha1|md4|MD5|SHA1|MD4)[\'"]')}`,
      csharp: `((invocation_expression function: (member_access_expression expression: (identifier) @cls name: (identifier) @fn)) @finding
        (#match? @cls "^(MD5|SHA1)$") (#match? @fn "^(Create|HashData)$"))
        ${callText('object_creation_expression', '^new\\s+(MD5CryptoServiceProvider|SHA1CryptoServiceProvider|SHA1Managed|MD5Cng|SHA1Cng)\\(')}`,
      kotlin: `${callText('call_expression', `^${JCA_DIGEST}$`)} ${callText('call_expression', CODEC_DIGEST)}`,
      scala: `${callText('call_expression', `^${JCA_DIGEST}$`)} ${callText('call_expression', CODEC_DIGEST)}`,
      swift: callText('call_expression', '^(Insecure\\.(MD5|SHA1)\\.hash|CC_MD5|CC_SHA1)\\('),
      rust: `${callText('call_expression', '^((md5::)?compute|(md5::|sha1::)?(Md5|Sha1)::(new|digest)|Md5::default|Sha1::default)\\(')}
        ((token_tree (identifier) @m . (identifier) @finding) (#eq? @m "md5") (#eq? @finding "compute"))`,
      c: `${callText('call_expression', NATIVE_DIGEST)} ${callText('call_expression', NATIVE_DIGEST_BY_NAME)}`,
      cpp: `${callText('call_expression', NATIVE_DIGEST)} ${callText('call_expression', NATIVE_DIGEST_BY_NAME)}`,
    },
  },
  {
    id: 'security/weak-cipher',
    needles: [
      'DES',
      'des',
      'ARC',
      'RC4',
      'rc4',
      'Blowfish',
      'blowfish',
      'bf',
      'ECB',
      'ecb',
      'RC2',
      'rc2',
      'BF_',
      'BF-',
      'mcrypt_',
      'mdecrypt_',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-327',
    message:
      'Weak cipher or mode `{finding}`: DES, 3DES, RC4, Blowfish and ECB mode do not protect data; use AES-GCM or ChaCha20-Poly1305.',
    languages: {
      ...forJs(`((call_expression function: (member_expression property: (property_identifier) @fn) arguments: (arguments . (string (string_fragment) @alg))) @finding
        (#match? @fn "^createCipher(iv)?$") (#match? @alg "^(des|rc4|bf|blowfish|rc2)|-ecb$|^des-ede"))`),
      java: `((method_invocation object: (identifier) @cls name: (identifier) @fn arguments: (argument_list . (string_literal) @alg)) @finding
        (#eq? @cls "Cipher") (#eq? @fn "getInstance") (#match? @alg "\\"(DES|DESede|RC4|RC2|Blowfish|AES\\"|AES/ECB|[A-Za-z0-9]+/ECB(?!/OAEP)|RSA/[A-Za-z0-9]+/NoPadding)"))`,
      go: `((call_expression function: (selector_expression operand: (identifier) @pkg field: (field_identifier) @fn)) @finding
        (#match? @pkg "^(des|rc4)$") (#match? @fn "^New(Cipher|TripleDESCipher)$"))`,
      php: `((function_call_expression function: (name) @fn arguments: (arguments . (_) . (argument [(string) (encapsed_string)] @alg))) @finding
        (#match? @fn "^openssl_(en|de)crypt$") (#match? @alg "(?:des|rc4|bf-|-ecb)"))
        ${callText('function_call_expression', '^(mcrypt_(encrypt|decrypt|generic|generic_init|module_open|cbc|ecb|cfb|ofb)|mdecrypt_generic)\\(')}`,
      kotlin: callText('call_expression', `^${JCA_CIPHER}`),
      scala: callText('call_expression', `^${JCA_CIPHER}`),
      csharp: `${callText('invocation_expression', '^(DES|TripleDES|RC2)\\.Create\\(')}
        ${callText('object_creation_expression', '^new\\s+(DESCryptoServiceProvider|TripleDESCryptoServiceProvider|RC2CryptoServiceProvider)\\(')}
        ((member_access_expression) @finding (#eq? @finding "CipherMode.ECB"))`,
      ruby: callText(
        'call',
        '^OpenSSL::Cipher(::\\w+)?\\.new\\(\\s*([\'"](des|DES|rc4|RC4|bf|BF|rc2|RC2|[\\w-]*-(ecb|ECB)[\'"])|\\d+\\s*,\\s*(:ECB|[\'"]ECB[\'"]))',
      ),
      c: `${callText('call_expression', NATIVE_CIPHER)} ${callText('call_expression', NATIVE_CIPHER_BY_NAME)}`,
      cpp: `${callText('call_expression', NATIVE_CIPHER)} ${callText('call_expression', NATIVE_CIPHER_BY_NAME)}`,
      swift: `((simple_identifier) @finding (#match? @finding "^kCC(AlgorithmDES|Algorithm3DES|AlgorithmRC4|AlgorithmRC2|AlgorithmBlowfish|OptionECBMode)$"))`,
      // RustCrypto's broken ciphers are crates of their own: using one is the finding (`use des::Des;`).
      rust: `((use_declaration argument: [(identifier) @c
                                        (scoped_identifier path: (identifier) @c)
                                        (scoped_use_list path: (identifier) @c)
                                        (use_as_clause path: (identifier) @c)
                                        (use_as_clause path: (scoped_identifier path: (identifier) @c))]) @finding
               (#match? @c "^(des|rc2|rc4|blowfish|cast5|idea)$"))`,
    },
  },
  {
    id: 'security/predictable-random',
    needles: ['Random', 'random', 'rand', 'RANDOM', 'Rng', 'Pcg'],
    needlesByLanguage: { go: ['"math/rand"', '"math/rand/v2"'] },
    category: 'security',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-330',
    message:
      '`{finding}` is a predictable random generator; use SecureRandom / secrets / crypto.getRandomValues for anything an attacker must not guess (tokens, identifiers, keys, passwords).',
    languages: {
      java: `((object_creation_expression type: (_) @t) @finding (#match? @t "^(java\\\\.util\\\\.)?Random$"))
             ((method_invocation object: (_) @o name: (identifier) @n) @finding
               (#match? @o "^(java\\\\.lang\\\\.)?Math$") (#eq? @n "random"))
             ((method_invocation object: (_) @o name: (identifier) @n) @finding
               (#match? @o "^(java\\\\.util\\\\.concurrent\\\\.)?ThreadLocalRandom$") (#eq? @n "current"))`,
      python: `((call function: (attribute object: (identifier) @m attribute: (identifier) @fn)) @finding
               (#eq? @m "random")
               (#match? @fn "^(random|randint|randrange|choice|choices|getrandbits|sample|shuffle|uniform|triangular|betavariate|expovariate|gammavariate|gauss|lognormvariate|normalvariate|vonmisesvariate|paretovariate|weibullvariate|randbytes)$"))`,
      // eslint-plugin-security's detect-pseudoRandomBytes: Node's non-cryptographic byte source.
      ...forJs(`((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @p)) @finding
                 (#eq? @o "Math") (#eq? @p "random"))
                ((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @p)) @finding
                 (#eq? @o "crypto") (#eq? @p "pseudoRandomBytes"))`),
      php: callText(
        'function_call_expression',
        '^(rand|mt_rand|lcg_value|mt_srand|srand|array_rand|str_shuffle)\\(',
      ),
      ruby: callText('call', '^((Kernel|Random)\\.)?(rand|srand)\\b|^Random\\.(new|bytes)\\b'),
      go: callText(
        'call_expression',
        '^rand\\.(Int|Intn|Int31|Int31n|Int63|Int63n|Uint32|Uint64|Float32|Float64|Perm|Shuffle|Read|Seed|N|IntN|Int64N|Uint64N|Uint32N)\\(',
      ),
      c: callText('call_expression', NATIVE_RANDOM),
      cpp: callText('call_expression', NATIVE_RANDOM),
      csharp: callText('object_creation_expression', '^new\\s+(System\\.)?Random\\('),
      kotlin: callText(
        'call_expression',
        '^((java\\.util\\.)?Random\\(|(kotlin\\.random\\.)?Random\\.next\\w*\\(|Math\\.random\\()',
      ),
      scala: `${callText('instance_expression', '^new\\s+(scala\\.util\\.|java\\.util\\.)?Random\\b')}
        ((field_expression) @finding (#match? @finding "^(scala\\.util\\.)?Random\\.(alphanumeric|nextInt|nextLong|nextString|nextDouble|nextBytes|nextPrintableChar|shuffle)$"))`,
      // GameplayKit's sources are for games: seedable and predictable.
      swift: `${callText('call_expression', '^(drand48|srand48|lrand48|random|srandom|rand|srand)\\(')}
        ${callText('call_expression', '^(GK(MersenneTwister|LinearCongruential|ARC4)RandomSource\\(|GKRandomSource\\.sharedRandom\\()')}`,
      // rand's SmallRng and the PCG/xorshift generators are fast, not secure (rand's own docs); any generator seeded
      // with seed_from_u64 repeats its sequence; fastrand is wyrand. (thread_rng, OsRng and StdRng from entropy are
      // secure.)
      rust: callText(
        'call_expression',
        '^((rand::)?(rngs::)?SmallRng::\\w+|((rand|rand_chacha|rand_pcg|rand_xorshift)::)?(rngs::)?\\w*Rng\\w*::seed_from_u64|fastrand::(u8|u16|u32|u64|u128|i8|i16|i32|i64|i128|usize|isize|f32|f64|bool|char|alphanumeric|alphabetic|digit|lowercase|uppercase|shuffle|choice|fill)|((rand_pcg|rand_xorshift)::)?(Pcg32|Pcg64\\w*|Lcg\\w+|XorShiftRng)::\\w+)\\(',
      ),
      bash: '((simple_expansion) @finding (#eq? @finding "$RANDOM"))',
    },
  },
];
