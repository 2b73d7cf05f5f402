import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/**
 * A string literal given where an API takes a signing key, an encryption key or a password (CWE-321/259): a JWT
 * secret, an HMAC key, `SecretKeySpec("…".getBytes())`, `DriverManager.getConnection(url, user, "…")`,
 * `new NetworkCredential(user, "…")`. Such a literal is the key whatever it looks like, so its entropy is not
 * weighed (`jwt.encode(p, "secret")` is the classic case); an empty string or text filled in later
 * (`"${JWT_SECRET}"`) is not a key.
 */
const LIT = `[bru]?["'\`][^"'\`$%{}]{3,}["'\`]`;
/** Any one argument, with balanced brackets one level deep. */
const ARG = `(?:[^,()\\[\\]{}]|\\([^()]*\\)|\\[[^\\[\\]]*\\]|\\{[^{}]*\\})+`;
const second = (callee: string, lit = LIT) => `^(${callee})\\(\\s*${ARG},\\s*${lit}`;
const third = (callee: string, lit = LIT) => `^(${callee})\\(\\s*${ARG},\\s*${ARG},\\s*${lit}`;
const first = (callee: string, lit = LIT) => `^(${callee})\\(\\s*${lit}`;
const any = (...patterns: string[]) => patterns.join('|');

const JAVA_LIKE = any(
  first('(new\\s+)?SecretKeySpec', `"[^"]{3,}"\\.(getBytes|toByteArray|encodeToByteArray)`),
  first('Algorithm\\.HMAC(256|384|512)'),
  third('DriverManager\\.getConnection'),
  second('(new\\s+)?PasswordAuthentication', `"[^"]{3,}"\\.toCharArray`),
  second('\\w+\\.load', `"[^"]{3,}"\\.toCharArray`),
  second('\\w*\\.?signWith\\s*', `"[^"]{3,}"`),
  first('\\w*\\.?setSigningKey', `"[^"]{3,}"`),
);

export const KEY_RULES: RuleDefinition[] = [
  {
    id: 'security/hardcoded-key',
    needles: [
      'jwt',
      'JWT',
      'Jwt',
      'hmac',
      'HMAC',
      'Hmac',
      'Key',
      'key',
      'Connection',
      'connect',
      'Credential',
      'PDO',
      'Authentication',
      'sign',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-321',
    message:
      '`{finding}` uses a string literal as a key or password: anyone with the code can forge tokens or decrypt; load it from the environment or a secret manager.',
    languages: {
      python: callText(
        'call',
        any(
          second('jwt\\.(encode|decode)'),
          first('hmac\\.(new|digest)'),
          first('(Fernet|AES\\.new|ChaCha20\\.new|DES3\\.new)'),
          `^jwt\\.(encode|decode)\\([\\s\\S]*\\bkey\\s*=\\s*${LIT}`,
        ),
      ),
      ...forJs(
        callText(
          'call_expression',
          any(
            second('(jwt|jsonwebtoken)\\.(sign|verify)'),
            second('crypto\\.createHmac'),
            second('crypto\\.createCipheriv|crypto\\.createDecipheriv'),
            `^(expressSession|session|cookieSession|cookieParser)\\(\\s*${LIT}`,
            // express-jwt's `jwt({ secret: '…' })`, NestJS `JwtModule.register({ secret: '…' })`, passport-jwt's
            // `new JwtStrategy({ secretOrKey: '…' })`: the options' key written in the call.
            `^(\\w+\\.)?(jwt|expressjwt|expressJwt|jwtMiddleware|register)\\(\\s*\\{[^{}]*\\bsecret(OrPrivateKey)?\\s*:\\s*${LIT}`,
          ),
        ) +
          callText(
            'new_expression',
            `^new\\s+(\\w+\\.)?(JwtStrategy|Strategy)\\(\\s*\\{[^{}]*\\bsecretOrKey\\s*:\\s*${LIT}`,
          ),
      ),
      java: `${callText('method_invocation', JAVA_LIKE)}
             ${callText('object_creation_expression', JAVA_LIKE)}`,
      kotlin: callText('call_expression', JAVA_LIKE),
      // jwt-scala: `Jwt.encode(claim, "key", algo)`, `JwtJson.decode(token, "key", Seq(…))` (Semgrep's jwt-scala-hardcode).
      scala: `${callText('call_expression', any(JAVA_LIKE, second('Jwt(Json|Circe|Spray|Upickle|Argonaut|Json4sNative|Json4sJackson|PlayJson)?\\.(encode|decode\\w*|isValid|validate)', `"[^"$]{3,}"`)))}
              ${callText('instance_expression', JAVA_LIKE)}`,
      go: callText(
        'call_expression',
        any(
          `^[\\w.]+\\.SignedString\\(\\s*\\[\\]byte\\(\\s*"[^"]{3,}"`,
          `^hmac\\.New\\(\\s*${ARG},\\s*\\[\\]byte\\(\\s*"[^"]{3,}"`,
          `^jwt\\.Parse\\w*\\([\\s\\S]*return\\s+\\[\\]byte\\(\\s*"[^"]{3,}"`,
        ),
      ),
      ruby: callText(
        'call',
        any(second('JWT\\.(encode|decode)'), second('OpenSSL::HMAC\\.(hexdigest|digest|new)')),
      ),
      php: `${callText('scoped_call_expression', any(second('JWT::(encode|decode)')))}
            ${callText('function_call_expression', any(third('hash_hmac'), third('openssl_(en|de)crypt'), third('mysqli_connect|mysql_connect', `${ARG},\\s*${LIT}`)))}
            ${callText('object_creation_expression', any(third('new\\s+PDO'), third('new\\s+mysqli', `${ARG},\\s*${LIT}`)))}`,
      csharp: `${callText('object_creation_expression', any(second('new\\s+NetworkCredential'), first('new\\s+SymmetricSecurityKey', `Encoding\\.\\w+\\.GetBytes\\(\\s*@?"[^"]{3,}"`)))}`,
      rust: callText(
        'call_expression',
        any(
          first('(jsonwebtoken::)?(EncodingKey|DecodingKey)::from_secret', `b?"[^"]{3,}"(\\.as_ref\\(\\))?`),
          first('Hmac::<\\w+>::new_from_slice|\\w+::new_from_slice', `b"[^"]{3,}"`),
        ),
      ),
    },
  },
];
