import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../src/modules/code-analysis/types';

/** [rule, language, vulnerable code, safe code]: the vulnerable one must fire the rule, the safe one must not. */
type Case = [string, CodeLanguage, string, string];

const py = (body: string) =>
  `from flask import request\nimport os, subprocess, pickle, yaml, requests\n\ndef handler(cursor):\n${body.replace(/^/gm, '    ')}\n`;
const js = (body: string) =>
  `const cp = require('child_process');\napp.get('/x', (req, res) => {\n${body}\n});\n`;
const java = (body: string) =>
  `class C {\n  void handle(HttpServletRequest request, HttpServletResponse response, Statement stmt) throws Exception {\n${body}\n  }\n}\n`;
const php = (body: string) => `<?php\nfunction handle($pdo) {\n${body}\n}\n`;
const rb = (body: string) =>
  `class UsersController < ApplicationController\n  def show\n${body.replace(/^/gm, '    ')}\n  end\nend\n`;
const cs = (body: string) =>
  `class UsersController : Controller {\n  public IActionResult Show() {\n${body.replace(/^/gm, '    ')}\n    return Ok();\n  }\n}\n`;
const cmain = (body: string) =>
  `#include <stdio.h>\n#include <stdlib.h>\n\nint main(int argc, char **argv) {\n${body.replace(/^/gm, '  ')}\n  return 0;\n}\n`;
const go = (body: string) =>
  `package main\n\nfunc handle(w http.ResponseWriter, r *http.Request, db *sql.DB) {\n${body}\n}\n`;

