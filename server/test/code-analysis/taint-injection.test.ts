/** Taint rules for SQL, command and code injection in every language: vulnerable examples fire, safe ones do not; and what a finding says. */
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import { type RuleCase, ruleIds } from '../helpers/code-analysis';
import { cmain, cs, go, java, js, php, py, rb } from '../helpers/taint-handlers';

const INJECTION_CASES: RuleCase[] = [
  // SQL injection
  [
    'security/sql-injection',
    'python',
    py('uid = request.args.get("id")\ncursor.execute(f"SELECT * FROM users WHERE id = {uid}")'),
    py('uid = request.args.get("id")\ncursor.execute("SELECT * FROM users WHERE id = %s", (uid,))'),
  ],
  [
    'security/sql-injection',
    'javascript',
    js('const q = "SELECT * FROM t WHERE id = " + req.query.id;\ndb.query(q);'),
    js('db.query("SELECT * FROM t WHERE id = ?", [req.query.id]);'),
  ],
  [
    'security/sql-injection',
    'typescript',
    js('const id: string = req.params.id;\nawait pool.query(`SELECT * FROM t WHERE id = ${id}`);'),
    js(
      'const id: number = parseInt(req.params.id, 10);\nawait pool.query(`SELECT * FROM t WHERE id = ${id}`);',
    ),
  ],
  [
    'security/sql-injection',
    'java',
    java(
      'String id = request.getParameter("id");\nstmt.executeQuery("SELECT * FROM t WHERE id = \'" + id + "\'");',
    ),
    java(
      'String id = request.getParameter("id");\nPreparedStatement ps = conn.prepareStatement("SELECT * FROM t WHERE id = ?");\nps.setString(1, id);',
    ),
  ],
  [
    'security/sql-injection',
    'php',
    php('$id = $_GET["id"];\n$pdo->query("SELECT * FROM t WHERE id = " . $id);'),
    php('$id = intval($_GET["id"]);\n$pdo->query("SELECT * FROM t WHERE id = " . $id);'),
  ],
  [
    'security/sql-injection',
    'go',
    go('id := r.URL.Query().Get("id")\ndb.Query("SELECT * FROM t WHERE id = " + id)'),
    go('id := r.URL.Query().Get("id")\ndb.Query("SELECT * FROM t WHERE id = $1", id)'),
  ],
  [
    'security/sql-injection',
    'ruby',
    rb('User.where("name = \'#{params[:name]}\'")'),
    rb('User.where(name: params[:name])\nUser.where("name = ?", params[:name])'),
  ],
  [
    'security/sql-injection',
    'csharp',
    cs('var id = Request.Query["id"];\nvar cmd = new SqlCommand("SELECT * FROM t WHERE id = " + id, conn);'),
    cs(
      'var id = Request.Query["id"];\nvar cmd = new SqlCommand("SELECT * FROM t WHERE id = @id", conn);\ncmd.Parameters.AddWithValue("@id", id);',
    ),
  ],
  [
    'security/sql-injection',
    'csharp',
    cs('string q = "DELETE FROM t WHERE n = \'" + Request.Form["n"] + "\'";\ncmd.CommandText = q;'),
    cs('cmd.CommandText = "DELETE FROM t WHERE n = @n";'),
  ],
  [
    'security/sql-injection',
    'c',
    cmain(
      'char q[512];\nsprintf(q, "SELECT * FROM t WHERE n = \'%s\'", argv[1]);\nsqlite3_exec(db, q, 0, 0, 0);',
    ),
    cmain('sqlite3_exec(db, "SELECT * FROM t", 0, 0, 0);'),
  ],
  // Command injection
  [
    'security/command-injection',
    'python',
    py('name = request.form["name"]\nos.system("ls " + name)'),
    py('name = request.form["name"]\nsubprocess.run(["ls", name])'),
  ],
  [
    'security/command-injection',
    'javascript',
    js('cp.exec("git log " + req.query.branch);'),
    js('cp.execFile("git", ["log", req.query.branch]);'),
  ],
  [
    'security/command-injection',
    'java',
    java('String f = request.getParameter("f");\nRuntime.getRuntime().exec("cat " + f);'),
    java(
      'String f = request.getParameter("f");\nRuntime.getRuntime().exec(new String[] {"cat", "--", "/data/fixed.txt"});',
    ),
  ],
  [
    'security/command-injection',
    'php',
    php('system("ping " . $_GET["host"]);'),
    php('system("ping " . escapeshellarg($_GET["host"]));'),
  ],
  [
    'security/command-injection',
    'go',
    go('host := r.FormValue("host")\nexec.Command("sh", "-c", "ping "+host).Run()'),
    go('host := r.FormValue("host")\n_ = host\nexec.Command("ping", "-c", "1", "example.com").Run()'),
  ],
  [
    'security/command-injection',
    'ruby',
    rb('system("ls #{params[:dir]}")'),
    rb('system("ls", params[:dir])\nsystem("ls #{Shellwords.escape(params[:dir])}")'),
  ],
  [
    'security/command-injection',
    'csharp',
    cs('Process.Start("cmd.exe", "/c dir " + Request.Query["d"]);'),
    cs('Process.Start("cmd.exe", "/c dir C:\\\\data");'),
  ],
  [
    'security/command-injection',
    'c',
    cmain('char cmd[256];\nsnprintf(cmd, sizeof cmd, "ls %s", argv[1]);\nsystem(cmd);'),
    cmain('char cmd[256];\nsnprintf(cmd, sizeof cmd, "ls %d", atoi(argv[1]));\nsystem(cmd);'),
  ],
  [
    'security/command-injection',
    'cpp',
    cmain('std::string cmd = std::string("ping ") + getenv("HOST");\nsystem(cmd.c_str());'),
    cmain('std::string cmd = "ping localhost";\nsystem(cmd.c_str());'),
  ],
  // Code injection
  [
    'security/code-injection',
    'python',
    py('expr = request.args.get("e")\nresult = eval(expr)'),
    py('import ast\nexpr = request.args.get("e")\nresult = ast.literal_eval(expr)'),
  ],
  ['security/code-injection', 'javascript', js('eval(req.body.code);'), js('JSON.parse(req.body.code);')],
  [
    'security/code-injection',
    'php',
    php('eval($_POST["code"]);'),
    php('$data = json_decode($_POST["code"]);'),
  ],
  ['security/code-injection', 'ruby', rb('eval(params[:code])'), rb('JSON.parse(params[:code])')],
];

describe('taint rules: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of INJECTION_CASES) {
    it(`${rule} in ${language}`, async () => {
      expect(await ruleIds(vulnerable, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    });
  }

  it('a finding names the source, the sink and the fix, with the CWE and 1-based location', async () => {
    const r = await analyzeSource({
      code: py('uid = request.args.get("id")\ncursor.execute("SELECT * FROM t WHERE id = " + uid)'),
      language: 'python',
      filename: undefined,
      analysisType: 'security',
      thresholds: DEFAULT_THRESHOLDS,
    });
    const f = r.issues.find((i) => i.rule_id === 'security/sql-injection');
    expect(f).toMatchObject({
      category: 'security',
      severity: 'critical',
      cwe: 'CWE-89',
      line: 6,
      column: 5,
      end_line: 6,
    });
    expect(f?.message).toContain('request.args.get("id")');
    expect(f?.message).toContain('line 5');
    expect(f?.message).toContain('bound parameter');
    expect(f?.snippet).toBe('cursor.execute("SELECT * FROM t WHERE id = " + uid)');
  });
});
