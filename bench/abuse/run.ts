/**
 * The event loop's worst stall per class of abusive request, on the real server in this process (as the tests
 * in server/test/abuse run it): each input is sent once to warm up, then ROUNDS times, each round measured with
 * perf_hooks' event-loop delay histogram (5 ms resolution). Prints, per input: the answer's status and code, the
 * worst and the smallest stall of the rounds, and the heap's peak growth. Results: BENCHMARKS.md.
 *
 *   cd server && TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx ../bench/abuse/run.ts [--rounds=5] [--only=prompt,code]
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { countingThread } from '../../server/src/modules/tokenizer';
import { type Answer, newKey, post, startAbuseServer } from '../../server/test/abuse/harness';
import { measure } from '../../server/test/abuse/stall-meter';
import { variedText } from '../../server/test/helpers/text';

const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 5);
// --only=prompt,code: those classes alone.
const ONLY = process.argv
  .find((a) => a.startsWith('--only='))
  ?.split('=')[1]
  ?.split(',');

const server = await startAbuseServer({
  BODY_LIMIT_BYTES: String(8 * 1024 * 1024),
  CODE_ANALYSIS_WORKERS: '2',
});
const key = await newKey(server);

// Bytes, which post() sends in slices as the socket takes them: a string body is encoded by fetch in one piece on
// this process's event loop (~70 ms for 19 MB on a slow vCPU), which would be charged to the server.
const send = (path: string, body: unknown) => {
  const bytes = Buffer.from(JSON.stringify(body));
  return () => post(server, key, path, bytes);
};
const chat = (body: Record<string, unknown>, model = 'tessera-long-100k') =>
  send('/v1/chat/completions', { model, ...body });
const user = (content: unknown) => ({ messages: [{ role: 'user', content }] });
/** A request declaring one function whose parameters are `count` properties, each `property`. */
const weatherTool = (count: number, property: Record<string, unknown>) => ({
  ...user('Weather?'),
  tools: [
    {
      type: 'function',
      function: {
        name: 'weather',
        parameters: {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, property])),
        },
      },
    },
  ],
});
const structured = (schema: unknown, extra: Record<string, unknown> = {}) =>
  chat(
    {
      ...user('Describe Paris in 3 words'),
      ...extra,
      response_format: { type: 'json_schema', json_schema: { name: 'a', schema } },
    },
    'tessera-fast-4k',
  );
const pattern = (p: string) =>
  structured({ type: 'object', properties: { a: { type: 'string', pattern: p } }, required: ['a'] });
const analyze = (code: string, language = 'javascript') => send('/api/code/analyze', { code, language });
const nestedSchema = (depth: number) =>
  JSON.parse(
    `${'{"type":"object","required":["a"],"properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`,
  );

