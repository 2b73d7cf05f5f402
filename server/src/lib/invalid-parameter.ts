import type { z } from 'zod';
import { ServiceError } from '../errors';

/**
 * The one mapping from a zod issue to the REST 400 (OpenAI's body), for every request the server validates
 * (chat, code analysis, search, the audit log's arguments), with one wording:
 * - `Missing required parameter: 'messages'.` (code `missing_required_parameter`)
 * - `Invalid value for 'temperature': expected a number between 0 and 2, but received number 3.`
 * - `Unrecognized parameter 'documents[0].colour'.`
 * (both `invalid_value`). `param` is OpenAI's path (`messages[0].content`), null for the body itself. Parse
 * with `{ reportInput: true }` so that the message can say what was received.
 */
export interface InvalidParameterOptions {
  /** The path of the parsed value inside the body (`documents[2]`), when it is not the whole body. */
  prefix?: string;
  /**
   * What a parameter must be, in words, by its path with `*` for array indices (`messages.*.role`): the
   * "expected …" of the message. Without one, the words come from the issue.
   */
  expected?: Readonly<Record<string, string>>;
}

/** OpenAI names nested parameters like `messages[0].content`. */
export function paramOf(path: readonly PropertyKey[], prefix = ''): string {
  return path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    prefix,
  );
}

/** A value as a message shows what was received. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string '${shown}'`;
  }
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** The issue's own words for what was expected, when the caller has none for the parameter. */
function expectedFromIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected === 'int' ? 'an integer' : `a value of type ${issue.expected}`}`;
    case 'too_big':
      return `expected ${issue.origin === 'string' ? 'a string of' : issue.origin === 'array' ? 'an array of' : 'a value of'} at most ${String(issue.maximum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
    case 'too_small':
      return `expected ${issue.origin === 'string' ? 'a string of' : issue.origin === 'array' ? 'an array of' : 'a value of'} at least ${String(issue.minimum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

/** The first issue of a failed parse as a 400 naming the parameter at fault. */
export function invalidParameter(
  issue: z.core.$ZodIssue | undefined,
  { prefix = '', expected }: InvalidParameterOptions = {},
): ServiceError {
  if (!issue)
    return new ServiceError('invalid_request', 'The request is invalid.', { code: 'invalid_value' });
  const param = paramOf(issue.path, prefix);
  const named = param ? `'${param}'` : 'the request body';
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `'${paramOf([k], param)}'`).join(', ');
    return new ServiceError(
      'invalid_request',
      `Unrecognized parameter${issue.keys.length > 1 ? 's' : ''} ${keys}.`,
      { param: param || null, code: 'invalid_value' },
    );
  }
  const received = 'input' in issue ? issue.input : undefined;
  if (received === undefined && issue.code === 'invalid_type') {
    return new ServiceError('invalid_request', `Missing required parameter: ${named}.`, {
      param: param || null,
      code: 'missing_required_parameter',
    });
  }
  const pattern = issue.path.map((k) => (typeof k === 'number' ? '*' : String(k))).join('.');
  const words =
    expected?.[pattern] !== undefined ? `expected ${expected[pattern]}` : expectedFromIssue(issue);
  const shown = 'input' in issue ? `, but received ${describeValue(received)}` : '';
  return new ServiceError('invalid_request', `Invalid value for ${named}: ${words}${shown}.`, {
    param: param || null,
    code: 'invalid_value',
  });
}
