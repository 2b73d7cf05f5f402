/** The mixed workload: what each kind of request sends, and how one call is timed and checked. */
import { Agent, request } from 'node:http';
import { rng, VOCABULARY_SIZE, word } from '../search/corpus';

export type Kind = 'chat' | 'chat_stream' | 'models' | 'code' | 'search' | 'graphql';

/** Share of the offered rate per kind (sums to 1). */
export const MIX: Record<Kind, number> = {
  chat: 0.2,
  chat_stream: 0.2,
  models: 0.2,
  code: 0.1,
  search: 0.2,
  graphql: 0.1,
};

export const LABELS: Record<Kind, string> = {
  chat: 'POST /v1/chat/completions',
  chat_stream: 'POST /v1/chat/completions (stream)',
  models: 'GET /v1/models',
  code: 'POST /api/code/analyze',
  search: 'POST /api/search',
  graphql: 'POST /graphql (usage summary)',
};

export interface Outcome {
  kind: Kind;
  /** HTTP status, or 0 when the connection failed, -1 when a stream did not end with [DONE]. */
  status: number;
  ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const random = rng(42);

const CODE_SNIPPETS = [
  {
    language: 'javascript',
    code: 'function total(items) {\n  let sum = 0;\n  for (const item of items) {\n    if (item.price > 0) sum += item.price * item.qty;\n  }\n  return sum;\n}\nconst q = "SELECT * FROM t WHERE id=" + process.argv[2];\nrequire("child_process").exec(q);\n',
  },
  {
    language: 'python',
    code: 'import os\n\ndef run(cmd):\n    if cmd:\n        os.system("ls " + cmd)\n    for i in range(10):\n        if i % 2 == 0:\n            print(i)\n    return eval(input())\n',
  },
  {
    language: 'go',
    code: 'package main\n\nimport "fmt"\n\nfunc fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}\n\nfunc main() {\n\tfmt.Println(fib(10))\n}\n',
  },
];

const GRAPHQL =
  '{ usage(period: LAST_24H) { summary { totalRequests successRate averageLatencyMs totalTokens } } }';

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function chatBody(stream: boolean): string {
  return JSON.stringify({
    model: pick(['tessera-fast-4k', 'tessera-reason-8k']),
    messages: [{ role: 'user', content: `Summarise request ${Math.floor(random() * 1e6)} in one line.` }],
    max_tokens: 32,
    ...(stream && { stream: true }),
  });
}

/** Method, path and body of one request of `kind`. */
function describe(kind: Kind): { method: string; path: string; body?: string } {
  switch (kind) {
    case 'chat':
      return { method: 'POST', path: '/v1/chat/completions', body: chatBody(false) };
    case 'chat_stream':
      return { method: 'POST', path: '/v1/chat/completions', body: chatBody(true) };
    case 'models':
      return { method: 'GET', path: '/v1/models' };
    case 'code':
      return { method: 'POST', path: '/api/code/analyze', body: JSON.stringify(pick(CODE_SNIPPETS)) };
    case 'search': {
      // Two terms from the commoner third of the vocabulary the indexed documents were drawn from.
      const terms = [0, 1].map(() => word(1 + Math.floor(random() * (VOCABULARY_SIZE / 30))));
      return {
        method: 'POST',
        path: '/api/search',
        body: JSON.stringify({ collection: 'load', query: terms.join(' '), limit: 10 }),
      };
    }
    case 'graphql':
      return { method: 'POST', path: '/graphql', body: JSON.stringify({ query: GRAPHQL }) };
  }
}

export function call(baseUrl: string, key: string, kind: Kind): Promise<Outcome> {
  const { method, path, body } = describe(kind);
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number) => resolve({ kind, status, ms: performance.now() - started });
    const req = request(
      `${baseUrl}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        timeout: 60_000,
      },
      (res) => {
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          tail = (tail + text).slice(-64);
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          // A 200 stream that did not finish properly counts as an error.
          done(kind === 'chat_stream' && status === 200 && !tail.includes('[DONE]') ? -1 : status);
        });
        res.on('error', () => done(0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done(0));
    req.end(body);
  });
}

/** Indexes `count` synthetic documents into the `load` collection, 100 per request. */
export async function indexDocuments(baseUrl: string, key: string, count: number): Promise<void> {
  const { syntheticDocument } = await import('../search/corpus');
  for (let from = 0; from < count; from += 100) {
    const documents = Array.from({ length: Math.min(100, count - from) }, (_, i) =>
      syntheticDocument(from + i),
    );
    const res = await fetch(`${baseUrl}/api/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ collection: 'load', documents }),
    });
    if (!res.ok) throw new Error(`indexing failed: ${res.status} ${await res.text()}`);
  }
}

export function closeAgent(): void {
  agent.destroy();
}
