import { callText } from './security-crypto';
import { forJs, type RuleDefinition } from './types';

/**
 * JSON Web Tokens accepted without checking their signature (CWE-347), as the Semgrep registry's jsonwebtoken,
 * ruby-jwt and .NET rules report it: the `none` algorithm allowed, `jwt.decode` used where no `verify` is (decode
 * reads the claims of any token, signed or not), `JWT.decode(token, key, false)`, and .NET
 * `TokenValidationParameters` that stop requiring or checking the signature.
 */
export const JWT_RULES: RuleDefinition[] = [
  {
    id: 'security/jwt-signature-not-verified',
    needles: [
      'none',
      'decode',
      'RequireSignedTokens',
      'ValidateIssuerSigningKey',
      'SignatureValidator',
      'Jwts',
      'parseClaimsJwt',
      'signature',
      'ParseUnverified',
      'Jwt',
    ],
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-347',
    message:
      '`{finding}` accepts a token without verifying its signature, so anyone can forge its claims; verify it with the expected key and a fixed algorithm list.',
    languages: {
      ...forJs(`((pair key: (property_identifier) @k value: (array (string) @alg)) @finding (#match? @k "^(algorithms|algorithm)$") (#match? @alg "^['\\"]none['\\"]$"))
        ((pair key: (property_identifier) @k value: (string) @alg) @finding (#eq? @k "algorithm") (#match? @alg "^['\\"]none['\\"]$"))`),
      // ruby-jwt: `JWT.decode(t, key, false)` skips verification; `JWT.encode(p, nil, 'none')` issues an unsigned
      // token, and `JWT.decode(t, k, true, algorithm: 'none')` accepts one.
      ruby: `((call receiver: (constant) @r method: (identifier) @m arguments: (argument_list . (_) . (_) . (false))) @finding (#eq? @r "JWT") (#eq? @m "decode"))
             ((call receiver: (constant) @r method: (identifier) @m arguments: (argument_list . (_) . (_) . (string) @alg)) @finding
               (#eq? @r "JWT") (#eq? @m "encode") (#match? @alg "^['\\"]none['\\"]$"))
             ((call receiver: (constant) @r method: (identifier) @m arguments: (argument_list (pair key: [(hash_key_symbol) (simple_symbol)] @k value: (string) @alg))) @finding
               (#eq? @r "JWT") (#eq? @m "decode") (#match? @k "^:?algorithm$") (#match? @alg "^['\\"]none['\\"]$"))`,
      // java-jwt's `Algorithm.none()`; jjwt's `parse`/`parseClaimsJwt`/`parsePlaintextJwt` accept unsigned tokens
      // (`parseClaimsJws` requires the signature).
      java: `((method_invocation object: (identifier) @o name: (identifier) @m) @finding (#eq? @o "Algorithm") (#eq? @m "none"))
        ((method_invocation name: (identifier) @m) @finding (#match? @m "^(parseClaimsJwt|parsePlaintextJwt|parseUnsecuredClaims)$"))`,
      kotlin: `((call_expression (navigation_expression (simple_identifier) @o (navigation_suffix (simple_identifier) @m))) @finding (#eq? @o "Algorithm") (#eq? @m "none"))
        ((call_expression (navigation_expression (navigation_suffix (simple_identifier) @m))) @finding (#match? @m "^(parseClaimsJwt|parsePlaintextJwt|parseUnsecuredClaims)$"))`,
      // jwt-scala: `Jwt.decode(token)` without a key checks no signature, nor does `JwtOptions(signature = false)`.
      scala: `((call_expression function: (field_expression value: (identifier) @o field: (identifier) @m) arguments: (arguments . (_) .)) @finding
          (#match? @o "^Jwt(Json|Circe|Spray|Upickle|Argonaut|Json4s|PlayJson|ZIOJson)?$") (#match? @m "^decode(Raw|All|Json|JsonAll)?$"))
        ((call_expression function: (identifier) @f arguments: (arguments (assignment_expression left: (identifier) @k right: (boolean_literal) @v))) @finding
          (#eq? @f "JwtOptions") (#eq? @k "signature") (#eq? @v "false"))`,
      // jsonwebtoken (Rust): `Validation::insecure_disable_signature_validation()`, the old `dangerous_insecure_decode`.
      rust: callText(
        'call_expression',
        '(\\.insecure_disable_signature_validation\\(\\)$|^(jsonwebtoken::)?dangerous_(insecure|unsafe)_decode\\w*\\()',
      ),
      // Python (PyJWT, python-jose): rules/python-web-calls.ts, which reads the file's imports.
      // golang-jwt: ParseUnverified reads the claims without checking the signature.
      go: `((call_expression function: (selector_expression field: (field_identifier) @m)) @finding (#eq? @m "ParseUnverified"))`,
      csharp: `((assignment_expression left: [(identifier) (member_access_expression)] @p right: (boolean_literal) @v) @finding (#match? @p "(^|[.])(RequireSignedTokens|ValidateIssuerSigningKey)$") (#eq? @v "false"))
        ((assignment_expression left: (identifier) @p right: (lambda_expression)) @finding (#eq? @p "SignatureValidator"))`,
    },
  },
  {
    id: 'security/jwt-decode-without-verify',
    needles: ['decode'],
    // A file that verifies tokens may decode one to read its header (the key id) first.
    unlessByLanguage: {
      javascript: ['.verify('],
      typescript: ['.verify('],
      tsx: ['.verify('],
      java: ['.verify('],
      kotlin: ['.verify('],
    },
    category: 'security',
    severity: 'high',
    confidence: 'medium',
    cwe: 'CWE-347',
    message:
      "`{finding}` reads a token's claims without checking its signature; verify it (jwt.verify(token, key, { algorithms: [...] }), JWT.require(alg).build().verify(token)).",
    languages: {
      ...forJs(
        `((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @m)) @finding (#match? @o "^(jwt|jsonwebtoken|JWT)$") (#eq? @m "decode"))`,
      ),
      // java-jwt's `JWT.decode` reads the claims only; `JWT.require(alg).build().verify(token)` checks them.
      java: `((method_invocation object: (identifier) @o name: (identifier) @m) @finding (#eq? @o "JWT") (#eq? @m "decode"))`,
      kotlin: `((call_expression (navigation_expression (simple_identifier) @o (navigation_suffix (simple_identifier) @m))) @finding (#eq? @o "JWT") (#eq? @m "decode"))`,
    },
  },
];
