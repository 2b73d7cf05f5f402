import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

function parse(value: unknown): Date {
  if (typeof value === 'string') {
    const d = new Date(value);
    if (!Number.isNaN(d.getTime()) && /^\d{4}-\d{2}-\d{2}T/.test(value)) return d;
  }
  throw new GraphQLError('DateTime must be an ISO 8601 string such as 2026-01-31T12:00:00Z.', {
    extensions: { code: 'BAD_USER_INPUT' },
  });
}

export const DateTime = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An instant, as an ISO 8601 string in UTC.',
  serialize: (value) => (value instanceof Date ? value : new Date(String(value))).toISOString(),
  parseValue: parse,
  parseLiteral: (ast) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
});
