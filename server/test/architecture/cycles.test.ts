import { join } from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const SERVER = join(__dirname, '../..');

/** Import cycles between the server's files, type-only imports included (they tie modules together as much). */
describe('module imports', () => {
  it('have no cycle', async () => {
    const graph = await madge(join(SERVER, 'src'), {
      fileExtensions: ['ts'],
      tsConfig: join(SERVER, 'tsconfig.json'),
      excludeRegExp: [/\.test\.ts$/],
      detectiveOptions: { ts: { skipTypeImports: false } },
    });
    expect(graph.circular().map((cycle) => cycle.join(' > '))).toEqual([]);
  }, 120_000);
});
