import { ServiceError } from '../../errors';
import { MAX_STRING_LENGTH, SchemaBudget, SchemaBudgetExceeded } from './simulator-json-budget';
import { PatternTooLong } from './simulator-json-pattern';
import { stringFor } from './simulator-json-strings';
import { keywordsOf, pick, randomFrom, sourceOf } from './simulator-text';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What the generated values are made of: the prompt's words and numbers, and the choice's random sequence. */
export interface ValueSource {
  words: readonly string[];
  numbers: readonly number[];
  random: () => number;
}

type Schema = Record<string, unknown>;

// Optional properties are filled down to this depth, and arrays get more than their minimum: below it only what
// the schema requires is generated, so that recursive schemas end.
const OPTIONAL_DEPTH = 3;
// A recursive schema that requires itself has no finite instance; the walk gives up here.
const MAX_DEPTH = 16;
// The width given to a number bounded on one side only, or not at all.
const OPEN_RANGE = 100;
// The most values one document may hold: the schema is the client's, and `minItems: 1e9` or arrays of arrays
// each with `minItems: 100` would otherwise hold the event loop for as long as they liked.
export const MAX_VALUES = 10_000;
// OpenAI's structured outputs take at most 5,000 properties in a schema; an object of more is refused before its
// properties are read one by one (V8 takes milliseconds per ten thousand keys of a parsed object).
const MAX_PROPERTIES = 5_000;

/** A schema whose smallest instance is larger than the simulator makes: the client's 400. */
function tooLarge(param: string, what: string): ServiceError {
  return new ServiceError(
    'invalid_request',
    `The schema at '${param}' asks for ${what}; the simulator makes documents of at most ${MAX_VALUES} values and strings of at most ${MAX_STRING_LENGTH} characters.`,
    { param, code: 'schema_too_large' },
  );
}

/** A schema the simulator cannot answer within its budget (simulator-json-budget.ts): the client's 400. */
function tooComplex(param: string, what: string): ServiceError {
  return new ServiceError(
    'invalid_request',
    `The schema at '${param}' is too complex for the simulator: ${what}. Simplify the schema, or ask for fewer choices or tool calls.`,
    { param, code: 'schema_too_complex' },
  );
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOf(schema: Schema, key: string): number | undefined {
  const value = schema[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `allOf` branches merged into one schema: their properties and required lists joined, other keywords overlaid. */
function mergeAll(schema: Schema, branches: Schema[], budget: SchemaBudget): Schema {
  const { allOf: _, ...rest } = schema;
  let merged: Schema = rest;
  for (const branch of branches) {
    // Each branch copies what was merged so far: spent before it is copied.
    budget.spend(1 + 4 * (keyCount(merged.properties) + keyCount(branch.properties)) + keyCount(branch));
    const properties = { ...(isSchema(merged.properties) ? merged.properties : {}) };
    Object.assign(properties, isSchema(branch.properties) ? branch.properties : {});
    const required = [merged.required, branch.required].flatMap((r) => (Array.isArray(r) ? r : []));
    merged = { ...merged, ...branch, properties, required: [...new Set(required)] };
  }
  return merged;
}

function keyCount(value: unknown): number {
  return isSchema(value) ? Object.keys(value).length : 0;
}

/**
 * Spends what writing the client's own value (a `const`, an `enum` member) into the document costs: a step a node
 * and its strings' characters, walked without recursion and stopped by the budget, whatever its size or depth.
 */
function spendOnValue(value: unknown, budget: SchemaBudget): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    budget.spend(1);
    if (typeof item === 'string') budget.write(item.length);
    else if (Array.isArray(item)) for (const child of item) stack.push(child);
    else if (typeof item === 'object' && item !== null)
      for (const [key, child] of Object.entries(item)) {
        budget.write(key.length);
        stack.push(child);
      }
    else budget.write(8);
  }
}

/** The value's type: the schema's own, the first non-null of a list, or what its keywords imply. */
function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') ?? type[0];
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  if ('minLength' in schema || 'maxLength' in schema || 'pattern' in schema || 'format' in schema)
    return 'string';
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return 'number';
  return undefined;
}

