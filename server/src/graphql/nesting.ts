import type { RequestHandler } from 'express';

/**
 * Deepest bracket nesting GraphQL's recursive parser is given. Around 1,500 levels overflow the stack (a
 * RangeError, which Apollo reports as an internal error); the depth limit refuses anything past 10 fields
 * anyway, so 128 levels of `{`, `[` and `(` together leave room for nested list and object arguments.
 */
export const MAX_NESTING = 128;

/** The deepest nesting of brackets in a GraphQL document, outside strings, block strings and comments. */
export function bracketDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i += 1;
    } else if (c === '"' && source.startsWith('"""', i)) {
      i += 3;
      while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
      i += 2;
    } else if (c === '"') {
      i += 1;
      while (i < source.length && source[i] !== '"' && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
    } else if (c === '{' || c === '[' || c === '(') {
      depth += 1;
      deepest = Math.max(deepest, depth);
    } else if (c === '}' || c === ']' || c === ')') {
      depth = Math.max(0, depth - 1);
    }
    i += 1;
  }
  return deepest;
}

/** Refuses a document nested past MAX_NESTING before Apollo parses it: 400 GRAPHQL_PARSE_FAILED. */
export const limitNesting: RequestHandler = (req, res, next) => {
  const query: unknown =
    req.method === 'GET' ? req.query.query : (req.body as { query?: unknown } | undefined)?.query;
  if (typeof query === 'string') {
    const depth = bracketDepth(query);
    if (depth > MAX_NESTING) {
      res.status(400).json({
        errors: [
          {
            message: `The document nests brackets ${depth} levels deep; at most ${MAX_NESTING} are allowed.`,
            extensions: { code: 'GRAPHQL_PARSE_FAILED' },
          },
        ],
      });
      return;
    }
  }
  next();
};
