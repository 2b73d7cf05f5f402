import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ALL_DOCUMENTS } from './documents';
import { EXPLORER_EXAMPLES } from './examples';

// The server's SDL is the contract: the dashboard's documents and the explorer's examples must validate.
const schema = buildSchema(
  readFileSync(
    join(dirname(fileURLToPath(import.meta.url)), '../../../server/src/graphql/schema.graphql'),
    'utf8',
  ),
);

function errorsOf(source: string): string[] {
  return validate(schema, parse(source)).map((e) => e.message);
}

describe('GraphQL documents against the server schema', () => {
  it.each(ALL_DOCUMENTS.map((d) => [d.operationName, d.source]))('%s is valid', (_name, source) => {
    expect(errorsOf(source)).toEqual([]);
  });

  it.each(EXPLORER_EXAMPLES.map((e) => [e.name, e.query]))(
    'explorer example "%s" is valid',
    (_name, query) => {
      expect(errorsOf(query)).toEqual([]);
    },
  );

  it('would catch a field the schema does not have', () => {
    expect(errorsOf('{ usage { summary { totalRequestz } } }')).not.toEqual([]);
  });
});
