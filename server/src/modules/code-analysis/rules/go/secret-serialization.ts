import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import {
  callParts,
  enclosingFunction,
  field,
  finding,
  namedChildren,
  nodesOf,
  parameters,
  textOf,
} from './syntax';

/**
 * Secrets written out by a serialiser (CWE-499, gosec G117): a struct with an exported, string-typed field named
 * like a secret (`Password`, `APIToken`, `ClientSecret`, `PrivateKey`) and no `json:"-"` tag, handed whole to
 * json/yaml/xml/toml `Marshal` or an encoder's `Encode`, so the secret lands in logs, responses or files. A type with
 * its own `MarshalJSON`/`MarshalYAML`/`MarshalText`, and a literal whose secret field is set through a call
 * (`mask(pw)`), are left alone.
 */

const SECRET_NAME =
  /(password|passwd|passphrase|secret|token|apikey|api_key|privatekey|private_key|credential)s?$/i;
const STRINGY = /^(\[\])?\*?(string|\[\]byte)$/;
const MARSHAL = /^(json|yaml|xml|toml)\.(Marshal|MarshalIndent)$/;
const ENCODE = /^(json|yaml|xml|toml)\.NewEncoder\(.*\)\.Encode$/s;
const SKIPPED_TAG = /(json|yaml|xml|toml):"-"/;
const SELF_MARSHAL = /^Marshal(JSON|YAML|Text|XML|TOML)$/;

/** Struct types of the file with their exported secret fields. */
function secretStructs(parsed: ParsedSource): Map<string, string[]> {
  const text = (n: SyntaxNode) => textOf(parsed, n);
  const out = new Map<string, string[]>();
  for (const spec of nodesOf(parsed.root, 'type_spec')) {
    const name = field(spec, 'name');
    const struct = field(spec, 'type');
    if (!name || struct?.type !== 'struct_type') continue;
    const fields = nodesOf(struct, 'field_declaration').flatMap((f) => {
      const type = field(f, 'type');
      const tag = field(f, 'tag');
      if (!type || !STRINGY.test(text(type).replace(/\s+/g, ''))) return [];
      if (tag && SKIPPED_TAG.test(text(tag))) return [];
      return f.children
        .filter((c) => c.field === 'name' && /^[A-Z]/.test(text(c)) && SECRET_NAME.test(text(c)))
        .map((c) => text(c));
    });
    if (fields.length > 0) out.set(text(name), fields);
  }
  // A type that marshals itself decides what it writes.
  for (const m of nodesOf(parsed.root, 'method_declaration')) {
    const name = field(m, 'name');
    if (!name || !SELF_MARSHAL.test(text(name))) continue;
    const receiver = namedChildren(field(m, 'receiver'))[0];
    const type = receiver && field(receiver, 'type');
    if (type) out.delete(text(type).replace(/^\*/, ''));
  }
  return out;
}

/** The type text a serialised argument names: its own text, or the declared type of a parameter or receiver. */
function argumentType(parsed: ParsedSource, arg: SyntaxNode, fn: SyntaxNode | undefined): string {
  const argText = textOf(parsed, arg);
  if (arg.type !== 'identifier' || !fn) return argText;
  const param = parameters(parsed, fn).find((p) => p.name === argText);
  if (param) return param.type;
  const receiver = fn.type === 'method_declaration' ? namedChildren(field(fn, 'receiver'))[0] : undefined;
  const name = receiver && field(receiver, 'name');
  const type = receiver && field(receiver, 'type');
  return name && type && textOf(parsed, name) === argText ? textOf(parsed, type) : '';
}

export function secretSerialization(parsed: ParsedSource): Finding[] {
  if (!/\b(json|yaml|xml|toml)\./.test(parsed.source)) return [];
  const sensitive = secretStructs(parsed);
  if (sensitive.size === 0) return [];
  const out: Finding[] = [];
  for (const call of nodesOf(parsed.root, 'call_expression')) {
    const { callee, args } = callParts(parsed, call);
    const arg = args[0];
    if (!arg || !(MARSHAL.test(callee) || ENCODE.test(callee))) continue;
    const argText = textOf(parsed, arg);
    const declared = argumentType(parsed, arg, enclosingFunction(call));
    for (const [type, fields] of sensitive) {
      if (!new RegExp(`(^|[^\\w.])${type}\\b`).test(declared)) continue;
      // `LogEntry{Password: mask(pw)}`: the secret field is given a transformed value.
      if (fields.every((f) => new RegExp(`\\b${f}\\s*:\\s*[\\w.]+\\(`).test(argText))) continue;
      out.push(
        finding(parsed, call, {
          rule_id: 'security/secret-serialized',
          category: 'security',
          severity: 'medium',
          confidence: 'medium',
          cwe: 'CWE-499',
          message: `${type}'s field ${fields.join(', ')} holds a secret and is serialised with it; tag it \`json:"-"\` (and yaml/xml), or marshal a view without it.`,
        }),
      );
      break;
    }
  }
  return out;
}