/**
 * Builds a JSON value valid against a JSON Schema (the subset tools and structured outputs use: types, enum,
 * const, properties and required, items and prefixItems, anyOf/oneOf/allOf, local $ref, string formats and
 * lengths and patterns, numeric bounds), with strings and numbers taken from the prompt.
 */
class ValueMaker {
  private values = 0;

  constructor(
    private readonly root: unknown,
    private readonly source: ValueSource,
    /** The request field the schema came from, for the 400 of a schema too large to fill. */
    private readonly param: string,
    private readonly budget: SchemaBudget,
  ) {}

  value(node: unknown, depth: number): JsonValue {
    if (node === false || depth > MAX_DEPTH) return null;
    this.values += 1;
    if (this.values > MAX_VALUES) throw tooLarge(this.param, `more than ${MAX_VALUES} values`);
    this.budget.spend(2);
    if (!isSchema(node)) return this.word();
    const schema = this.resolved(node);
    if ('const' in schema) return this.clientValue(schema.const);
    if (Array.isArray(schema.enum) && schema.enum.length > 0)
      return this.clientValue(pick(schema.enum, this.source.random));
    if (Array.isArray(schema.allOf)) {
      this.budget.spend(Math.ceil(schema.allOf.length / 8));
      return this.value(mergeAll(schema, schema.allOf.filter(isSchema), this.budget), depth + 1);
    }
    const branches = [schema.anyOf, schema.oneOf].find(Array.isArray)?.filter(isSchema);
    if (branches && branches.length > 0) {
      // Any branch but null: a nullable field's `anyOf: [X, {type: 'null'}]` gets an X, since null says little
      // about a client's handling of the field.
      this.budget.spend(Math.ceil(branches.length / 8) + keyCount(schema));
      const values = branches.filter((b) => b.type !== 'null');
      const branch = values.length > 0 ? pick(values, this.source.random) : branches[0];
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return this.value({ ...rest, ...branch }, depth + 1);
    }
    switch (typeOf(schema)) {
      case 'object':
        return this.object(schema, depth);
      case 'array':
        return this.array(schema, depth);
      case 'integer':
        return this.number(schema, true);
      case 'number':
        return this.number(schema, false);
      case 'boolean':
        return this.source.random() < 0.5;
      case 'null':
        return null;
      default:
        return this.string(schema);
    }
  }

  /** A local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`) replaced by its target, the sibling keywords kept. */
  private resolved(schema: Schema, hops = 0): Schema {
    if (typeof schema.$ref !== 'string') return schema;
    this.budget.spend(1 + keyCount(schema) + Math.ceil(schema.$ref.length / 16));
    const { $ref, ...rest } = schema;
    if (typeof $ref !== 'string' || !$ref.startsWith('#')) return schema;
    // A reference to a reference to itself resolves to nothing.
    if (hops > MAX_DEPTH) return rest;
    let target: unknown = this.root;
    for (const part of $ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
      target = isSchema(target) ? target[key] : undefined;
    }
    return isSchema(target) ? { ...this.resolved(target, hops + 1), ...rest } : rest;
  }

  private word(): string {
    return stringFor({}, this.source, this.budget);
  }

  /** The client's own value, written into the document as it came. */
  private clientValue(value: unknown): JsonValue {
    spendOnValue(value, this.budget);
    return value as JsonValue;
  }

  private string(schema: Schema): string {
    const least = numberOf(schema, 'minLength') ?? 0;
    if (least > MAX_STRING_LENGTH) throw tooLarge(this.param, `a string of ${least} characters`);
    try {
      return stringFor(schema, this.source, this.budget);
    } catch (err) {
      if (!(err instanceof PatternTooLong)) throw err;
      throw tooLarge(
        this.param,
        `strings longer than ${MAX_STRING_LENGTH} characters (every match of its pattern)`,
      );
    }
  }

