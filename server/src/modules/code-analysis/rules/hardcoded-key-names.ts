import type { CodeLanguage } from '@tessera/shared';
import type { SyntaxNode } from '../parsing/tree';
import type { Hit, Scope, ScopedRule } from './scoped';

/**
 * A signing or MAC key given by a name the file sets once to a string literal (`private static final String SECRET
 * = "…"; … Algorithm.HMAC256(SECRET)`, `val key = "…"; Jwt.encode(claim, key, algo)`, `var jwtKey =
 * []byte("…"); token.SignedString(jwtKey)`): the literal is the key, as with one written in the call
 * (security-keys.ts), which Semgrep's jwt-hardcode rules and gosec G101 report. A name assigned more than once, or
 * from anything but a literal (configuration, the environment), is not followed.
 */

/** Calls that take a key, and which argument holds it, per language. */
const KEY_CALLS: Partial<Record<CodeLanguage, { callee: RegExp; arg: number | 'any' }[]>> = {
  java: [
    {
      callee: /^Algorithm\.HMAC(256|384|512)$|^Keys\.hmacShaKeyFor$|\.setSigningKey$|^newSecretKeySpec$/,
      arg: 0,
    },
    { callee: /\.signWith$/, arg: 'any' },
  ],
  kotlin: [
    {
      callee: /^Algorithm\.HMAC(256|384|512)$|^Keys\.hmacShaKeyFor$|\.setSigningKey$|^SecretKeySpec$/,
      arg: 0,
    },
    { callee: /\.signWith$/, arg: 'any' },
  ],
  scala: [
    {
      callee:
        /^Jwt(Json|Circe|Spray|Upickle|Argonaut|Json4sNative|Json4sJackson|PlayJson)?\.(encode|decode\w*|isValid|validate)$/,
      arg: 1,
    },
    { callee: /^Algorithm\.HMAC(256|384|512)$|^newSecretKeySpec$/, arg: 0 },
  ],
  go: [
    { callee: /\.SignedString$/, arg: 0 },
    { callee: /^hmac\.New$/, arg: 1 },
  ],
};

/** The name a key argument reads (`KEY`, `this.KEY`, `KEY.getBytes()`, `key.toByteArray()`, `[]byte(key)`). */
const KEY_NAME =
  /^(?:this\.)?([A-Za-z_]\w*)(?:\.(?:getBytes|toByteArray|getBytes\(StandardCharsets\.UTF_8\))\(\)|\.getBytes\([^()]*\))?$|^\[\]byte\(([A-Za-z_]\w*)\)$/;

const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The literal a name is set to once in the file, by the language's declaration forms. */
function literalOf(source: string, name: string, language: CodeLanguage): string | undefined {
  const n = literally(name);
  const writes = source.match(new RegExp(`\\b${n}\\s*(:=|=)(?!=)`, 'g')) ?? [];
  if (writes.length !== 1) return undefined;
  const declarations: Partial<Record<CodeLanguage, RegExp>> = {
    java: new RegExp(`\\bString\\s+${n}\\s*=\\s*"([^"\\\\]*)"\\s*;`),
    kotlin: new RegExp(
      `\\b(?:val|var)\\s+${n}(?:\\s*:\\s*String)?\\s*=\\s*"([^"\\\\$]*)"\\s*(?:$|;|\\n)`,
      'm',
    ),
    scala: new RegExp(
      `\\b(?:val|var)\\s+${n}(?:\\s*:\\s*String)?\\s*=\\s*"([^"\\\\$]*)"\\s*(?:$|;|\\n)`,
      'm',
    ),
    go: new RegExp(`\\b${n}\\s*(?::=|=)\\s*(?:\\[\\]byte\\()?"([^"\\\\]*)"\\)?\\s*(?:$|;|\\n)`, 'm'),
  };
  const value = declarations[language]?.exec(source)?.[1];
  // Three characters or more: an empty or one-letter value is a placeholder, not a key.
  return value !== undefined && value.trim().length >= 3 ? value : undefined;
}

function calleeAndArgs(node: SyntaxNode, scope: Scope): { callee: string; args: SyntaxNode[] } | undefined {
  const list =
    node.children.find((c) => /^(argument_list|arguments|value_arguments)$/.test(c.type)) ??
    node.children.find((c) => c.type === 'call_suffix')?.children.find((c) => c.type === 'value_arguments');
  if (!list) return undefined;
  const callee = scope
    .text(node)
    .slice(0, list.startIndex - node.startIndex)
    .replace(/\s+/g, '');
  const args = list.children
    .filter((c) => c.named && c.type !== 'comment')
    .map((c) => (c.type === 'value_argument' ? (c.children.find((a) => a.named) ?? c) : c));
  return { callee, args };
}

function keyByName(node: SyntaxNode, scope: Scope): Hit | undefined {
  const specs = KEY_CALLS[scope.language];
  const call = specs && calleeAndArgs(node, scope);
  if (!specs || !call) return undefined;
  const spec = specs.find((s) => s.callee.test(call.callee));
  if (!spec) return undefined;
  let root = node;
  while (root.parent) root = root.parent;
  const source = scope.text(root);
  const candidates = spec.arg === 'any' ? call.args : [call.args[spec.arg]];
  for (const arg of candidates) {
    if (!arg) continue;
    const m = KEY_NAME.exec(scope.text(arg).replace(/\s+/g, ''));
    const name = m?.[1] ?? m?.[2];
    if (name && literalOf(source, name, scope.language) !== undefined) return { detail: name };
  }
  return undefined;
}

export const HARDCODED_KEY_NAME_RULES: ScopedRule[] = [
  {
    id: 'security/hardcoded-key',
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-321',
    message:
      '`{detail}` is a string literal set in the code and used here as a signing or MAC key: anyone with the code can forge tokens; load it from the environment or a secret manager.',
    needles: ['HMAC', 'hmac', 'Jwt', 'SigningKey', 'signWith', 'SignedString', 'SecretKeySpec'],
    nodes: {
      java: ['method_invocation', 'object_creation_expression'],
      kotlin: ['call_expression'],
      scala: ['call_expression'],
      go: ['call_expression'],
    },
    test: keyByName,
  },
];
