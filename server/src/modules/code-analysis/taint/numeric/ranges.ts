/**
 * The interval domain of the arithmetic checks: what a number from input, a random generator or a type's extreme
 * may be, narrowed by the comparisons a branch has passed (`if (n < Integer.MAX_VALUE)`). Bounds are doubles: exact
 * to 2^53, so near a 64-bit extreme a comparison moves its bound inward by a visible step (see `below`).
 */
export interface Range {
  lo: number;
  hi: number;
  /** A `!= 0` (or `Math.abs(x) > c`) check: zero is excluded though it lies between the bounds. */
  nonzero?: boolean;
  /** A bound compared against a value of unknown size (`i < a.length`): bounded, by what is not known. */
  loChecked?: boolean;
  hiChecked?: boolean;
  /** A floating-point value (parsed with parseFloat, a float variable): it does not wrap, it loses precision. */
  float?: boolean;
  /** The type it was read or declared as (`int`, `long`), which decides where arithmetic on it wraps. */
  type?: string;
}

/** The range of each numeric type by the names languages give it. */
const INT8: [number, number] = [-128, 127];
const INT16: [number, number] = [-32768, 32767];
const INT32: [number, number] = [-2147483648, 2147483647];
// 2^63 and 2^64: the 64-bit extremes as doubles hold them (see `over`).
const INT64: [number, number] = [-(2 ** 63), 2 ** 63];
const UINT8: [number, number] = [0, 255];
const UINT16: [number, number] = [0, 65535];
const UINT32: [number, number] = [0, 4294967295];
const UINT64: [number, number] = [0, 2 ** 64];
const FLOAT32: [number, number] = [-3.4028234663852886e38, 3.4028234663852886e38];
const FLOAT64: [number, number] = [-Number.MAX_VALUE, Number.MAX_VALUE];

const TYPES: Record<string, [number, number]> = {
  byte: INT8,
  Byte: INT8,
  sbyte: INT8,
  int8: INT8,
  int8_t: INT8,
  i8: INT8,
  'signed char': INT8,
  short: INT16,
  Short: INT16,
  int16: INT16,
  int16_t: INT16,
  i16: INT16,
  char: UINT16,
  int: INT32,
  Int: INT32,
  Integer: INT32,
  Int32: INT32,
  int32: INT32,
  int32_t: INT32,
  i32: INT32,
  long: INT64,
  Long: INT64,
  Int64: INT64,
  int64: INT64,
  int64_t: INT64,
  i64: INT64,
  'long long': INT64,
  isize: INT64,
  uint8: UINT8,
  uint8_t: UINT8,
  u8: UINT8,
  UByte: UINT8,
  ushort: UINT16,
  uint16: UINT16,
  uint16_t: UINT16,
  u16: UINT16,
  uint: UINT32,
  uint32: UINT32,
  uint32_t: UINT32,
  u32: UINT32,
  'unsigned int': UINT32,
  unsigned: UINT32,
  ulong: UINT64,
  uint64: UINT64,
  uint64_t: UINT64,
  u64: UINT64,
  usize: UINT64,
  size_t: UINT64,
  float: FLOAT32,
  Float: FLOAT32,
  float32: FLOAT32,
  f32: FLOAT32,
  double: FLOAT64,
  Double: FLOAT64,
  float64: FLOAT64,
  f64: FLOAT64,
};

const FLOATS = /^(float|Float|double|Double|float32|float64|f32|f64)$/;

/** The range of a type by name (`Integer`, `int32_t`, `i64`), or undefined when it is not a number type. */
export function typeRange(type: string | undefined): [number, number] | undefined {
  return type === undefined ? undefined : TYPES[type.replace(/^(java\.lang\.|System\.)/, '')];
}

export const isFloatType = (type: string | undefined): boolean => type !== undefined && FLOATS.test(type);

/** Everything a value of `type` may hold. */
export function fullRange(type: string): Range | undefined {
  const r = typeRange(type);
  if (!r) return undefined;
  return { lo: r[0], hi: r[1], type, ...(isFloatType(type) && { float: true }) };
}

/** Doubles stop telling neighbouring integers apart past 2^53: a 64-bit extreme and one less read the same. */
const EXACT = 2 ** 53;

/** `v` lies beyond `max` (at it, for the 64-bit extremes that doubles cannot tell from one past them). */
export const over = (v: number, max: number): boolean => (Math.abs(max) >= EXACT ? v >= max : v > max);
export const under = (v: number, min: number): boolean => (Math.abs(min) >= EXACT ? v <= min : v < min);

/** The largest integer below `c`, visibly below it where doubles are too coarse to subtract one. */
export function below(c: number, float: boolean): number {
  if (float) return c;
  if (Math.abs(c) < EXACT) return Math.ceil(c) - 1;
  return c - Math.abs(c) * 2 ** -40;
}

export function above(c: number, float: boolean): number {
  if (float) return c;
  if (Math.abs(c) < EXACT) return Math.floor(c) + 1;
  return c + Math.abs(c) * 2 ** -40;
}

/** The smallest range holding both: where two paths meet. */
export function hull(a: Range, b: Range): Range {
  const out: Range = { lo: Math.min(a.lo, b.lo), hi: Math.max(a.hi, b.hi) };
  if (a.nonzero && b.nonzero) out.nonzero = true;
  if (a.loChecked && b.loChecked) out.loChecked = true;
  if (a.hiChecked && b.hiChecked) out.hiChecked = true;
  if (a.float || b.float) out.float = true;
  if (a.type === b.type && a.type !== undefined) out.type = a.type;
  return out;
}

export const constantRange = (v: number): Range => ({
  lo: v,
  hi: v,
  ...(!Number.isInteger(v) && { float: true }),
});

const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : a * b);

/** `a op b` over intervals, for `+`, `-`, `*`; what a checked side of either operand bounds stays checked. */
export function combine(op: string, a: Range, b: Range): Range | undefined {
  let lo: number;
  let hi: number;
  if (op === '+') {
    lo = a.lo + b.lo;
    hi = a.hi + b.hi;
  } else if (op === '-') {
    lo = a.lo - b.hi;
    hi = a.hi - b.lo;
  } else if (op === '*') {
    const p = [mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)];
    lo = Math.min(...p);
    hi = Math.max(...p);
  } else return undefined;
  const out: Range = { lo: Number.isNaN(lo) ? -Infinity : lo, hi: Number.isNaN(hi) ? Infinity : hi };
  const checked = (a.loChecked || a.hiChecked) && (b.loChecked || b.hiChecked || b.lo === b.hi);
  const checkedOther = (b.loChecked || b.hiChecked) && a.lo === a.hi;
  if (checked || checkedOther) {
    out.loChecked = true;
    out.hiChecked = true;
  }
  if (a.float || b.float) out.float = true;
  return out;
}

/** The range may hold zero: a divisor that can fail. */
export const mayBeZero = (r: Range): boolean => !r.nonzero && r.lo <= 0 && r.hi >= 0;

/**
 * No comparison bounded it from above (or it sits at a type's extreme): a size or count an attacker or chance picks.
 * 2^31 - 1 is where every integer type but the narrow ones ends up when nothing checked it.
 */
export const unboundedAbove = (r: Range): boolean => !r.hiChecked && r.hi >= 2147483647;
