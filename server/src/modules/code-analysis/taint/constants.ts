import type { Const } from './values';

/** JavaScript-like truthiness of a constant, as Java booleans and Python's truth testing agree on it. */
export function truthy(value: Const): boolean {
  if (typeof value === 'string') return value.length > 0;
  return Boolean(value);
}

const num = (v: Const): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : undefined;

/** Folds a binary operator over two constants; undefined when the result is not known. */
export function foldBinary(op: string, a: Const, b: Const): Const | undefined {
  switch (op) {
    case '+':
      if (typeof a === 'string' || typeof b === 'string') return `${a}${b}`;
      return arithmetic(a, b, (x, y) => x + y);
    case '-':
      return arithmetic(a, b, (x, y) => x - y);
    case '*':
      if (typeof a === 'string' && typeof b === 'number') return a.repeat(Math.max(0, Math.min(b, 64)));
      return arithmetic(a, b, (x, y) => x * y);
    case '/':
    case '//':
      return arithmetic(a, b, (x, y) => (y === 0 ? Number.NaN : op === '//' ? Math.floor(x / y) : x / y));
    case '%':
      return arithmetic(a, b, (x, y) => (y === 0 ? Number.NaN : x % y));
    case '==':
    case '===':
    case 'is':
      return a === b;
    case '!=':
    case '!==':
    case 'is not':
      return a !== b;
    case '<':
    case '>':
    case '<=':
    case '>=':
      return compare(op, a, b);
    case '&&':
    case 'and':
      return truthy(a) ? b : a;
    case '||':
    case 'or':
      return truthy(a) ? a : b;
    case 'in':
      return typeof b === 'string' && typeof a === 'string' ? b.includes(a) : undefined;
    case 'not in':
      return typeof b === 'string' && typeof a === 'string' ? !b.includes(a) : undefined;
    default:
      return undefined;
  }
}

function arithmetic(a: Const, b: Const, f: (x: number, y: number) => number): Const | undefined {
  const x = num(a);
  const y = num(b);
  if (x === undefined || y === undefined) return undefined;
  const r = f(x, y);
  return Number.isFinite(r) ? r : undefined;
}

function compare(op: string, a: Const, b: Const): boolean | undefined {
  const bothStrings = typeof a === 'string' && typeof b === 'string';
  const x = bothStrings ? a : num(a);
  const y = bothStrings ? b : num(b);
  if (x === undefined || y === undefined) return undefined;
  if (op === '<') return x < y;
  if (op === '>') return x > y;
  if (op === '<=') return x <= y;
  return x >= y;
}

/** Folds the string methods whose result a constant receiver and constant arguments decide. */
export function foldMethod(method: string, receiver: Const, args: Const[]): Const | undefined {
  if (typeof receiver !== 'string') return undefined;
  const [a, b] = args;
  switch (method) {
    case 'charAt':
      return typeof a === 'number' && a >= 0 && a < receiver.length ? receiver.charAt(a) : undefined;
    case 'substring':
      if (typeof a !== 'number') return undefined;
      return typeof b === 'number' ? receiver.substring(a, b) : receiver.substring(a);
    case 'toUpperCase':
    case 'upper':
      return receiver.toUpperCase();
    case 'toLowerCase':
    case 'lower':
      return receiver.toLowerCase();
    case 'trim':
    case 'strip':
      return receiver.trim();
    case 'length':
      return receiver.length;
    // The characters or bytes of a literal are as fixed as the literal (`"s3cret".toCharArray()`).
    case 'toCharArray':
    case 'getBytes':
    case 'encode':
      return receiver;
    case 'concat':
      return typeof a === 'string' ? receiver + a : undefined;
    case 'equals':
      return a === receiver;
    case 'equalsIgnoreCase':
      return typeof a === 'string' ? a.toLowerCase() === receiver.toLowerCase() : undefined;
    case 'contains':
      return typeof a === 'string' ? receiver.includes(a) : undefined;
    case 'startsWith':
    case 'startswith':
      return typeof a === 'string' ? receiver.startsWith(a) : undefined;
    case 'endsWith':
    case 'endswith':
      return typeof a === 'string' ? receiver.endsWith(a) : undefined;
    case 'isEmpty':
      return receiver.length === 0;
    case 'indexOf':
    case 'find':
      return typeof a === 'string' ? receiver.indexOf(a) : undefined;
    default:
      return undefined;
  }
}

/** `s[i]` and `s[a:b]` of a constant string (Python indexing and slicing, negative indexes included). */
export function foldIndex(receiver: Const, index: Const): Const | undefined {
  if (typeof receiver !== 'string' || typeof index !== 'number') return undefined;
  const i = index < 0 ? receiver.length + index : index;
  return i >= 0 && i < receiver.length ? receiver.charAt(i) : undefined;
}

export function foldSlice(
  receiver: Const,
  start: Const | undefined,
  end: Const | undefined,
): Const | undefined {
  if (typeof receiver !== 'string') return undefined;
  const at = (v: Const | undefined, d: number) =>
    v === undefined || v === null ? d : typeof v === 'number' ? (v < 0 ? receiver.length + v : v) : undefined;
  const s = at(start, 0);
  const e = at(end, receiver.length);
  return s === undefined || e === undefined ? undefined : receiver.slice(s, e);
}

/** The value of a literal's text: numbers with Java's suffixes and underscores, characters without quotes. */
export function parseNumber(text: string): number | undefined {
  const t = text.replace(/_/g, '').replace(/[lLfFdD]$/, '');
  const n = /^0[xX]/.test(t) ? Number.parseInt(t, 16) : Number(t);
  return Number.isFinite(n) ? n : undefined;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  '\\': '\\',
  "'": "'",
  '"': '"',
};

export function unescapeLiteral(text: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c);
}