  private object(schema: Schema, depth: number): { [key: string]: JsonValue } {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const names = Object.keys(properties);
    const listed = Array.isArray(schema.required) ? schema.required : [];
    if (names.length > MAX_PROPERTIES || listed.length > MAX_PROPERTIES)
      throw tooLarge(
        this.param,
        `an object of ${Math.max(names.length, listed.length)} properties (OpenAI's limit is ${MAX_PROPERTIES})`,
      );
    // The lists are the client's: spent before they are read.
    this.budget.spend(Math.ceil((listed.length + names.length) / 8));
    const required = listed.filter((r): r is string => typeof r === 'string');
    const requiredSet = new Set(required);
    const optional = depth < OPTIONAL_DEPTH ? names.filter((k) => !requiredSet.has(k)) : [];
    const extra = isSchema(schema.additionalProperties) ? schema.additionalProperties : true;
    const room = Math.max(required.length, numberOf(schema, 'maxProperties') ?? Number.POSITIVE_INFINITY);
    const out: { [key: string]: JsonValue } = {};
    let count = 0;
    for (const name of [...requiredSet, ...optional].slice(0, room)) {
      this.budget.write(name.length);
      out[name] = this.value(Object.hasOwn(properties, name) ? properties[name] : extra, depth + 1);
      count += 1;
    }
    const least = numberOf(schema, 'minProperties') ?? 0;
    if (least > MAX_VALUES) throw tooLarge(this.param, `${least} properties`);
    for (let i = 0; count < least && schema.additionalProperties !== false && i < least; i++) {
      const name = `${this.word()}_${i}`;
      if (!Object.hasOwn(out, name)) count += 1;
      out[name] = this.value(extra, depth + 1);
    }
    return out;
  }

