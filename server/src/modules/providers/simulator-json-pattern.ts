import * as regjsparser from 'regjsparser';
import { MAX_STRING_LENGTH, type SchemaBudget, SchemaBudgetExceeded } from './simulator-json-budget';
import { Builder, FEATURES, type Node } from './simulator-pattern-builder';

// regjsparser is CommonJS, and Node.js's ESM loader finds none of its exports by name: `parse` is on the default.
const { parse } = (regjsparser as unknown as { default?: typeof regjsparser }).default ?? regjsparser;

/**
 * Strings for a JSON Schema `pattern`: the client's regular expression is parsed (regjsparser, the parser Babel's
 * regex transforms use) and a string is built from its tree, with the choice's random sequence, aiming at a length
 * within `minLength`..`maxLength`. The expression itself is run only to check a short candidate, and only when it
 * cannot backtrack for long (`checkable`): `(a+)+$` on the event loop would hold the server.
 */

// Longer patterns are not followed: building a string costs a scan of each character class, and the schema is
// the client's.
const MAX_PATTERN_LENGTH = 2_000;
// Parsing costs about a step per few characters of pattern, and a schema may ask for many strings of one pattern.
const PATTERN_CHARS_PER_STEP = 4;
// Without a minimum length, a string is its pattern's shortest plus up to this many characters.
const NATURAL_SLACK = 12;
const ATTEMPTS = 8;
// A candidate is checked with the client's expression only when the expression cannot backtrack for long and the
// candidate is short: a polynomial backtracker on 256 characters stays well under a millisecond.
const MAX_CHECKED_LENGTH = 256;

/** Whether a node's repetition can match more than once. */
function repeats(node: Node): boolean {
  return node.type === 'quantifier' && (node.max === undefined || node.max > 1);
}

/**
 * Whether running the expression on a short string cannot take long: no repetition holds another repetition or an
 * alternation (`(a+)+`, `(a|ab)*`), the shapes whose backtracking is exponential.
 */
export function checkable(pattern: string): boolean {
  const tree = parsed(pattern);
  return tree !== undefined && backtracksLittle(tree);
}

function backtracksLittle(tree: Node): boolean {
  const risky = (node: Node, inRepeat: boolean): boolean => {
    if (inRepeat && (repeats(node) || node.type === 'disjunction')) return true;
    const children = 'body' in node && Array.isArray(node.body) ? (node.body as Node[]) : [];
    return children.some((child) => risky(child, inRepeat || repeats(node)));
  };
  return !risky(tree, false);
}

function parsed(pattern: string): Node | undefined {
  for (const flags of ['u', '']) {
    try {
      return parse(pattern, flags, FEATURES);
    } catch {
      // Not valid with these flags: JSON Schema's patterns are ECMA-262's, with or without Unicode mode.
    }
  }
  return undefined;
}

function compiled(pattern: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // As above.
    }
  }
  return undefined;
}

/** A pattern made ready to build strings from: parsed, compiled, its lengths known. */
interface Plan {
  regex: RegExp;
  builder: Builder;
  check: boolean;
  range: [number, number];
}

// The plans of one answer's patterns: a schema often asks for many strings of one pattern (an array's items),
// and parsing, compiling and the builder's character pools would otherwise be paid for each.
const plansByAnswer = new WeakMap<SchemaBudget, Map<string, Plan | undefined>>();

function planFor(pattern: string, budget: SchemaBudget): Plan | undefined {
  let plans = plansByAnswer.get(budget);
  if (!plans) {
    plans = new Map();
    plansByAnswer.set(budget, plans);
  }
  budget.spend(1);
  if (plans.has(pattern)) return plans.get(pattern);
  let plan: Plan | undefined;
  if (pattern.length <= MAX_PATTERN_LENGTH) {
    budget.spend(Math.ceil(pattern.length / PATTERN_CHARS_PER_STEP));
    const regex = compiled(pattern);
    const tree = parsed(pattern);
    if (regex && tree) {
      const builder = new Builder(tree, regex.flags, budget);
      plan = { regex, builder, check: backtracksLittle(tree), range: builder.range(tree) };
    }
  }
  plans.set(pattern, plan);
  return plan;
}

/** A pattern whose shortest match is longer than the simulator makes strings: the client's 400 (simulator-json.ts). */
export class PatternTooLong extends Error {
  constructor(readonly shortest: number) {
    super(`the pattern's shortest match has ${shortest} characters`);
    this.name = 'PatternTooLong';
  }
}

/**
 * A string the schema's `pattern` matches, within `least`..`most` code points, drawn with `random`; or undefined
 * when the pattern is not a valid expression, is longer than MAX_PATTERN_LENGTH, or no attempt gave a string that
 * fits. Lookarounds are not planned for: a string they refuse fails the check (when the pattern is checkable) and
 * the caller falls back to words. An uncheckable pattern's candidate is returned unchecked. Throws PatternTooLong
 * when every match the schema allows is longer than MAX_STRING_LENGTH, and SchemaBudgetExceeded when the answer's
 * budget runs out while building.
 */
export function stringForPattern(
  pattern: string,
  least: number,
  most: number,
  random: () => number,
  budget: SchemaBudget,
): string | undefined {
  const plan = planFor(pattern, budget);
  if (!plan) return undefined;
  const { regex, builder, check } = plan;
  const [shortest, longest] = plan.range;
  const lo = Math.max(least, shortest);
  const hi = Math.min(most, longest);
  if (lo > hi) return undefined;
  // Decided before anything is built: `^x{2147483647}$` has no match the simulator could make.
  if (shortest > MAX_STRING_LENGTH) throw new PatternTooLong(shortest);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const target = Math.floor(lo + random() * (Math.min(hi, lo + NATURAL_SLACK) - lo + 1));
    let text: string;
    try {
      text = builder.build(target, random);
    } catch (err) {
      // Over the answer's budget: the client's 400. Otherwise a class the parser read in another mode than the
      // engine (its one-character expression does not compile): no string from this pattern.
      if (err instanceof SchemaBudgetExceeded) throw err;
      return undefined;
    }
    const length = Array.from(text).length;
    if (length < least || length > most) continue;
    if (check && text.length <= MAX_CHECKED_LENGTH && !regex.test(text)) continue;
    return text;
  }
  return undefined;
}
