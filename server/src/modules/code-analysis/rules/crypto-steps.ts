import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf, assignedName, callsOn, declaredType, localDeclaration, valuesOf } from './java-scope';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

const LITERALS =
  /^(decimal_integer_literal|hex_integer_literal|octal_integer_literal|binary_integer_literal|character_literal|unary_expression|cast_expression|string_literal)$/;

/** `{1, 2}` / `new byte[] {1, 2}` of literals, or `new byte[16]` (zeros): an array whose content is fixed. */
function fixedArray(value: SyntaxNode): boolean {
  if (value.type === 'array_initializer')
    return value.children.filter((c) => c.named).every((c) => LITERALS.test(c.type));
  if (value.type !== 'array_creation_expression') return false;
  const init = field(value, 'value') ?? value.children.find((c) => c.type === 'array_initializer');
  return init ? fixedArray(init) : true;
}

/**
 * Whether the local `name` (an array) holds fixed bytes where it is used: every value it is given is a fixed array,
 * and nothing fills it (`random.nextBytes(iv)`, `in.read(iv)`, `iv[i] = …`) in the block it lives in.
 */
function holdsFixedBytes(name: string, at: SyntaxNode, scope: Scope): boolean {
  const local = localDeclaration(name, at, scope);
  if (!local) return false;
  const values = valuesOf(name, local.block, scope);
  if (values.length === 0 || !values.every(fixedArray)) return false;
  const filled = descendants(local.block, ['argument_list', 'assignment_expression']).some((n) =>
    n.type === 'assignment_expression'
      ? scope.text(field(n, 'left') ?? n).startsWith(`${name}[`)
      : n.parent !== null &&
        n.parent.type === 'method_invocation' &&
        n.parent !== at &&
        n.children.some((c) => c.named && scope.text(c) === name),
  );
  return !filled;
}

/** The block a local assigned from `call` lives in, and its name. */
function holderOf(call: SyntaxNode, scope: Scope): { name: string; block: SyntaxNode } | undefined {
  const name = assignedName(call, scope);
  const local = name ? localDeclaration(name, call, scope) : undefined;
  return name && local ? { name, block: local.block } : undefined;
}

const callText = (call: SyntaxNode, scope: Scope): string => scope.text(call).replace(/\s+/g, '');

/**
 * Cryptographic objects used without a step they need (CWE-325: a key generator never initialised with a key size,
 * a digest of nothing), with fixed inputs that must be unpredictable (CWE-329: an IV of constant or zero bytes for
 * CBC; CWE-336: a SecureRandom seeded with constant bytes, the same sequence every run), or salted from a
 * predictable generator (CWE-760). SonarSource S3329, S4347; CodeQL java/static-initialization-vector.
 */
export const CRYPTO_STEP_RULES: ScopedRule[] = [
  {
    id: 'security/missing-crypto-step',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-325',
    message: '{detail}',
    needles: ['KeyGenerator', 'MessageDigest'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const text = callText(call, scope);
      const kind = /^(javax\.crypto\.)?KeyGenerator\.getInstance\(/.test(text)
        ? 'keys'
        : /^(java\.security\.)?MessageDigest\.getInstance\(/.test(text)
          ? 'digest'
          : undefined;
      const holder = kind && holderOf(call, scope);
      if (!holder) return;
      const calls = callsOn(holder.block, holder.name, scope);
      if (
        kind === 'keys' &&
        calls.some((c) => c.method === 'generateKey') &&
        !calls.some((c) => c.method === 'init')
      )
        return {
          detail: `\`${holder.name}\` generates a key without \`init(keySize)\`: its size is the provider's default. Initialise it (AES: 256).`,
        };
      if (
        kind === 'digest' &&
        calls.some((c) => c.method === 'digest' && argumentsOf(c.call).length === 0) &&
        !calls.some((c) => c.method === 'update' || (c.method === 'digest' && argumentsOf(c.call).length > 0))
      )
        return {
          detail: `\`${holder.name}.digest()\` hashes nothing: no \`update()\` gave it data, so the result is the same constant every time.`,
        };
      return undefined;
    },
  },
  {
    id: 'security/static-iv',
    category: 'security',
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-329',
    message:
      'The IV `{detail}` holds fixed bytes: with CBC, equal plaintexts give equal ciphertexts. Fill it from SecureRandom.nextBytes for each encryption.',
    needles: ['IvParameterSpec'],
    nodes: { java: ['object_creation_expression'] },
    test: (creation, scope) => {
      if (!/IvParameterSpec$/.test(scope.text(field(creation, 'type') ?? creation))) return;
      const iv = argumentsOf(creation)[0];
      if (iv?.type !== 'identifier') return;
      const name = scope.text(iv);
      return holdsFixedBytes(name, creation, scope) ? { detail: name } : undefined;
    },
  },
  {
    id: 'security/fixed-seed-bytes',
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-336',
    message:
      '`{detail}` seeds the generator with constant bytes, so it produces the same sequence on every run. Let SecureRandom seed itself.',
    needles: ['setSeed'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      if (scope.text(field(call, 'name') ?? call) !== 'setSeed') return;
      const seed = argumentsOf(call)[0];
      if (seed?.type !== 'identifier') return;
      return holdsFixedBytes(scope.text(seed), call, scope) ? { detail: scope.text(call) } : undefined;
    },
  },
  {
    id: 'security/predictable-salt',
    category: 'security',
    severity: 'medium',
    confidence: 'high',
    cwe: 'CWE-760',
    message:
      'The hash is salted from `java.util.Random` (`{detail}`), whose output can be predicted; draw the salt from SecureRandom.',
    needles: ['Random'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      if (scope.text(field(call, 'name') ?? call) !== 'update') return;
      const object = field(call, 'object');
      if (object?.type !== 'identifier' || declaredType(scope.text(object), call, scope) !== 'MessageDigest')
        return;
      for (const inner of descendants(field(call, 'arguments') ?? call, [
        'method_invocation',
        'object_creation_expression',
      ])) {
        const target = field(inner, 'object');
        if (
          inner.type === 'object_creation_expression' &&
          /^(java\.util\.)?Random$/.test(scope.text(field(inner, 'type') ?? inner))
        )
          return { detail: scope.text(inner) };
        if (target?.type === 'identifier' && declaredType(scope.text(target), inner, scope) === 'Random')
          return { detail: scope.text(inner) };
      }
      return undefined;
    },
  },
];