  private array(schema: Schema, depth: number): JsonValue[] {
    const prefix = [schema.prefixItems, schema.items].find(Array.isArray) ?? [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    const least = numberOf(schema, 'minItems') ?? 0;
    if (least > MAX_VALUES) throw tooLarge(this.param, `${least} items`);
    const most = numberOf(schema, 'maxItems') ?? Number.POSITIVE_INFINITY;
    let count = Math.min(Math.max(least, depth < OPTIONAL_DEPTH ? 1 : 0), most);
    if (rest === false) count = Math.min(count, prefix.length);
    const out: JsonValue[] = [];
    const seen = new Set<string>();
    // Unique items are drawn again on a clash; a few draws suffice for any schema with enough distinct values.
    for (let attempt = 0; out.length < count && attempt < count * 8; attempt++) {
      const item = this.value(out.length < prefix.length ? prefix[out.length] : (rest ?? true), depth + 1);
      const key = JSON.stringify(item);
      this.budget.spend(Math.ceil(key.length / 64));
      if (schema.uniqueItems === true && seen.has(key)) continue;
      seen.add(key);
      out.push(item);
    }
    return out;
  }

  /** A number within the bounds (inclusive, exclusive in both drafts' spellings) and on `multipleOf`. */
  private number(schema: Schema, integer: boolean): number {
    const exclusiveMin = numberOf(schema, 'exclusiveMinimum');
    const exclusiveMax = numberOf(schema, 'exclusiveMaximum');
    let lo = numberOf(schema, 'minimum') ?? Number.NEGATIVE_INFINITY;
    let hi = numberOf(schema, 'maximum') ?? Number.POSITIVE_INFINITY;
    const loOpen = schema.exclusiveMinimum === true || (exclusiveMin !== undefined && exclusiveMin >= lo);
    const hiOpen = schema.exclusiveMaximum === true || (exclusiveMax !== undefined && exclusiveMax <= hi);
    if (exclusiveMin !== undefined) lo = Math.max(lo, exclusiveMin);
    if (exclusiveMax !== undefined) hi = Math.min(hi, exclusiveMax);
    const step = numberOf(schema, 'multipleOf') ?? (integer ? 1 : undefined);
    const fits = (n: number) =>
      (loOpen ? n > lo : n >= lo) &&
      (hiOpen ? n < hi : n <= hi) &&
      (!integer || Number.isInteger(n)) &&
      (step === undefined || Number.isInteger(n / step));
    // A number is some ten steps' work, and the prompt's numbers (the client's, any count) are each looked at.
    this.budget.spend(8 + Math.ceil(this.source.numbers.length / 16));
    const fromPrompt = this.source.numbers.filter(fits);
    if (fromPrompt.length > 0) return pick(fromPrompt, this.source.random);
    if (lo === Number.NEGATIVE_INFINITY) lo = hi === Number.POSITIVE_INFINITY ? 1 : hi - OPEN_RANGE;
    if (hi === Number.POSITIVE_INFINITY) hi = lo + OPEN_RANGE;
    const random = this.source.random();
    if (step !== undefined) {
      const first = loOpen ? Math.floor(lo / step) + 1 : Math.ceil(lo / step);
      const last = hiOpen ? Math.ceil(hi / step) - 1 : Math.floor(hi / step);
      const span = Math.max(last, first) - first + 1;
      const start = Math.floor(random * span);
      // 7 * 0.01 is 0.07000000000000001, rounded 0.07; but 1.13 / 0.01 is 112.99999999999999, which validators
      // refuse as a multiple: the next multiples are tried until one divides exactly.
      const digits = Number.isInteger(step) ? 0 : Math.min(15, Math.max(0, Math.ceil(-Math.log10(step))) + 4);
      const multiple = (j: number) => Number(((first + ((start + j) % span)) * step).toFixed(digits));
      for (let j = 0; j < Math.min(span, 1_000); j++) if (fits(multiple(j))) return multiple(j);
      return multiple(0);
    }
    const value = Math.round((lo + random * (hi - lo)) * 100) / 100;
    return fits(value) ? value : (lo + hi) / 2;
  }
}

/**
 * A value valid against `schema`, derived from the source; the same source always gives the same value. A schema
 * whose smallest instance exceeds MAX_VALUES values, or whose answer would exceed the budget (shared by all the
 * documents of one answer), is a 400 naming `param`.
 */
export function jsonValueFor(
  schema: unknown,
  source: ValueSource,
  param = 'schema',
  budget = new SchemaBudget(),
): JsonValue {
  try {
    return new ValueMaker(schema, source, param, budget).value(schema, 0);
  } catch (err) {
    if (err instanceof SchemaBudgetExceeded) throw tooComplex(param, `its answer would exceed ${err.what}`);
    throw err;
  }
}

/** Names in a text: capitalised words that do not open a sentence ("Paris" in "Weather in Paris?"). */
function namesIn(text: string): string[] {
  return text
    .split(/[.!?\n]+/)
    .flatMap((sentence) =>
      (sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [])
        .slice(1)
        .filter((w) => /^\p{Lu}/u.test(w) && w.length > 1 && w.length <= 40),
    );
}

/**
 * The values' source for a text (the user's request): its names when it has any (what a model would put in a
 * `city` or `query` field), otherwise its keywords, and its numbers; the random sequence is seeded by `seed`.
 */
export function valueSourceFrom(whole: string, seed: string): ValueSource {
  const text = sourceOf(whole);
  const names = [...new Set(namesIn(text))];
  const numbers = (text.match(/(?<![\p{L}\p{N}.])-?\d+(?:\.\d+)?/gu) ?? [])
    .map(Number)
    .filter(Number.isFinite);
  return {
    words: names.length > 0 ? names : keywordsOf(text),
    numbers: [...new Set(numbers)],
    random: randomFrom(`${seed}\u0000${text}`),
  };
}
