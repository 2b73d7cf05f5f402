import { MAX_STRING_LENGTH, type SchemaBudget } from './simulator-json-budget';
import { stringForPattern } from './simulator-json-pattern';
import { pick } from './simulator-text';

/** What strings are made of (see `ValueSource` in simulator-json.ts). */
interface WordSource {
  words: readonly string[];
  random: () => number;
}

// For a prompt with no usable word.
const FALLBACK_WORDS = ['example', 'sample', 'value'];

function lengthOf(text: string): number {
  // JSON Schema counts characters (code points), not UTF-16 units.
  return Array.from(text).length;
}

/** A word fit for an address: ASCII letters and digits only. */
function plainWord(word: string): string {
  const plain = word
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase();
  return plain || 'example';
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

function uuidFrom(random: () => number): string {
  const hex = (count: number) =>
    Array.from({ length: count }, () => Math.floor(random() * 16).toString(16)).join('');
  const variant = (8 + Math.floor(random() * 4)).toString(16);
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
}

/** A string in one of the formats OpenAI's structured outputs support (and a few more), or undefined. */
function formatted(format: string, word: string, random: () => number): string | undefined {
  const below = (max: number) => Math.floor(random() * max);
  const date = `2025-${twoDigits(1 + below(12))}-${twoDigits(1 + below(28))}`;
  const time = `${twoDigits(below(24))}:${twoDigits(below(60))}:${twoDigits(below(60))}`;
  const plain = plainWord(word);
  switch (format) {
    case 'date':
      return date;
    case 'time':
      return `${time}Z`;
    case 'date-time':
      return `${date}T${time}Z`;
    case 'duration':
      return `PT${1 + below(23)}H`;
    case 'email':
    case 'idn-email':
      return `${plain}@example.com`;
    case 'hostname':
    case 'idn-hostname':
      return `${plain}.example.com`;
    case 'uri':
    case 'iri':
    case 'url':
    case 'uri-reference':
    case 'iri-reference':
      return `https://example.com/${plain}`;
    case 'ipv4':
      return `192.0.2.${1 + below(254)}`;
    case 'ipv6':
      return `2001:db8::${(1 + below(0xfffe)).toString(16)}`;
    case 'uuid':
      return uuidFrom(random);
    default:
      return undefined;
  }
}

/**
 * A string valid against the schema's `pattern` (simulator-json-pattern.ts) or `format`, `minLength` (up to
 * MAX_STRING_LENGTH) and `maxLength`, made of the prompt's words where the pattern leaves the choice open. A
 * pattern no string could be drawn for is left out: the words still fit the lengths.
 */
export function stringFor(schema: Record<string, unknown>, source: WordSource, budget: SchemaBudget): string {
  const { random } = source;
  const least = Math.min(typeof schema.minLength === 'number' ? schema.minLength : 0, MAX_STRING_LENGTH);
  const most = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (typeof schema.pattern === 'string') {
    const matching = stringForPattern(schema.pattern, least, most, random, budget);
    if (matching !== undefined) {
      budget.write(matching.length);
      return matching;
    }
  }
  const words = source.words.length > 0 ? source.words : FALLBACK_WORDS;
  const word = pick(words, random);
  let text = (typeof schema.format === 'string' && formatted(schema.format, word, random)) || word;
  let length = lengthOf(text);
  while (length < least) {
    budget.spend(1);
    const next = ` ${pick(words, random)}`;
    text += next;
    length += lengthOf(next);
  }
  if (length > most) text = Array.from(text).slice(0, Math.max(0, most)).join('');
  budget.write(text.length);
  return text;
}
