import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';

/**
 * Lookup tables of constants: a module-level Python dict, a final Java `Map.of(…)` field or a Ruby constant hash
 * whose values are all literals and that nothing writes to. `TABLE.get(key)` / `TABLE.getOrDefault(key, "x")` /
 * `TABLE.fetch(key, "x")` with a key from input yields one of the table's values (or the default): an allow-list
 * lookup, not input.
 */
const LITERAL =
  /^(string|integer|float|true|false|none|nil|simple_symbol|string_literal|decimal_integer_literal|null_literal)$/;
const JAVA_TABLE = /^(Map|ImmutableMap)\.of\(/;
const PY_WRITES = /^(update|setdefault|pop|popitem|clear|__setitem__)$/;

const cache = new WeakMap<ParsedSource, Set<string>>();

const named = (n: SyntaxNode) => n.children.filter((c) => c.named && !/comment/.test(c.type));
const fieldOf = (n: SyntaxNode, f: string) => n.children.find((c) => c.field === f);
const literal = (n: SyntaxNode | undefined) =>
  n !== undefined && LITERAL.test(n.type) && !n.children.some((c) => c.type === 'interpolation');

function tables(parsed: ParsedSource): Set<string> {
  const text = (n: SyntaxNode) => parsed.source.slice(n.startIndex, n.endIndex);
  const found = new Set<string>();
  const written = new Set<string>();
  walk(parsed.root, (n) => {
    if (n.type === 'assignment') {
      const left = fieldOf(n, 'left');
      const right = fieldOf(n, 'right');
      if (left?.type === 'subscript') written.add(text(fieldOf(left, 'value') ?? left));
      if (left?.type === 'element_reference') written.add(text(fieldOf(left, 'object') ?? left));
      // Ruby: `SORTS = { 'new' => 'created_at DESC' }.freeze`, a constant in a class or module body.
      const hash =
        right?.type === 'call' && /^\.?freeze$/.test(text(fieldOf(right, 'method') ?? right))
          ? fieldOf(right, 'receiver')
          : right;
      if (left?.type === 'constant' && hash?.type === 'hash') {
        const pairs = named(hash);
        if (pairs.length > 0 && pairs.every((p) => p.type === 'pair' && literal(fieldOf(p, 'value'))))
          found.add(text(left));
      }
      if (
        left?.type === 'identifier' &&
        right?.type === 'dictionary' &&
        n.parent?.parent?.type === 'module'
      ) {
        const pairs = named(right);
        if (pairs.length > 0 && pairs.every((p) => p.type === 'pair' && literal(fieldOf(p, 'value'))))
          found.add(text(left));
      }
    } else if (n.type === 'call') {
      const fn = fieldOf(n, 'function');
      const method = fn?.type === 'attribute' ? fieldOf(fn, 'attribute') : undefined;
      const object = fn?.type === 'attribute' ? fieldOf(fn, 'object') : undefined;
      if (object && method && PY_WRITES.test(text(method))) written.add(text(object));
    } else if (n.type === 'field_declaration' && /\bfinal\b/.test(text(n))) {
      for (const d of n.children.filter((c) => c.type === 'variable_declarator')) {
        const name = fieldOf(d, 'name');
        const value = fieldOf(d, 'value');
        const args = value?.type === 'method_invocation' ? fieldOf(value, 'arguments') : undefined;
        if (name && value && args && JAVA_TABLE.test(text(value)) && named(args).every(literal))
          found.add(text(name));
      }
    }
    return true;
  });
  for (const name of written) found.delete(name);
  return found;
}

/** `name` (`TABLE`, `this.TABLE`, `self.TABLE`) is a lookup table of constants in this file. */
export function isLookupTable(parsed: ParsedSource, name: string): boolean {
  let found = cache.get(parsed);
  if (!found) {
    found = tables(parsed);
    cache.set(parsed, found);
  }
  return found.has(name.replace(/^(this|self)\./, ''));
}
