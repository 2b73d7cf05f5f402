import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../src/modules/code-analysis/types';

/**
 * Taint tracking in Kotlin, Swift, Scala, Rust and Bash, and parameters as sources in every language:
 * [rule, language, vulnerable code, safe code]; the vulnerable one must fire the rule, the safe one must not.
 */
type Case = [string, CodeLanguage, string, string];

const indent = (body: string, by: string) => body.replace(/^/gm, by);
const kt = (body: string) =>
  `fun handle(request: HttpServletRequest, response: HttpServletResponse, stmt: Statement) {\n${indent(body, '    ')}\n}\n`;
const ktor = (body: string) =>
  `fun Route.routes() {\n    get("/x") {\n${indent(body, '        ')}\n    }\n}\n`;
const swift = (body: string) =>
  `func handle(req: Request, db: Database) throws {\n${indent(body, '    ')}\n}\n`;
const scala = (body: string) =>
  `object C {\n  def handle(request: Request[AnyContent], stmt: Statement): Result = {\n${indent(body, '    ')}\n    Ok("")\n  }\n}\n`;
const rs = (body: string) => `fn handle(req: HttpRequest, conn: &Connection) {\n${indent(body, '    ')}\n}\n`;
const sh = (body: string) => `#!/bin/bash\nset -eu\n${body}\n`;

