import { CodeAnalysis } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({
    env: { CODE_ANALYSIS_MAX_BYTES: '4096', CODE_ANALYSIS_TIMEOUT_MS: '4000', CODE_ANALYSIS_WORKERS: '1' },
  });
  key = (await createAccountWithKey(server)).key.key;
});
afterAll(async () => {
  await server?.close();
});

function analyze(body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/code/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function errorOf(
  res: Response,
): Promise<{ message: string; type: string; param: string | null; code: string | null }> {
  const body = (await res.json()) as {
    error: { message: string; type: string; param: string | null; code: string | null };
  };
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  return body.error;
}

describe('POST /api/code/analyze', () => {
  it('analyses Python and returns the documented shape', async () => {
    const code =
      'def grade(score):\n    if score > 90 and score <= 100:\n        return "A"\n    elif score > 80:\n        return "B"\n    return "C"\n';
    const res = await analyze({ code, language: 'py' });
    expect(res.status).toBe(200);
    const body = CodeAnalysis.parse(await res.json());
    expect(Object.keys(body)).toEqual([
      'id',
      'object',
      'language',
      'language_detected',
      'analysis_type',
      'summary',
      'metrics',
      'functions',
      'issues',
      'parse_errors',
      'partial',
    ]);
    expect(body.object).toBe('code.analysis');
    expect(body.language).toBe('python');
    expect(body.language_detected).toBe(false);
    expect(body.analysis_type).toBe('all');
    expect(body.partial).toBe(false);
    expect(body.functions).toHaveLength(1);
    // 1 + if + and + elif
    expect(body.functions[0]).toMatchObject({
      name: 'grade',
      cyclomatic: 4,
      start_line: 1,
      end_line: 6,
      parameters: 1,
    });
    expect(body.summary.lines).toBe(6);
  });

  it('detects the language when it is absent and says so', async () => {
    const res = await analyze({
      code: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tx := 1\n\tfmt.Println(x)\n}\n',
    });
    expect(res.status).toBe(200);
    const body = CodeAnalysis.parse(await res.json());
    expect(body.language).toBe('go');
    expect(body.language_detected).toBe(true);
  });

  it('reports parse errors and marks the result partial', async () => {
    const code =
      'function ok(a) { return a; }\nconst x = (1 + ;\nfunction after(b) { if (b) { return 1; } return b; }\n';
    const res = await analyze({ code, language: 'javascript' });
    expect(res.status).toBe(200);
    const body = CodeAnalysis.parse(await res.json());
    expect(body.partial).toBe(true);
    expect(body.parse_errors.length).toBeGreaterThan(0);
    expect(body.parse_errors[0]?.line).toBeGreaterThanOrEqual(2);
    expect(body.functions.map((f) => [f.name, f.cyclomatic])).toEqual([
      ['ok', 1],
      ['after', 2],
    ]);
  });

  it('400 for an unknown language, listing the supported ones', async () => {
    const res = await analyze({ code: 'x', language: 'cobol' });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.param).toBe('language');
    expect(err.code).toBe('unsupported_language');
    expect(err.message).toContain('cobol');
    expect(err.message).toContain('python (py');
    expect(err.message).toContain('kotlin');
  });

  it('400 for an unknown analysis_type, listing the values', async () => {
    const res = await analyze({ code: 'x = 1', language: 'python', analysis_type: 'style' });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.param).toBe('analysis_type');
    expect(err.message).toContain('complexity, bugs, security, all');
  });

  it('400 when code is missing or not a string', async () => {
    const missing = await analyze({ language: 'python' });
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).param).toBe('code');
    const wrong = await analyze({ code: 42 });
    expect(wrong.status).toBe(400);
    expect((await errorOf(wrong)).param).toBe('code');
  });

  it('413 when code is over the configured limit', async () => {
    const res = await analyze({ code: 'x = 1\n'.repeat(1000), language: 'python' });
    expect(res.status).toBe(413);
    const err = await errorOf(res);
    expect(err.code).toBe('code_too_large');
    expect(err.message).toContain('4096');
  });

  it('analysis_type narrows the findings', async () => {
    const code = 'function f(a,b,c,d,e,g){ if (a == b) { return 1; } return 2; }';
    const complexity = CodeAnalysis.parse(
      await (await analyze({ code, language: 'js', analysis_type: 'complexity' })).json(),
    );
    expect(complexity.issues.map((i) => i.rule_id)).toEqual(['complexity/parameters']);
    const bugs = CodeAnalysis.parse(
      await (await analyze({ code, language: 'js', analysis_type: 'bugs' })).json(),
    );
    expect(bugs.issues.map((i) => i.rule_id)).toEqual(['bug/loose-equality']);
    expect(bugs.issues[0]).toMatchObject({
      line: 1,
      column: 30,
      end_line: 1,
      end_column: 36,
      snippet: 'a == b',
      category: 'bug',
    });
  });
});
