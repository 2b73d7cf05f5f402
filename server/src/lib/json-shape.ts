/**
 * What a parsed JSON body may hold: how many values (every object, array, string, number, boolean and null,
 * the body itself included) and how deeply nested. Everything a request does after parsing (validation,
 * counting, copying it to an upstream, answering it) costs time in proportion to its values, and recursion in
 * proportion to its depth: 500,000 chat messages of "hi" (15 MB) held the event loop for 1.4 s, and a body
 * nested 100,000 levels deep cannot be copied or serialised at all.
 */
export interface JsonBounds {
  maxValues: number;
  maxDepth: number;
}

/** Where a body went past its bounds: which bound, and how far it had got when the walk stopped. */
export type JsonShapeViolation = { bound: 'values'; atLeast: number } | { bound: 'depth'; atLeast: number };

/**
 * Walks a parsed value without recursion, stopping at the first bound it passes. The cost is at most the bound's
 * worth of values, whatever the body holds.
 */
export function checkJsonShape(value: unknown, bounds: JsonBounds): JsonShapeViolation | undefined {
  // Containers still to read, each with its depth (the body itself is at depth 1).
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  let values = 0;
  while (stack.length > 0) {
    const item = stack.pop();
    const depth = depths.pop() as number;
    values += 1;
    if (values > bounds.maxValues) return { bound: 'values', atLeast: values };
    if (typeof item !== 'object' || item === null) continue;
    if (depth > bounds.maxDepth) return { bound: 'depth', atLeast: depth };
    // Values waiting on the stack count toward the bound too: an array of a million numbers stops at once.
    if (Array.isArray(item)) {
      if (values + stack.length + item.length > bounds.maxValues) {
        return { bound: 'values', atLeast: values + stack.length + item.length };
      }
      for (let i = 0; i < item.length; i++) {
        stack.push(item[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in item) {
      if (values + stack.length >= bounds.maxValues) {
        return { bound: 'values', atLeast: values + stack.length + 1 };
      }
      stack.push((item as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The bounds read from JSON text before it is parsed: a body past them is refused without building what it
 * holds (JSON.parse of 15 MB of 366,000 small objects took over a second on a 2-vCPU machine). Outside strings,
 * every comma separates two values and every `{` or `[` opens one, so their sum is at most the number of values:
 * a text past the bound by it is past it parsed. Depth is exact. Text that is not JSON is left to JSON.parse.
 */
export function checkJsonTextShape(text: string, bounds: JsonBounds): JsonShapeViolation | undefined {
  let atLeast = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === COMMA) atLeast += 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      atLeast += 1;
      depth += 1;
      if (depth > bounds.maxDepth) return { bound: 'depth', atLeast: depth };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth -= 1;
    if (atLeast > bounds.maxValues) return { bound: 'values', atLeast };
  }
  return undefined;
}