const LANGUAGE_CASES: Case[] = [
  // Kotlin
  [
    'security/sql-injection',
    'kotlin',
    kt('val id = request.getParameter("id")\nstmt.executeQuery("SELECT * FROM t WHERE id = " + id)'),
    kt('val id = request.getParameter("id").toInt()\nstmt.executeQuery("SELECT * FROM t WHERE id = $id")'),
  ],
  [
    'security/command-injection',
    'kotlin',
    kt('val host = request.getParameter("host")\nRuntime.getRuntime().exec("ping $host")'),
    kt(
      'val host = request.getParameter("host")\nRuntime.getRuntime().exec(arrayOf("ping", "-c", "1", "localhost"))',
    ),
  ],
  [
    'security/path-traversal',
    'kotlin',
    kt('val name = request.getParameter("f")\nval text = File("/srv/" + name).readText()'),
    kt(
      'val name = FilenameUtils.getName(request.getParameter("f"))\nval text = File("/srv/" + name).readText()',
    ),
  ],
  [
    'security/xss',
    'kotlin',
    ktor('val q = call.parameters["q"]\ncall.respondText("<p>$q</p>", ContentType.Text.Html)'),
    ktor('val q = call.parameters["q"]\ncall.respondText("<p>$q</p>", ContentType.Text.Plain)'),
  ],
  [
    'security/open-redirect',
    'kotlin',
    ktor('call.respondRedirect(call.request.queryParameters["next"] ?: "/")'),
    ktor('call.respondRedirect("/home")'),
  ],
  [
    'security/ssrf',
    'kotlin',
    kt('val target = request.getParameter("url")\nval body = URL(target).readText()'),
    kt('val target = request.getParameter("url")\nval body = URL("https://api.example.com/").readText()'),
  ],
  // Swift
  [
    'security/sql-injection',
    'swift',
    swift(
      'let id: String = try req.query.get(at: "id")\ntry db.raw("SELECT * FROM t WHERE id = " + id).run()',
    ),
    swift('let id = Int(try req.query.get(at: "id"))\ntry db.raw("SELECT * FROM t WHERE id = \\(id)").run()'),
  ],
  [
    'security/command-injection',
    'swift',
    swift('let dir = req.query["dir"]\nlet p = Process()\np.arguments = ["-c", "ls " + dir]'),
    swift('let dir = req.query["dir"]\nlet p = Process()\np.arguments = ["-la", "/srv"]'),
  ],
  [
    'security/path-traversal',
    'swift',
    swift('let name = req.query["f"]\nlet text = try String(contentsOfFile: "/srv/" + name)'),
    swift(
      'let name = (req.query["f"] as NSString).lastPathComponent\nlet text = try String(contentsOfFile: "/srv/" + name)',
    ),
  ],
  [
    'security/ssrf',
    'swift',
    swift('let target = req.query["url"]\nlet url = URL(string: target)'),
    swift('let target = req.query["url"]\nlet url = URL(string: "https://api.example.com/")'),
  ],
  [
    'security/open-redirect',
    'swift',
    swift('let next = req.query["next"]\nreturn req.redirect(to: next)'),
    swift('return req.redirect(to: "/home")'),
  ],
  // Scala
  [
    'security/sql-injection',
    'scala',
    scala('val id = request.getQueryString("id")\nstmt.executeQuery(s"SELECT * FROM t WHERE id = $id")'),
    scala(
      'val id = request.getQueryString("id").toInt\nstmt.executeQuery(s"SELECT * FROM t WHERE id = $id")',
    ),
  ],
  [
    'security/command-injection',
    'scala',
    scala('val host = request.getQueryString("host")\nval out = s"ping -c 1 $host".!!'),
    scala('val host = request.getQueryString("host")\nval out = "ping -c 1 localhost".!!'),
  ],
  [
    'security/path-traversal',
    'scala',
    scala('val name = request.getQueryString("f")\nval text = Source.fromFile("/srv/" + name).mkString'),
    scala(
      'val name = FilenameUtils.getName(request.getQueryString("f"))\nval text = Source.fromFile("/srv/" + name).mkString',
    ),
  ],
  [
    'security/xss',
    'scala',
    scala('val q = request.getQueryString("q")\nval page = Html("<p>" + q + "</p>")'),
    scala('val q = request.getQueryString("q")\nval page = Html("<p>" + HtmlFormat.escape(q) + "</p>")'),
  ],
  [
    'security/open-redirect',
    'scala',
    scala('val next = request.getQueryString("next")\nRedirect(next)'),
    scala('Redirect("/home")'),
  ],
  // Rust
  [
    'security/sql-injection',
    'rust',
    rs(
      'let id = req.query_string();\nlet q = format!("SELECT * FROM t WHERE id = {}", id);\nconn.execute(&q, []);',
    ),
    rs('let id = req.query_string();\nconn.execute("SELECT * FROM t WHERE id = ?1", [id]);'),
  ],
  [
    'security/command-injection',
    'rust',
    rs('let dir = req.query_string();\nCommand::new("sh").arg("-c").arg(format!("ls {}", dir)).output();'),
    rs('let dir = req.query_string();\nCommand::new("ls").arg("--").arg(dir).output();'),
  ],
  [
    'security/path-traversal',
    'rust',
    rs(
      'let name = std::env::var("FILE").unwrap();\nlet text = fs::read_to_string(format!("/srv/{}", name));',
    ),
    rs(
      'let name = std::env::var("FILE").unwrap();\nlet base = Path::new(&name).file_name();\nlet text = fs::read_to_string("/srv/data.txt");',
    ),
  ],
  [
    'security/ssrf',
    'rust',
    rs(
      'let mut target = String::new();\nio::stdin().read_line(&mut target);\nlet body = reqwest::blocking::get(&target);',
    ),
    rs(
      'let mut target = String::new();\nio::stdin().read_line(&mut target);\nlet body = reqwest::blocking::get("https://api.example.com/");',
    ),
  ],
  [
    'security/open-redirect',
    'rust',
    'async fn go(Query(q): Query<Params>) -> Redirect {\n    Redirect::to(&q.next)\n}\n',
    'async fn go(Query(q): Query<Params>) -> Redirect {\n    Redirect::to("/home")\n}\n',
  ],
  // Bash
  ['security/command-injection', 'bash', sh('eval "ls $1"'), sh('ls -- "$1"')],
  [
    'security/command-injection',
    'bash',
    sh('handle() {\n  local dir="$1"\n  bash -c "ls $dir"\n}'),
    sh('handle() {\n  local n=$(( $1 + 0 ))\n  bash -c "seq $n"\n}'),
  ],
  [
    'security/command-injection',
    'bash',
    sh('read -r name\neval "echo $name"'),
    sh('read -r name\necho "$name"'),
  ],
  ['security/code-injection', 'bash', sh('source "$1"'), sh('source /etc/app.conf')],
  [
    'security/sql-injection',
    'bash',
    sh('mysql -u app -e "DELETE FROM t WHERE name = \'$1\'" appdb'),
    sh('mysql -u app -e "DELETE FROM t WHERE created < NOW()" appdb'),
  ],
];

