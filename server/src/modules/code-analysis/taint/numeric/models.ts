import type { CodeLanguage } from '@tessera/shared';
import type { NumericKind } from '../types';

/**
 * What a language's numbers look like to the arithmetic checks: the calls that parse text into a number, the
 * random draws, the sinks that take a size or count, and whether fixed-width arithmetic wraps and indexes fault.
 * Languages whose integers grow without bound (Python, Ruby, JavaScript's doubles, PHP's floats) have none.
 */
export interface NumericModel {
  /** Calls returning the number their text argument spells, and its type. */
  parsers: { callee: RegExp; type: string }[];
  /** Random draws: their type; `bound`: the argument that is an exclusive upper bound (`nextInt(n)`); `unit`: [0, 1). */
  randoms: { callee: RegExp; type: string; bound?: number; unit?: boolean }[];
  /** Calls whose argument is a count, a delay or a capacity, and what an unbounded one is. */
  sizeSinks: { callee: RegExp; arg: number; kind: NumericKind }[];
  /** `Math.abs(x)`: a comparison of it bounds `x` on both sides. */
  abs: RegExp;
  /** The integer type a number of undeclared type has (the result of `atoi`, Go's `int`). */
  defaultType: string;
}

const JAVA_SIZES: NumericModel['sizeSinks'] = [
  { callee: /^Thread\.sleep$|^(TimeUnit\.\w+)\.sleep$/, arg: 0, kind: 'resource-exhaustion' },
  {
    callee:
      /^new(java\.util\.)?(ArrayList|HashMap|HashSet|LinkedHashMap|LinkedHashSet|Vector|Hashtable|ArrayDeque|StringBuilder|StringBuffer|ConcurrentHashMap|PriorityQueue)(<.*>)?$|^ByteBuffer\.allocate(Direct)?$/,
    arg: 0,
    kind: 'uncontrolled-allocation',
  },
];

const java: NumericModel = {
  parsers: [
    { callee: /^(Integer\.(parseInt|valueOf|decode)|Integer\.parseUnsignedInt)$/, type: 'int' },
    { callee: /^Long\.(parseLong|valueOf|decode)$/, type: 'long' },
    { callee: /^Short\.(parseShort|valueOf)$/, type: 'short' },
    { callee: /^Byte\.(parseByte|valueOf)$/, type: 'byte' },
    { callee: /^Float\.(parseFloat|valueOf)$/, type: 'float' },
    { callee: /^Double\.(parseDouble|valueOf)$/, type: 'double' },
  ],
  randoms: [
    { callee: /(Random(\(\))?\)?|current\(\))\.nextInt$/, type: 'int', bound: 0 },
    { callee: /(Random(\(\))?\)?|current\(\))\.nextLong$/, type: 'long' },
    { callee: /(Random(\(\))?\)?|current\(\))\.next(Float|Double)$/, type: 'double', unit: true },
    { callee: /^Math\.random$/, type: 'double', unit: true },
  ],
  sizeSinks: JAVA_SIZES,
  abs: /^(Math|StrictMath)\.abs$/,
  defaultType: 'int',
};

const kotlin: NumericModel = {
  parsers: [
    { callee: /\.toInt(OrNull)?$|^Integer\.parseInt$/, type: 'int' },
    { callee: /\.toLong(OrNull)?$|^Long\.parseLong$/, type: 'long' },
    { callee: /\.toShort(OrNull)?$/, type: 'short' },
    { callee: /\.toByte(OrNull)?$/, type: 'byte' },
    { callee: /\.toDouble(OrNull)?$|\.toFloat(OrNull)?$/, type: 'double' },
  ],
  randoms: [
    { callee: /Random(\(\))?\)?\.nextInt$|^Random\.nextInt$/, type: 'int', bound: 0 },
    { callee: /Random(\(\))?\)?\.nextLong$/, type: 'long' },
  ],
  sizeSinks: [
    { callee: /^Thread\.sleep$|^delay$/, arg: 0, kind: 'resource-exhaustion' },
    {
      callee: /^(ArrayList|HashMap|HashSet|ByteArray|IntArray|arrayOfNulls|StringBuilder)$/,
      arg: 0,
      kind: 'uncontrolled-allocation',
    },
  ],
  abs: /^(Math\.abs|abs|kotlin\.math\.abs)$/,
  defaultType: 'int',
};

const c: NumericModel = {
  parsers: [
    { callee: /^(atoi|std::stoi)$/, type: 'int' },
    { callee: /^(atol|atoll|strtol|strtoll|std::stol|std::stoll)$/, type: 'long' },
    { callee: /^(strtoul|strtoull|std::stoul)$/, type: 'uint64' },
    { callee: /^(atof|strtod|strtof|std::stod|std::stof)$/, type: 'double' },
  ],
  randoms: [{ callee: /^(rand|random)$/, type: 'int' }],
  sizeSinks: [
    { callee: /^(sleep|usleep|Sleep)$/, arg: 0, kind: 'resource-exhaustion' },
    { callee: /^(malloc|alloca|valloc)$/, arg: 0, kind: 'uncontrolled-allocation' },
    { callee: /^calloc$/, arg: 0, kind: 'uncontrolled-allocation' },
  ],
  abs: /^(abs|labs|llabs|fabs|std::abs)$/,
  defaultType: 'int',
};

