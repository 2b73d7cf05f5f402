import { CODE_ANALYSIS_MAX_FILES, CodeAnalysis, CodeProjectAnalysis, type Finding } from '@tessera/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type File, PAIRS, type Pair } from '../fixtures/project-pairs';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';

const MAX_BYTES = 8192;
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      CODE_ANALYSIS_MAX_BYTES: String(MAX_BYTES),
      CODE_ANALYSIS_TIMEOUT_MS: '8000',
      CODE_ANALYSIS_WORKERS: '1',
    },
  });
  key = (await createAccountWithKey(server)).key.key;
});
afterAll(async () => {
  await server?.close();
});

function post(body: unknown): Promise<Response> {
  return fetch(`${server.url}/api/code/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function project(files: File[], analysis_type = 'security'): Promise<CodeProjectAnalysis> {
  const res = await post({ files, analysis_type });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return CodeProjectAnalysis.parse(body);
}

/**
 * The findings proven from a source (confidence high). A helper that builds SQL from its own parameter is also
 * reported in its file at medium confidence (a parameter of unknown origin, like Bandit's B608): that finding
 * is about the helper, whoever calls it, and is checked on its own below.
 */
const security = (result: CodeProjectAnalysis, rule = 'security/sql-injection'): Finding[] =>
  result.issues.filter((i) => i.rule_id === rule && i.confidence === 'high');

async function errorOf(res: Response) {
  const body = (await res.json()) as {
    error: { message: string; type: string; param: string | null; code: string | null };
  };
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  return body.error;
}

describe('POST /api/code/analyze with files (a project)', () => {
  for (const [language, pair] of Object.entries(PAIRS)) {
    it(`${language}: a helper in another file that passes its argument to a SQL sink makes the call a finding`, async () => {
      const result = await project([pair.helper, pair.caller]);
      const [finding, ...more] = security(result);
      expect(more).toEqual([]);
      expect(finding).toMatchObject({ path: pair.caller.path, line: pair.line, cwe: 'CWE-89' });
      expect(finding?.message).toContain(pair.helper.path);
      // The trace starts at the caller's source and ends at the helper's sink, each step naming its file.
      const trace = finding?.trace ?? [];
      expect(trace[0]?.path).toBe(pair.caller.path);
      expect(trace[0]?.note).toMatch(/^source: /);
      expect(trace.at(-1)?.path).toBe(pair.helper.path);
      expect(trace.at(-1)?.note).toMatch(/^sink: /);
      expect(trace.every((s) => s.path !== undefined)).toBe(true);
    });

    it(`${language}: the same call is safe when the helper binds the value`, async () => {
      const result = await project([pair.safeHelper, pair.caller]);
      expect(security(result)).toEqual([]);
    });

    it(`${language}: the caller alone has no finding (the summary comes from the other file)`, async () => {
      const result = await project([pair.caller]);
      expect(security(result)).toEqual([]);
    });
  }

  it('reports a helper that builds SQL from its parameter in its own file, at medium confidence', async () => {
    const pair = PAIRS.python as Pair;
    const alone = await project([pair.helper]);
    const weak = alone.issues.filter((i) => i.rule_id === 'security/sql-injection');
    // The statement that builds the query (line 2) and the sink (line 3).
    expect(weak).toMatchObject([
      { path: pair.helper.path, line: 2, confidence: 'medium' },
      { path: pair.helper.path, line: 3, confidence: 'medium' },
    ]);
    const bound = await project([pair.safeHelper, pair.caller]);
    expect(bound.issues.filter((i) => i.rule_id === 'security/sql-injection')).toEqual([]);
  });

  it('reports a helper reached from a proven source once: the call, with the trace through the helper', async () => {
    for (const language of ['python', 'java', 'go', 'php'] as const) {
      const pair = PAIRS[language] as Pair;
      const result = await project([pair.helper, pair.caller]);
      const sql = result.issues.filter((i) => i.rule_id === 'security/sql-injection');
      expect(sql, language).toMatchObject([{ path: pair.caller.path, confidence: 'high' }]);
      expect(sql[0]?.trace?.at(-1)?.path, language).toBe(pair.helper.path);
      // The summaries count what is reported.
      expect(result.summary.by_category.security, language).toBe(
        result.issues.filter((i) => i.category === 'security').length,
      );
      const helperFile = result.files.find((f) => f.path === pair.helper.path);
      expect(helperFile?.summary.by_category.security, language).toBe(
        result.issues.filter((i) => i.category === 'security' && i.path === pair.helper.path).length,
      );
    }
  });

  it('a sanitiser defined in another file makes its result safe (Python, Java)', async () => {
    const pySink = {
      path: 'views.py',
      code: 'from flask import request\nfrom helpers import clean\n\n@app.route("/u")\ndef u():\n    cursor.execute("SELECT * FROM t WHERE id = " + clean(request.args["id"]))\n',
    };
    const safe = await project([
      { path: 'helpers.py', code: 'def clean(v):\n    return str(int(v))\n' },
      pySink,
    ]);
    expect(security(safe)).toEqual([]);
    const unsafe = await project([
      { path: 'helpers.py', code: 'def clean(v):\n    return v.strip()\n' },
      pySink,
    ]);
    expect(security(unsafe)).toMatchObject([{ path: 'views.py', line: 6 }]);

    const javaCaller = {
      path: 'App.java',
      code: 'class App extends HttpServlet {\n  void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {\n    String id = Ids.clean(request.getParameter("id"));\n    statement.executeQuery("SELECT * FROM t WHERE id = " + id);\n  }\n}\n',
    };
    const javaSafe = await project([
      {
        path: 'Ids.java',
        code: 'class Ids {\n  static String clean(String s) {\n    return String.valueOf(Integer.parseInt(s));\n  }\n}\n',
      },
      javaCaller,
    ]);
    expect(security(javaSafe)).toEqual([]);
    const javaUnsafe = await project([
      {
        path: 'Ids.java',
        code: 'class Ids {\n  static String clean(String s) {\n    return s.trim();\n  }\n}\n',
      },
      javaCaller,
    ]);
    expect(security(javaUnsafe)).toMatchObject([{ path: 'App.java', line: 4 }]);
  });

  it('resolves an instance method through the declared type of a local or a field (Java)', async () => {
    const result = await project([
      {
        path: 'Repo.java',
        code: 'public class Repo {\n  public void find(String name) throws Exception {\n    statement.executeQuery("SELECT * FROM users WHERE name = \'" + name + "\'");\n  }\n}\n',
      },
      {
        path: 'Users.java',
        code: 'public class Users extends HttpServlet {\n  private Repo users;\n  public void doGet(HttpServletRequest request, HttpServletResponse response) throws Exception {\n    Repo repo = new Repo();\n    repo.find(request.getParameter("name"));\n    users.find(request.getParameter("other"));\n  }\n}\n',
      },
    ]);
    expect(security(result)).toMatchObject([
      { path: 'Users.java', line: 5 },
      { path: 'Users.java', line: 6 },
    ]);
  });

  it('resolves a method through an instance constructed from a class of another file (Python, JS)', async () => {
    const python = await project([
      {
        path: 'repo.py',
        code: 'class Repo:\n    def __init__(self, cur):\n        self.cur = cur\n\n    def find(self, name):\n        self.cur.execute("SELECT * FROM t WHERE name = \'" + name + "\'")\n',
      },
      {
        path: 'views.py',
        code: 'from flask import request\nimport repo\n\n@app.route("/u")\ndef u():\n    r = repo.Repo(cursor)\n    r.find(request.args["name"])\n    other = Other()\n    other.find(request.args["name"])\n',
      },
    ]);
    expect(security(python).map((f) => [f.path, f.line])).toEqual([['views.py', 7]]);
    const js = await project([
      {
        path: 'repo.js',
        code: "class Repo {\n  find(name) {\n    return conn.query('SELECT * FROM t WHERE name = ' + name);\n  }\n}\nmodule.exports = { Repo };\n",
      },
      {
        path: 'app.js',
        code: "const { Repo } = require('./repo');\napp.get('/x', (req, res) => {\n  const repo = new Repo();\n  repo.find(req.query.name);\n});\n",
      },
    ]);
    expect(security(js).map((f) => [f.path, f.line])).toEqual([['app.js', 4]]);
  });

  it('resolves functions bound to a name: an arrow function in a const, a function assigned to exports.x (JS)', async () => {
    const helper = {
      path: 'db.js',
      code: 'const byId = (conn, id) => conn.query(\'SELECT * FROM t WHERE id = \' + id);\nexports.byName = function (conn, name) {\n  return conn.query("SELECT * FROM t WHERE name = \'" + name + "\'");\n};\nmodule.exports.byId = byId;\n',
    };
    const caller = {
      path: 'app.js',
      code: "const db = require('./db');\napp.get('/x', (req, res) => {\n  db.byId(conn, req.query.id);\n  db.byName(conn, req.query.name);\n});\n",
    };
    const result = await project([helper, caller]);
    expect(security(result).map((f) => [f.path, f.line])).toEqual([
      ['app.js', 3],
      ['app.js', 4],
    ]);
  });

  it('does not resolve a call to a function of another language, or of an unrelated module', async () => {
    const result = await project([
      { path: 'db.js', code: 'function find(conn, name) {\n  return conn.query("SELECT " + name);\n}\n' },
      PAIRS.python?.caller as File,
      {
        path: 'other.js',
        code: "const lib = require('./lib');\napp.get('/x', (req, res) => {\n  lib.find(conn, req.query.name);\n});\n",
      },
    ]);
    expect(security(result)).toEqual([]);
  });

  it('returns per-file metrics, languages inferred from the paths, and findings carrying their path', async () => {
    const result = await project(
      [
        {
          path: 'src/a.py',
          code: 'def f(x):\n    if x:\n        return 1\n    return 2\n\n\ndef g(y):\n    return y\n',
        },
        { path: 'src/b.ts', code: 'export function h(a: number) {\n  return a > 1 ? a : 0;\n}\n' },
        { path: 'scripts/run', code: 'echo "$1"\n', language: 'bash' },
      ],
      'all',
    );
    expect(result.object).toBe('code.project_analysis');
    expect(result.id).toMatch(/^analysis_/);
    expect(result.files.map((f) => [f.path, f.language, f.language_detected])).toEqual([
      ['src/a.py', 'python', true],
      ['src/b.ts', 'typescript', true],
      ['scripts/run', 'bash', false],
    ]);
    expect(result.files.map((f) => f.summary.functions)).toEqual([2, 1, 0]);
    expect(result.files[0]?.functions.map((f) => [f.name, f.cyclomatic])).toEqual([
      ['f', 2],
      ['g', 1],
    ]);
    expect(result.summary.files).toBe(3);
    expect(result.summary.functions).toBe(3);
    expect(result.summary.lines).toBe(result.files.reduce((n, f) => n + f.summary.lines, 0));
    expect(result.summary.issues).toBe(result.issues.length);
    for (const issue of result.issues) expect(result.files.map((f) => f.path)).toContain(issue.path);
    expect(result.partial).toBe(false);
  });

  it('keeps the single-file form unchanged: no path on its findings', async () => {
    const res = await post({
      code: 'import os\nfrom flask import request\n\n@app.route("/x")\ndef x():\n    os.system("ls " + request.args["d"])\n',
      language: 'python',
    });
    expect(res.status).toBe(200);
    const body = CodeAnalysis.parse(await res.json());
    expect(body.object).toBe('code.analysis');
    const finding = body.issues.find((i) => i.rule_id === 'security/command-injection');
    expect(finding).toBeDefined();
    expect(finding?.path).toBeUndefined();
    expect(finding?.trace?.every((s) => s.path === undefined)).toBe(true);
  });

  it('keeps trace steps without a path when the trace stays in one file', async () => {
    const result = await project([
      {
        path: 'x.py',
        code: 'import os\nfrom flask import request\n\n@app.route("/x")\ndef x():\n    os.system("ls " + request.args["d"])\n',
      },
      { path: 'y.py', code: 'def y():\n    return 1\n' },
    ]);
    const [finding] = security(result, 'security/command-injection');
    expect(finding?.path).toBe('x.py');
    expect(finding?.trace?.every((s) => s.path === undefined)).toBe(true);
  });
});

describe('POST /api/code/analyze with files: validation', () => {
  const file = (path: string, code = 'x = 1\n'): File => ({ path, code });

  it('400 when both code and files, or neither, are given', async () => {
    const both = await post({ code: 'x = 1', files: [file('a.py')] });
    expect(both.status).toBe(400);
    expect(await errorOf(both)).toMatchObject({
      type: 'invalid_request_error',
      param: 'files',
      code: 'invalid_parameter_combination',
    });
    const neither = await post({ analysis_type: 'all' });
    expect(neither.status).toBe(400);
    const err = await errorOf(neither);
    expect(err).toMatchObject({ param: 'code', code: 'missing_required_parameter' });
    expect(err.message).toContain('`files`');
  });

  it('400 for an empty, non-array or malformed files list', async () => {
    const empty = await post({ files: [] });
    expect(empty.status).toBe(400);
    expect(await errorOf(empty)).toMatchObject({ param: 'files', code: 'invalid_value' });
    const notArray = await post({ files: 'a.py' });
    expect(notArray.status).toBe(400);
    expect((await errorOf(notArray)).param).toBe('files');
    const noCode = await post({ files: [file('a.py'), { path: 'b.py' }] });
    expect(noCode.status).toBe(400);
    expect(await errorOf(noCode)).toMatchObject({
      param: 'files[1].code',
      code: 'missing_required_parameter',
    });
    const notObject = await post({ files: [null] });
    expect(notObject.status).toBe(400);
    expect((await errorOf(notObject)).param).toBe('files[0]');
  });

  it('400 for an empty or duplicate path', async () => {
    const blank = await post({ files: [file('a.py'), file('  ')] });
    expect(blank.status).toBe(400);
    expect(await errorOf(blank)).toMatchObject({ param: 'files[1].path', code: 'invalid_value' });
    const duplicate = await post({ files: [file('a.py'), file('b.py'), file('a.py')] });
    expect(duplicate.status).toBe(400);
    const err = await errorOf(duplicate);
    expect(err).toMatchObject({ param: 'files[2].path', code: 'duplicate_path' });
    expect(err.message).toContain('a.py');
  });

  it("400 for a file's unknown language, naming the file", async () => {
    const res = await post({ files: [file('a.py'), { path: 'b.x', code: 'x', language: 'cobol' }] });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err).toMatchObject({ param: 'files[1].language', code: 'unsupported_language' });
    expect(err.message).toContain('python');
  });

  it('400 when language or filename is given with files', async () => {
    const res = await post({ files: [file('a.py')], language: 'python' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ param: 'language', code: 'invalid_parameter_combination' });
  });

  it(`400 for more than ${CODE_ANALYSIS_MAX_FILES} files`, async () => {
    const files = Array.from({ length: CODE_ANALYSIS_MAX_FILES + 1 }, (_, i) => file(`f${i}.py`, ''));
    const res = await post({ files });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err).toMatchObject({ param: 'files', code: 'too_many_files' });
    expect(err.message).toContain(String(CODE_ANALYSIS_MAX_FILES));
    const atLimit = await post({ files: files.slice(0, CODE_ANALYSIS_MAX_FILES) });
    expect(atLimit.status).toBe(200);
  });

  it('413 when the files together are over the size limit, though each is under it', async () => {
    const half = `x = "${'a'.repeat(MAX_BYTES / 2)}"\n`;
    const res = await post({ files: [file('a.py', half), file('b.py', half)] });
    expect(res.status).toBe(413);
    const err = await errorOf(res);
    expect(err).toMatchObject({ param: 'files', code: 'code_too_large' });
    expect(err.message).toContain(String(MAX_BYTES));
    const under = await post({ files: [file('a.py', half)] });
    expect(under.status).toBe(200);
  });

  it('400 analysis_too_complex names the file over the bounds', async () => {
    const nested = `x = ${'('.repeat(700)}1${')'.repeat(700)}\n`;
    const res = await post({ files: [file('ok.py'), file('deep.py', nested)] });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('analysis_too_complex');
    expect(err.message).toContain('deep.py');
  });
});