/** Parameters as sources: named like input, bound to the request by annotations, or URL captures of a handler. */
const PARAMETER_CASES: Case[] = [
  [
    'security/code-injection',
    'python',
    'def run(payload):\n    return eval(payload)\n',
    'def run(payload: int):\n    return eval("1 + 1")\n',
  ],
  [
    'security/path-traversal',
    'python',
    '@app.route("/files/<name>")\ndef download(name):\n    return open("/srv/" + name).read()\n',
    '@app.route("/files/<int:num>")\ndef download(num: int):\n    return open("/srv/%d.txt" % num).read()\n',
  ],
  [
    'security/path-traversal',
    'python',
    'def download(request, name):\n    return open("/srv/" + name).read()\n',
    'def download(path_name):\n    return open("/srv/" + path_name).read()\n',
  ],
  [
    'security/sql-injection',
    'python',
    'class UserView(APIView):\n    def get(self, request, slug):\n        return User.objects.raw("SELECT * FROM u WHERE slug = \'%s\'" % slug)\n',
    'class UserView(APIView):\n    def get(self, request, pk: int):\n        return User.objects.raw("SELECT * FROM u WHERE id = %s" % pk)\n',
  ],
  [
    'security/code-injection',
    'javascript',
    'function calc(input) {\n  return eval(input);\n}\n',
    'function calc(total) {\n  return eval("1 + 1") + total;\n}\n',
  ],
  [
    'security/sql-injection',
    'javascript',
    'function save({ id, body }) {\n  return db.query("UPDATE t SET v = \'" + body + "\' WHERE id = 1");\n}\n',
    'function save({ id, body }) {\n  return db.query("UPDATE t SET v = 1 WHERE id = " + id);\n}\n',
  ],
  [
    'security/sql-injection',
    'typescript',
    'class C {\n  find(@Query("name") name: string) {\n    return this.db.query("SELECT * FROM t WHERE n = \'" + name + "\'");\n  }\n}\n',
    'class C {\n  find(@Query("id") id: number) {\n    return this.db.query("SELECT * FROM t WHERE id = " + id);\n  }\n}\n',
  ],
  [
    'security/sql-injection',
    'java',
    'class C {\n  List<Row> find(@RequestParam String name) {\n    return jdbc.execute("SELECT * FROM t WHERE n = \'" + name + "\'");\n  }\n}\n',
    'class C {\n  List<Row> find(@RequestParam long id) {\n    return jdbc.execute("SELECT * FROM t WHERE id = " + id);\n  }\n}\n',
  ],
  [
    'security/sql-injection',
    'kotlin',
    'fun find(@RequestParam name: String): List<Row> {\n    return jdbc.execute("SELECT * FROM t WHERE n = \'" + name + "\'")\n}\n',
    'fun find(@RequestParam id: Long): List<Row> {\n    return jdbc.execute("SELECT * FROM t WHERE id = " + id)\n}\n',
  ],
  [
    'security/command-injection',
    'csharp',
    'class C {\n  public void Run([FromQuery] string host) {\n    Process.Start("ping", host);\n  }\n}\n',
    'class C {\n  public void Run([FromQuery] int count) {\n    Process.Start("ping", "-n " + count + " localhost");\n  }\n}\n',
  ],
  [
    'security/command-injection',
    'go',
    'package main\n\nfunc run(input string) {\n\texec.Command("sh", "-c", input).Run()\n}\n',
    'package main\n\nfunc run(name string) {\n\texec.Command("sh", "-c", "ls /srv").Run()\n}\n',
  ],
  [
    'security/command-injection',
    'php',
    '<?php\nfunction run($input) {\n  system("ls " . $input);\n}\n',
    '<?php\nfunction run(int $input) {\n  system("ls /srv");\n}\n',
  ],
  [
    'security/command-injection',
    'scala',
    'object Main {\n  def main(args: Array[String]): Unit = {\n    ("ls " + args(0)).!\n  }\n}\n',
    'object Main {\n  def list(args: Array[String]): Unit = {\n    ("ls " + args(0)).!\n  }\n}\n',
  ],
  [
    'security/sql-injection',
    'rust',
    'async fn find(web::Query(q): web::Query<Search>, conn: &Connection) {\n    conn.execute(&format!("SELECT * FROM t WHERE n = \'{}\'", q.name), []);\n}\n',
    'async fn find(web::Path(id): web::Path<i64>, conn: &Connection) {\n    conn.execute(&format!("SELECT * FROM t WHERE id = {}", id), []);\n}\n',
  ],
  [
    'security/xss',
    'swift',
    'func show(body: String, view: WKWebView) {\n    view.loadHTMLString(body, baseURL: nil)\n}\n',
    'func show(title: String, view: WKWebView) {\n    view.loadHTMLString("<p>Hello</p>", baseURL: nil)\n}\n',
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

describe('taint tracking in Kotlin, Swift, Scala, Rust and Bash', () => {
  for (const [rule, language, vulnerable, safe] of LANGUAGE_CASES) {
    it(`${rule} in ${language}: ${vulnerable
      .split('\n')
      .find((l) => /\(|=|\$/.test(l))
      ?.trim()
      .slice(0, 50)}`, async () => {
      expect(await ruleIds(vulnerable, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    });
  }
});

describe('parameters as taint sources', () => {
  for (const [rule, language, vulnerable, safe] of PARAMETER_CASES) {
    it(`${rule} in ${language}: ${vulnerable.split('\n')[0]?.slice(0, 60)}`, async () => {
      expect(await ruleIds(vulnerable, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    });
  }

  it('the finding names the parameter as the source', async () => {
    const r = await analyzeSource({
      code: 'def run(payload):\n    return eval(payload)\n',
      language: 'python',
      filename: undefined,
      analysisType: 'security',
      thresholds: DEFAULT_THRESHOLDS,
    });
    const f = r.issues.find((i) => i.rule_id === 'security/code-injection');
    expect(f).toMatchObject({ line: 2, cwe: 'CWE-95' });
    expect(f?.message).toContain('parameter payload');
    expect(f?.message).toContain('line 1');
  });
});
