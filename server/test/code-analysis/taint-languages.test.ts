/** Taint tracking in Kotlin, Swift, Scala, Rust and Bash: vulnerable examples fire, safe ones do not. */
import { describe, expect, it } from 'vitest';
import { type RuleCase, ruleIds } from '../helpers/code-analysis';

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

const LANGUAGE_CASES: RuleCase[] = [
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