const csharp: NumericModel = {
  parsers: [
    { callee: /^(int|Int32)\.Parse$|^Convert\.ToInt32$/, type: 'int' },
    { callee: /^(long|Int64)\.Parse$|^Convert\.ToInt64$/, type: 'long' },
    { callee: /^(short|Int16)\.Parse$|^Convert\.ToInt16$/, type: 'short' },
    { callee: /^(byte|Byte)\.Parse$|^Convert\.ToByte$/, type: 'uint8' },
    { callee: /^(double|Double|float|Single)\.Parse$|^Convert\.ToDouble$/, type: 'double' },
  ],
  randoms: [{ callee: /Random(\(\))?\)?\.Next$/, type: 'int', bound: 0 }],
  sizeSinks: [
    { callee: /^Thread\.Sleep$|^Task\.Delay$/, arg: 0, kind: 'resource-exhaustion' },
    {
      callee: /^new(List|Dictionary|HashSet|StringBuilder|Queue|Stack)(<.*>)?$/,
      arg: 0,
      kind: 'uncontrolled-allocation',
    },
  ],
  abs: /^Math\.Abs$/,
  defaultType: 'int',
};

const go: NumericModel = {
  parsers: [
    { callee: /^strconv\.Atoi$/, type: 'int64' },
    { callee: /^strconv\.Parse(Int|Uint)$/, type: 'int64' },
    { callee: /^strconv\.ParseFloat$/, type: 'float64' },
  ],
  randoms: [
    { callee: /^rand\.(Intn|Int63n|Int31n)$/, type: 'int64', bound: 0 },
    { callee: /^rand\.(Int|Int63)$/, type: 'int64' },
    { callee: /^rand\.Int31$/, type: 'int32' },
  ],
  sizeSinks: [
    { callee: /^time\.Sleep$/, arg: 0, kind: 'resource-exhaustion' },
    { callee: /^make$/, arg: 1, kind: 'uncontrolled-allocation' },
  ],
  abs: /^math\.Abs$/,
  defaultType: 'int64',
};

/** Fixed-width languages; the others have no numeric model and no arithmetic checks. */
export const NUMERIC_MODELS: Partial<Record<CodeLanguage, NumericModel>> = {
  java,
  kotlin,
  scala: { ...java, parsers: [...java.parsers, ...kotlin.parsers] },
  c,
  cpp: c,
  csharp,
  go,
};

/** The named extremes of integer types, as each language spells them: the value and its type. */
const EXTREMES: [RegExp, (m: RegExpExecArray) => [string, 'MAX' | 'MIN'] | undefined][] = [
  // Java, Kotlin, Scala: Integer.MAX_VALUE, Long.MIN_VALUE, Int.MAX_VALUE.
  [
    /^(?:java\.lang\.)?(Integer|Int|Long|Short|Byte)\.(MAX|MIN)_VALUE$/,
    (m) => [m[1] ?? '', m[2] as 'MAX' | 'MIN'],
  ],
  // C#: int.MaxValue, Int64.MinValue.
  [
    /^(?:System\.)?(int|long|short|sbyte|byte|uint|ulong|ushort|Int32|Int64|Int16|SByte|Byte|UInt32|UInt64|UInt16)\.(Max|Min)Value$/,
    (m) => [m[1] ?? '', (m[2] ?? '').toUpperCase() as 'MAX' | 'MIN'],
  ],
  // Go: math.MaxInt32, math.MinInt64.
  [
    /^math\.(Max|Min)(Int8|Int16|Int32|Int64|Uint8|Uint16|Uint32|Int)$/,
    (m) => [
      (m[2] ?? '').toLowerCase().replace(/^int$/, 'int64'),
      (m[1] ?? '').toUpperCase() as 'MAX' | 'MIN',
    ],
  ],
  // Rust: i32::MAX, u8::MIN.
  [
    /^(?:(?:std|core)::)?(i8|i16|i32|i64|u8|u16|u32|u64|isize|usize)::(MAX|MIN)$/,
    (m) => [m[1] ?? '', m[2] as 'MAX' | 'MIN'],
  ],
  // C and C++: INT_MAX, LLONG_MIN, INT32_MAX, SIZE_MAX.
  [
    /^(INT|LONG|LLONG|SHRT|SCHAR|UINT|ULONG|ULLONG|USHRT|UCHAR|SIZE|INT8|INT16|INT32|INT64|UINT8|UINT16|UINT32|UINT64)_(MAX|MIN)$/,
    (m) => [C_TYPES[m[1] ?? ''] ?? '', m[2] as 'MAX' | 'MIN'],
  ],
];

const C_TYPES: Record<string, string> = {
  INT: 'int',
  LONG: 'int64',
  LLONG: 'int64',
  SHRT: 'short',
  SCHAR: 'int8',
  UINT: 'uint32',
  ULONG: 'uint64',
  ULLONG: 'uint64',
  USHRT: 'uint16',
  UCHAR: 'uint8',
  SIZE: 'size_t',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
};

/** `Integer.MAX_VALUE` → the type `Integer` and which end; undefined for any other text. */
export function namedExtreme(text: string): { type: string; end: 'MAX' | 'MIN' } | undefined {
  // Every unresolved name is asked: most are ruled out by one test.
  if (!/MAX|MIN|Max|Min/.test(text)) return undefined;
  for (const [re, read] of EXTREMES) {
    const m = re.exec(text);
    const got = m ? read(m) : undefined;
    if (got?.[0]) return { type: got[0], end: got[1] };
  }
  return undefined;
}
