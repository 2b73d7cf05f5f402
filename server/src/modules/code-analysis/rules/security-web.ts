import { forJs, type RuleDefinition } from './types';

/**
 * Weak randomness and cookies without the Secure flag. A predictable generator is reported wherever it is used
 * (as SpotBugs' PREDICTABLE_RANDOM and Bandit's B311 do): whether its numbers end up in a token cannot be told from
 * one call, and a secure generator costs nothing.
 */
export const WEB_SECURITY_RULES: RuleDefinition[] = [
  {
    id: 'security/predictable-random',
    needles: ['Random', 'random'],
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
      ...forJs(`((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @p)) @finding
                 (#eq? @o "Math") (#eq? @p "random"))`),
    },
  },
  {
    id: 'security/insecure-cookie',
    needles: ['set_cookie', 'cookie'],
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-614',
    message:
      '`{finding}` sets a cookie without the Secure flag, so it is also sent over plain HTTP; pass secure=True (and httponly=True, samesite).',
    languages: {
      python: `((call function: (attribute attribute: (identifier) @fn) arguments: (argument_list) @args) @finding
               (#match? @fn "^set_cookie$"))`,
      ...forJs(`((call_expression function: (member_expression object: (identifier) @o property: (property_identifier) @p)
                  arguments: (arguments) @args) @finding
                 (#match? @o "^(res|response|ctx)$") (#eq? @p "cookie"))`),
    },
    check: (c) => !/\bsecure\s*[=:]\s*(True|true)\b/.test(c.args?.text ?? ''),
  },
];