const CASES: Case[] = [
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
  // XSS
  [
    'security/xss',
    'python',
    py('name = request.args.get("name")\nreturn make_response("<h1>" + name + "</h1>")'),
    py(
      'from html import escape\nname = request.args.get("name")\nreturn make_response("<h1>" + escape(name) + "</h1>")',
    ),
  ],
  [
    'security/xss',
    'javascript',
    js('res.send("<p>" + req.query.q + "</p>");'),
    js('res.send("<p>" + escapeHtml(req.query.q) + "</p>");'),
  ],
  [
    'security/xss',
    'tsx',
    'function show(el: HTMLElement) {\n  const q = location.search;\n  el.innerHTML = q;\n}\n',
    'function show(el: HTMLElement) {\n  const q = location.search;\n  el.textContent = q;\n}\n',
  ],
  [
    'security/xss',
    'java',
    java('String n = request.getParameter("n");\nresponse.getWriter().println("<b>" + n + "</b>");'),
    java(
      'String n = request.getParameter("n");\nresponse.getWriter().println("<b>" + Encode.forHtml(n) + "</b>");',
    ),
  ],
  [
    'security/xss',
    'php',
    php('echo "Hello " . $_GET["name"];'),
    php('echo "Hello " . htmlspecialchars($_GET["name"]);'),
  ],
  // Unsafe deserialization
  [
    'security/unsafe-deserialization',
    'python',
    py('data = request.get_data()\nobj = pickle.loads(request.data)'),
    py('import json\nobj = json.loads(request.data)'),
  ],
  [
    'security/unsafe-deserialization',
    'python',
    py('cfg = yaml.load(request.data)'),
    py('cfg = yaml.load(request.data, Loader=yaml.SafeLoader)'),
  ],
  [
    'security/unsafe-deserialization',
    'java',
    java('ObjectInputStream in = new ObjectInputStream(request.getInputStream());\nin.readObject();'),
    java('String body = request.getParameter("b");\nObjectMapper m = new ObjectMapper();'),
  ],
  [
    'security/unsafe-deserialization',
    'php',
    php('$o = unserialize($_COOKIE["state"]);'),
    php('$o = json_decode($_COOKIE["state"], true);'),
  ],
  // Path traversal
  [
    'security/path-traversal',
    'python',
    py('name = request.args["file"]\nreturn open("/srv/files/" + name).read()'),
    py('name = os.path.basename(request.args["file"])\nreturn open("/srv/files/" + name).read()'),
  ],
  [
    'security/path-traversal',
    'javascript',
    js('fs.readFile("/srv/" + req.params.name, cb);'),
    js('fs.readFile("/srv/" + path.basename(req.params.name), cb);'),
  ],
  [
    'security/path-traversal',
    'java',
    java('File f = new File("/srv/" + request.getParameter("name"));'),
    java('File f = new File("/srv/" + FilenameUtils.getName(request.getParameter("name")));'),
  ],
  [
    'security/path-traversal',
    'php',
    php('include $_GET["page"];'),
    php('include basename($_GET["page"]) . ".php";'),
  ],
  [
    'security/path-traversal',
    'go',
    go('p := r.URL.Query().Get("p")\nos.ReadFile("/srv/" + p)'),
    go('p := filepath.Base(r.URL.Query().Get("p"))\nos.ReadFile("/srv/" + p)'),
  ],
  // SSRF
  [
    'security/ssrf',
    'python',
    py('url = request.args.get("url")\nrequests.get(url)'),
    py('url = request.args.get("url")\nrequests.get("https://api.example.com/items")'),
  ],
  [
    'security/ssrf',
    'javascript',
    js('const r = await fetch(req.query.target);'),
    js('const r = await fetch("https://api.example.com/" + encodeURIComponent(req.query.target));'),
  ],
  [
    'security/ssrf',
    'go',
    go('target := r.FormValue("url")\nhttp.Get(target)'),
    go('target := r.FormValue("url")\n_ = target\nhttp.Get("https://api.example.com/")'),
  ],
  [
    'security/ssrf',
    'php',
    php('$ch = curl_init($_GET["url"]);'),
    php('$ch = curl_init("https://api.example.com/");'),
  ],
  // Open redirect
  [
    'security/open-redirect',
    'python',
    py('return redirect(request.args.get("next"))'),
    py('return redirect("/home")'),
  ],
  ['security/open-redirect', 'javascript', js('res.redirect(req.query.next);'), js('res.redirect("/home");')],
  [
    'security/open-redirect',
    'java',
    java('response.sendRedirect(request.getParameter("next"));'),
    java('response.sendRedirect("/home");'),
  ],
  [
    'security/open-redirect',
    'php',
    php('header("Location: " . $_GET["next"]);'),
    php('header("Location: /home");'),
  ],
  [
    'security/open-redirect',
    'go',
    go('http.Redirect(w, r, r.FormValue("next"), 302)'),
    go('http.Redirect(w, r, "/home", 302)'),
  ],
  [
    'security/sql-injection',
    'ruby',
    rb('User.where("name = \'#{params[:name]}\'")'),
    rb('User.where(name: params[:name])\nUser.where("name = ?", params[:name])'),
  ],
  [
    'security/command-injection',
    'ruby',
    rb('system("ls #{params[:dir]}")'),
    rb('system("ls", params[:dir])\nsystem("ls #{Shellwords.escape(params[:dir])}")'),
  ],
  ['security/code-injection', 'ruby', rb('eval(params[:code])'), rb('JSON.parse(params[:code])')],
  ['security/xss', 'ruby', rb('render inline: "<p>#{params[:q]}</p>"'), rb('render plain: params[:q]')],
  [
    'security/unsafe-deserialization',
    'ruby',
    rb('obj = Marshal.load(cookies[:state])'),
    rb('obj = JSON.parse(cookies[:state])'),
  ],
  [
    'security/path-traversal',
    'ruby',
    rb('send_file "/srv/#{params[:f]}"'),
    rb('send_file "/srv/#{File.basename(params[:f])}"'),
  ],
  [
    'security/ssrf',
    'ruby',
    rb('Net::HTTP.get(URI(params[:url]))'),
    rb('Net::HTTP.get(URI("https://api.example.com/"))'),
  ],
  ['security/open-redirect', 'ruby', rb('redirect_to params[:next]'), rb('redirect_to root_path')],
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
    'security/command-injection',
    'csharp',
    cs('Process.Start("cmd.exe", "/c dir " + Request.Query["d"]);'),
    cs('Process.Start("cmd.exe", "/c dir C:\\\\data");'),
  ],
  [
    'security/xss',
    'csharp',
    cs('Response.Write("<p>" + Request.Query["q"] + "</p>");'),
    cs('Response.Write("<p>" + HttpUtility.HtmlEncode(Request.Query["q"]) + "</p>");'),
  ],
  [
    'security/path-traversal',
    'csharp',
    cs('var text = File.ReadAllText("/srv/" + Request.Query["f"]);'),
    cs('var text = File.ReadAllText("/srv/" + Path.GetFileName(Request.Query["f"]));'),
  ],
  [
    'security/ssrf',
    'csharp',
    cs('var body = await client.GetStringAsync(Request.Query["url"]);'),
    cs('var body = await client.GetStringAsync("https://api.example.com/");'),
  ],
  [
    'security/open-redirect',
    'csharp',
    cs('Response.Redirect(Request.Query["next"]);'),
    cs('Response.Redirect("/home");'),
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
  [
    'security/sql-injection',
    'c',
    cmain(
      'char q[512];\nsprintf(q, "SELECT * FROM t WHERE n = \'%s\'", argv[1]);\nsqlite3_exec(db, q, 0, 0, 0);',
    ),
    cmain('sqlite3_exec(db, "SELECT * FROM t", 0, 0, 0);'),
  ],
  [
    'security/path-traversal',
    'c',
    cmain('FILE *f = fopen(argv[1], "r");'),
    cmain('FILE *f = fopen("/etc/app.conf", "r");'),
  ],
];

async function ruleIds(code: string, language: CodeLanguage): Promise<string[]> {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
  });
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues.map((i) => i.rule_id);
}

describe('taint rules: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of CASES) {
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