const classes: [string, string, () => Promise<Answer>][] = [
  ['pattern', '^x{2147483647}$ (the issue)', pattern('^x{2147483647}$')],
  ['pattern', '^x{9999999}$', pattern('^x{9999999}$')],
  ['pattern', '^x{1000000}$', pattern('^x{1000000}$')],
  ['pattern', '(?:(?:x{1000}){1000}){1000}', pattern('^(?:(?:x{1000}){1000}){1000}$')],
  [
    'pattern',
    '10,000 strings of a costly pattern, n=8',
    structured(
      {
        type: 'array',
        minItems: 10_000,
        items: { type: 'string', pattern: '^(?:[a-z]{1,9}|[0-9]{1,9}){1,30}$' },
      },
      { n: 8 },
    ),
  ],
  [
    'schema',
    '9,000 strings of 16,384 characters',
    structured({ type: 'array', minItems: 9_000, items: { type: 'string', minLength: 16_384 } }),
  ],
  [
    'schema',
    '5,000 required properties, n=8',
    structured(
      {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 5_000 }, (_, i) => [`p${i}`, { type: 'integer' }]),
        ),
        required: Array.from({ length: 5_000 }, (_, i) => `p${i}`),
      },
      { n: 8 },
    ),
  ],
  [
    'schema',
    'allOf of 100 branches of 100 properties',
    structured({
      allOf: Array.from({ length: 100 }, (_, j) => ({
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 100 }, (_, i) => [`p${j}_${i}`, { type: 'integer' }]),
        ),
      })),
    }),
  ],
  ['schema', 'nested 2,000 deep', structured(nestedSchema(2_000))],
  [
    'schema',
    'self-referring anyOf, n=8',
    structured(
      {
        $defs: {
          a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'array', minItems: 3, items: { $ref: '#/$defs/a' } }] },
        },
        type: 'array',
        minItems: 100,
        items: { $ref: '#/$defs/a' },
      },
      { n: 8 },
    ),
  ],
  ['code', "200 KB of '(' (the issue)", analyze('('.repeat(200_000))],
  ['code', '2,000 nested if blocks', analyze(`${'if (a) {'.repeat(2_000)}${'}'.repeat(2_000)}`)],
  ['code', "20,000 lines of 'let x = ((;'", analyze('let x = ((;\n'.repeat(20_000))],
  [
    'prompt',
    'first long prompt of a process (1 MB, a 200 KB unbroken run)',
    // The prompt is built once, outside the measured call: building 1 MB of text is the benchmark's own work.
    (() => {
      const request = chat({ ...user(`${variedText(800_000, 3)} ${'x'.repeat(200_000)}`), max_tokens: 5 });
      return async () => {
        await countingThread.stop();
        return request();
      };
    })(),
  ],
  ['prompt', '200 KB ordinary prompt', chat({ ...user(variedText(200_000, 7)), max_tokens: 5 })],
  [
    'prompt',
    '100 KB prompt, tools, n=8',
    chat({
      ...user(`Weather in Paris, Rome and Tokyo. ${variedText(100_000, 9)}`),
      n: 8,
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'required',
    }),
  ],
  // Issue 39: the shapes that cost the most per byte, up to the chat body limit (20 MB).
  ['prompt', 'one 8 MB word, 4k model (the issue)', chat(user('x'.repeat(8 << 20)), 'tessera-fast-4k')],
  ['prompt', 'one 19 MB word, 4k model', chat(user('x'.repeat(19 << 20)), 'tessera-fast-4k')],
  ['prompt', 'one 8 MB word, 100k model', chat(user('x'.repeat(8 << 20)))],
  ['prompt', '6 MB of spaces, 100k model', chat(user(' '.repeat(6 << 20)))],
  ['prompt', '2 M CJK letters (6 MB), 100k model', chat(user('語'.repeat(2 << 20)))],
  [
    'prompt',
    '4 MB of random lowercase letters, 100k model',
    (() => {
      let seed = 5;
      const letter = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return String.fromCharCode(97 + (seed % 26));
      };
      return chat(user(Array.from({ length: 4 << 20 }, letter).join('')));
    })(),
  ],
  [
    'request',
    '150,000 messages of "hi" (the issue)',
    chat({ messages: Array.from({ length: 150_000 }, () => ({ role: 'user', content: 'hi' })) }),
  ],
  [
    'request',
    '500,000 messages of "hi" (15 MB)',
    chat({ messages: Array.from({ length: 500_000 }, () => ({ role: 'user', content: 'hi' })) }),
  ],
  [
    'request',
    '600,000 empty text parts (19 MB)',
    chat(user(Array.from({ length: 600_000 }, () => ({ type: 'text', text: '' })))),
  ],
  ['request', 'a tool schema of 300,000 properties (15 MB)', chat(weatherTool(300_000, { type: 'string' }))],
  // Just within the bound on values (100,000): parsed, rebuilt and walked in full.
  [
    'request',
    'a tool schema of 25,000 properties (1 MB), 100k model',
    chat(weatherTool(25_000, { type: 'string', description: 'x' }), 'tessera-long-100k'),
  ],
  [
    'request',
    '32,000 messages of "hi" (1 MB), 100k model',
    chat({ messages: Array.from({ length: 32_000 }, () => ({ role: 'user', content: 'hi' })) }),
  ],
  [
    'request',
    'metadata nested 1,000,000 deep (2 MB)',
    (() => {
      const text = `{"model":"tessera-fast-4k","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
      return () => post(server, key, '/v1/chat/completions', text);
    })(),
  ],
  ['request', 'max_tokens 2,000,000,000', chat({ ...user('Hello'), max_tokens: 2_000_000_000 })],
  ['request', 'n 100,000', chat({ ...user('Hello'), n: 100_000 })],
  [
    'request',
    '4 stop strings of 500,000 characters',
    chat({ ...user('Hello there'), stop: Array.from({ length: 4 }, (_, i) => `${i}${'z'.repeat(500_000)}`) }),
  ],
  [
    'request',
    '5,000 messages',
    chat({
      messages: Array.from({ length: 5_000 }, (_, i) => ({ role: 'user', content: `m${i}` })),
      max_tokens: 5,
    }),
  ],
];

console.log(
  `Node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, ${ROUNDS} rounds`,
);
console.log(
  '| Class | Input | Answer | Worst stall ms | Smallest stall ms | Fastest answer ms | Peak heap growth MB |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const worstByClass = new Map<string, number>();
for (const [kind, label, run] of classes.filter(([kind]) => !ONLY || ONLY.includes(kind))) {
  let answer = await run();
  const stalls: number[] = [];
  let heap = 0;
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUNDS; i++) {
    const cost = await measure(async () => {
      const started = performance.now();
      answer = await run();
      fastest = Math.min(fastest, performance.now() - started);
    });
    stalls.push(cost.stallMs);
    heap = Math.max(heap, cost.peakHeapGrowthMb);
  }
  const worst = Math.max(...stalls);
  worstByClass.set(kind, Math.max(worstByClass.get(kind) ?? 0, Math.min(...stalls)));
  const code = answer.body.error?.code ? ` ${answer.body.error.code}` : '';
  console.log(
    `| ${kind} | ${label} | ${answer.status}${code} | ${worst.toFixed(0)} | ${Math.min(...stalls).toFixed(0)} | ${fastest.toFixed(0)} | ${heap.toFixed(1)} |`,
  );
}
console.log(
  `Smallest stall of the rounds, worst input per class: ${[...worstByClass].map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}; load after: ${loadavg()[0]?.toFixed(1)}`,
);
await server.close();
await countingThread.stop();
