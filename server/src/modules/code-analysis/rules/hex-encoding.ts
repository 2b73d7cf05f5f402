import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';

const text = (parsed: ParsedSource, n: SyntaxNode) =>
  parsed.source.slice(n.startIndex, n.endIndex).replace(/\s+/g, '');

/** Loops over a collection: the node type and how to read the loop variable and the loop header's text. */
const LOOPS: Record<string, { type: string; variable: (n: SyntaxNode) => SyntaxNode | undefined }> = {
  java: { type: 'enhanced_for_statement', variable: (n) => n.children.find((c) => c.field === 'name') },
  kotlin: {
    type: 'for_statement',
    variable: (n) => n.children.find((c) => c.type === 'variable_declaration')?.children[0],
  },
};

/** What pads each byte to two digits: a length check, `padStart`, a `"0"` appended, the `+ 0x100` idiom, a format. */
const PADDED = /length\(\)(==1|<2)|\.length(==1|<2)|padStart|["']0["']|0x100|String\.format|\.format\(|%02/;
/** Where the bytes come from: a digest, a MAC or a cipher, or a byte array the loop walks. */
const BYTES = /\.digest\(|\.doFinal\(|MessageDigest|ByteArray|byte\[\]/;

/**
 * Bytes turned to hex one at a time with `Integer.toHexString(b & 0xff)` (CWE-704; Semgrep's bad-hexa-conversion,
 * FindSecBugs BAD_HEXA_CONVERSION): a byte under 0x10 gives one digit, so `0x0a 0x1b` and `0xa1 0x0b` both read
 * "a1b" and different digests compare equal. Reported inside a for-each over bytes (Java's `for (byte b : …)`, a
 * Kotlin `for` in a function handling a digest or byte array) whose body does nothing to pad the digit.
 */
export function badHexConversion(parsed: ParsedSource): Finding[] {
  const loop = LOOPS[parsed.language];
  if (!loop || !parsed.source.includes('toHexString')) return [];
  const functions = PROFILES[parsed.language].functions;
  const out: Finding[] = [];
  walk(parsed.root, (node) => {
    if (node.type !== loop.type) return true;
    const variable = loop.variable(node);
    if (!variable) return true;
    const name = text(parsed, variable);
    if (
      parsed.language === 'java' &&
      text(parsed, node.children.find((c) => c.field === 'type') ?? node) !== 'byte'
    )
      return true;
    if (parsed.language === 'kotlin') {
      let scope: SyntaxNode | null = node.parent;
      while (scope && !functions[scope.type]) scope = scope.parent;
      if (!BYTES.test(text(parsed, scope ?? parsed.root))) return true;
    }
    const body = text(parsed, node);
    if (PADDED.test(body)) return true;
    walk(node, (n) => {
      if (!/^(method_invocation|call_expression)$/.test(n.type)) return true;
      const call = text(parsed, n);
      const arg = /^(?:java\.lang\.)?Integer\.toHexString\((.*)\)$/.exec(call)?.[1];
      if (arg === undefined || !new RegExp(`(^|\\W)${name}(\\W|$)`).test(arg)) return true;
      out.push({
        rule_id: 'security/bad-hex-conversion',
        category: 'security',
        severity: 'low',
        confidence: 'medium',
        message: `\`Integer.toHexString\` drops the leading zero of bytes under 0x10, so different bytes give the same text; use String.format("%02x", ${name}) or HexFormat.of().formatHex(bytes).`,
        ...locate(parsed, n),
        cwe: 'CWE-704',
      });
      return false;
    });
    return true;
  });
  return out;
}
