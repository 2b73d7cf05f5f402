/**
 * The dataflow under the taint rules (Java and Python, the languages with a flow adapter): constant conditions and
 * switches, overwrites, collections by key and index, string building, the file's own functions, sanitisers per
 * sink and guards. Each case is a vulnerable and a safe variant of the same code; and what a finding carries.
 */
import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase, ruleIds } from '../helpers/code-analysis';
import { java, py } from '../helpers/taint-handlers';

const P = 'String param = request.getParameter("p");\n';
const J = (body: string) => java(`${P}${body}`);
const Q = (body: string) => py(`param = request.args.get("p")\n${body}`);
const sqlJ = 'stmt.executeQuery("SELECT * FROM t WHERE a = \'" + bar + "\'");';
const sqlP = 'cursor.execute("SELECT * FROM t WHERE a = \'" + bar + "\'")';

const JAVA_CASES: RuleCase[] = [
  [
    'security/sql-injection',
    'java',
    J(`int num = 106;\nString bar = (7 * 42) - num > 200 ? "constant" : param;\n${sqlJ}`),
    J(`int num = 86;\nString bar = (7 * 42) - num > 200 ? "constant" : param;\n${sqlJ}`),
  ],
  [
    'security/sql-injection',
    'java',
    J(
      `String bar = "safe";\nint num = 196;\nif ((500 / 42) + num > 200) bar = param;\nelse bar = "no";\n${sqlJ}`,
    ),
    J(
      `String bar = "safe";\nint num = 196;\nif ((500 / 42) + num < 200) bar = param;\nelse bar = "no";\n${sqlJ}`,
    ),
  ],
  [
    'security/sql-injection',
    'java',
    J(
      `String guess = "ABC";\nchar target = guess.charAt(2);\nString bar;\nswitch (target) {\n  case 'A': bar = "a"; break;\n  case 'C':\n  case 'D': bar = param; break;\n  default: bar = "d"; break;\n}\n${sqlJ}`,
    ),
    J(
      `String guess = "ABC";\nchar target = guess.charAt(1);\nString bar;\nswitch (target) {\n  case 'A': bar = "a"; break;\n  case 'C':\n  case 'D': bar = param; break;\n  default: bar = "d"; break;\n}\n${sqlJ}`,
    ),
  ],
  [
    'security/sql-injection',
    'java',
    J(
      `java.util.HashMap<String, Object> map = new java.util.HashMap<String, Object>();\nmap.put("keyA", "a");\nmap.put("keyB", param);\nString bar = (String) map.get("keyB");\n${sqlJ}`,
    ),
    J(
      `java.util.HashMap<String, Object> map = new java.util.HashMap<String, Object>();\nmap.put("keyA", "a");\nmap.put("keyB", param);\nString bar = (String) map.get("keyA");\n${sqlJ}`,
    ),
  ],
  [
    'security/sql-injection',
    'java',
    J(
      `java.util.List<String> list = new java.util.ArrayList<String>();\nlist.add("safe");\nlist.add(param);\nlist.add("moresafe");\nlist.remove(0);\nString bar = list.get(0);\n${sqlJ}`,
    ),
    J(
      `java.util.List<String> list = new java.util.ArrayList<String>();\nlist.add("safe");\nlist.add(param);\nlist.add("moresafe");\nlist.remove(0);\nString bar = list.get(1);\n${sqlJ}`,
    ),
  ],
  [
    'security/sql-injection',
    'java',
    J(
      `StringBuilder sb = new StringBuilder();\nsb.append("x");\nsb.append(param);\nString bar = sb.toString();\n${sqlJ}`,
    ),
    J(
      `StringBuilder sb = new StringBuilder();\nsb.append("x");\nsb.append("y");\nString bar = sb.toString();\n${sqlJ}`,
    ),
  ],
  [
    'security/sql-injection',
    'java',
    J(`if (param == null) param = "";\nString bar = param;\n${sqlJ}`),
    J(`param = "";\nString bar = param;\n${sqlJ}`),
  ],
  // An HTML encoder makes a value safe for XSS, not for SQL.
  [
    'security/sql-injection',
    'java',
    J(`String bar = org.owasp.esapi.ESAPI.encoder().encodeForHTML(param);\n${sqlJ}`),
    J(`String bar = org.owasp.esapi.ESAPI.encoder().encodeForSQL(codec, param);\n${sqlJ}`),
  ],
  [
    'security/xss',
    'java',
    J('response.getWriter().println("<p>" + param);'),
    J('response.getWriter().println("<p>" + org.owasp.esapi.ESAPI.encoder().encodeForHTML(param));'),
  ],
  [
    'security/ldap-injection',
    'java',
    J(
      'javax.naming.directory.DirContext ctx = manager.getDirContext();\nctx.search("ou=users", "(uid=" + param + ")", controls);',
    ),
    J(
      'javax.naming.directory.DirContext ctx = manager.getDirContext();\nctx.search("ou=users", "(uid=fixed)", controls);',
    ),
  ],
  [
    'security/xpath-injection',
    'java',
    J(
      'javax.xml.xpath.XPath xp = factory.newXPath();\nxp.evaluate("/users/user[@id=\'" + param + "\']", doc);',
    ),
    J('javax.xml.xpath.XPath xp = factory.newXPath();\nxp.evaluate("/users/user[@id=\'1\']", doc);'),
  ],
  [
    'security/trust-boundary',
    'java',
    J('request.getSession().setAttribute("user", param);'),
    J('request.getSession().setAttribute("user", "anonymous");'),
  ],
  [
    'security/path-traversal',
    'java',
    J('java.io.File f = new java.io.File("/srv/files/", param);'),
    J(
      'java.io.File f = new java.io.File("/srv/files/", org.apache.commons.io.FilenameUtils.getName(param));',
    ),
  ],
  [
    'security/command-injection',
    'java',
    J(
      'java.util.List<String> args = new java.util.ArrayList<String>();\nargs.add("sh");\nargs.add("-c");\nargs.add("echo " + param);\nProcessBuilder pb = new ProcessBuilder();\npb.command(args);',
    ),
    J(
      'java.util.List<String> args = new java.util.ArrayList<String>();\nargs.add("sh");\nargs.add("-c");\nargs.add("echo hello");\nProcessBuilder pb = new ProcessBuilder();\npb.command(args);',
    ),
  ],
  [
    'security/weak-cipher',
    'java',
    java(
      'String alg = "DES/CBC/PKCS5Padding";\njavax.crypto.Cipher c = javax.crypto.Cipher.getInstance(alg);',
    ),
    java('String alg = "AES/GCM/NoPadding";\njavax.crypto.Cipher c = javax.crypto.Cipher.getInstance(alg);'),
  ],
  [
    'security/weak-hash',
    'java',
    java(
      'java.util.Properties props = new java.util.Properties();\nString alg = props.getProperty("hashAlg", "MD5");\njava.security.MessageDigest md = java.security.MessageDigest.getInstance(alg);',
    ),
    java(
      'java.util.Properties props = new java.util.Properties();\nprops.load(stream);\nString alg = props.getProperty("hashAlg", "MD5");\njava.security.MessageDigest md = java.security.MessageDigest.getInstance(alg);',
    ),
  ],
  [
    'security/predictable-random',
    'java',
    java('long n = new java.util.Random().nextLong();'),
    java('long n = new java.security.SecureRandom().nextLong();'),
  ],
  [
    'security/insecure-cookie',
    'java',
    java(
      'javax.servlet.http.Cookie c = new javax.servlet.http.Cookie("k", "v");\nc.setSecure(false);\nresponse.addCookie(c);',
    ),
    java(
      'javax.servlet.http.Cookie c = new javax.servlet.http.Cookie("k", "v");\nc.setSecure(true);\nresponse.addCookie(c);',
    ),
  ],
];

/** A class whose helper returns its argument, or a constant. */
const helperJ = (returned: string) =>
  `class C {\n  void handle(HttpServletRequest request, Statement stmt) throws Exception {\n    ${P}    String bar = doSomething(request, param);\n    ${sqlJ}\n  }\n  private static String doSomething(HttpServletRequest request, String param) {\n    String bar = "safe";\n    if (param != null) bar = ${returned};\n    return bar;\n  }\n}\n`;

const PYTHON_CASES: RuleCase[] = [
  [
    'security/sql-injection',
    'python',
    Q(`num = 106\nbar = "constant" if 7 * 18 + num < 200 else param\n${sqlP}`),
    Q(`num = 106\nbar = "constant" if 7 * 18 + num > 200 else param\n${sqlP}`),
  ],
  [
    'security/sql-injection',
    'python',
    Q(`bar = "This should never happen"\nif 'should' in bar:\n    bar = param\n${sqlP}`),
    Q(`bar = "This will never happen"\nif 'should' in bar:\n    bar = param\n${sqlP}`),
  ],
  [
    'security/sql-injection',
    'python',
    Q(
      `possible = "ABC"\nguess = possible[0]\nmatch guess:\n    case 'A':\n        bar = param\n    case _:\n        bar = 'safe'\n${sqlP}`,
    ),
    Q(
      `possible = "ABC"\nguess = possible[1]\nmatch guess:\n    case 'A':\n        bar = param\n    case _:\n        bar = 'safe'\n${sqlP}`,
    ),
  ],
  [
    'security/sql-injection',
    'python',
    Q(`m = {}\nm['a'] = 'x'\nm['b'] = param\nbar = m['b']\n${sqlP}`),
    Q(`m = {}\nm['a'] = 'x'\nm['b'] = param\nbar = m['a']\n${sqlP}`),
  ],
  [
    'security/sql-injection',
    'python',
    Q(
      `lst = []\nlst.append('safe')\nlst.append(param)\nlst.append('more')\nlst.pop(0)\nbar = lst[0]\n${sqlP}`,
    ),
    Q(
      `lst = []\nlst.append('safe')\nlst.append(param)\nlst.append('more')\nlst.pop(0)\nbar = lst[1]\n${sqlP}`,
    ),
  ],
  [
    'security/sql-injection',
    'python',
    Q(
      `import configparser\nconf = configparser.ConfigParser()\nconf.set('s', 'a', 'x')\nconf.set('s', 'b', param)\nbar = conf.get('s', 'b')\n${sqlP}`,
    ),
    Q(
      `import configparser\nconf = configparser.ConfigParser()\nconf.set('s', 'a', 'x')\nconf.set('s', 'b', param)\nbar = conf.get('s', 'a')\n${sqlP}`,
    ),
  ],
  [
    'security/sql-injection',
    'python',
    Q(`bar = ' '.join([param, 'x'])\n${sqlP}`),
    Q(`bar = ' '.join(['y', 'x'])\n${sqlP}`),
  ],
  [
    'security/path-traversal',
    'python',
    Q(`bar = param\nif '..' in 'x':\n    return 'no'\nopen(f'/srv/{bar}')`),
    Q(`bar = param\nif '../' in bar:\n    return 'no'\nopen(f'/srv/{bar}')`),
  ],
  [
    'security/ldap-injection',
    'python',
    Q(`conn.search('ou=users', f'(uid={param})')`),
    Q(`conn.search('ou=users', f'(uid={escape_filter_chars(param)})')`),
  ],
  [
    'security/xpath-injection',
    'python',
    Q(`nodes = root.xpath(f"/users/user[@id='{param}']")`),
    Q(`nodes = root.xpath("/users/user[@id=$id]", id=1)`),
  ],
  [
    'security/trust-boundary',
    'python',
    Q(`flask.session['user'] = param`),
    Q(`flask.session['user'] = 'guest'`),
  ],
  [
    'security/open-redirect',
    'python',
    Q('return flask.redirect(param)'),
    Q("return flask.redirect('/home')"),
  ],
  [
    'security/xxe',
    'python',
    Q(
      'parser = xml.sax.make_parser()\nparser.setFeature(xml.sax.handler.feature_external_ges, True)\ndoc = xml.dom.minidom.parseString(param, parser)',
    ),
    Q('parser = xml.sax.make_parser()\ndoc = xml.dom.minidom.parseString(param, parser)'),
  ],
  ['security/predictable-random', 'python', py('n = random.randint(0, 10)'), py('n = secrets.randbelow(10)')],
  [
    'security/insecure-cookie',
    'python',
    py("resp.set_cookie('k', 'v', secure=False)"),
    py("resp.set_cookie('k', 'v', secure=True, httponly=True)"),
  ],
  ['security/trust-boundary', 'python', Q(`flask.session[param] = '1'`), Q(`flask.session['visits'] = '1'`)],
  [
    'security/open-redirect',
    'python',
    Q(
      "url = urllib.parse.urlparse(param)\nif url.scheme != 'https':\n    return 'no'\nreturn flask.redirect(param)",
    ),
    Q(
      "url = urllib.parse.urlparse(param)\nif url.netloc not in ['example.com']:\n    return 'no'\nreturn flask.redirect(param)",
    ),
  ],
  [
    'security/command-injection',
    'python',
    Q(
      `args = []\nif os.name == 'nt':\n    args.append('cmd.exe')\n    args.append('/c')\nelse:\n    args.append('sh')\n    args.append('-c')\nargs.append(f'echo {param}')\nsubprocess.run(args)`,
    ),
    Q(`args = ['echo', param]\nsubprocess.run(args)`),
  ],
  [
    'security/command-injection',
    'python',
    Q(`subprocess.run(['sh', '-c', 'ls ' + param])`),
    Q(`subprocess.run(['ls', param])`),
  ],
  [
    'security/xpath-injection',
    'python',
    Q(
      `buf = io.StringIO()\nbuf.write("/users/user[@id='")\nbuf.write(param)\nbuf.write("']")\nnodes = elementpath.select(root, buf.getvalue())`,
    ),
    Q(
      `buf = io.StringIO()\nbuf.write("/users/user[@id='1']")\nnodes = elementpath.select(root, buf.getvalue())`,
    ),
  ],
  [
    'security/xpath-injection',
    'python',
    Q(`nodes = elementpath.select(root, f"/users/user[@id='{param.replace('x', 'y')}']")`),
    Q(`nodes = elementpath.select(root, f"/users/user[@id='{param.replace("'", '&apos;')}']")`),
  ],
];

const route = (body: string) =>
  `from flask import request\nimport html\n\n@app.route('/x', methods=['POST'])\ndef x_post():\n${body.replace(/^/gm, '    ')}\n`;

const OTHER_CASES: RuleCase[] = [
  [
    'security/xss',
    'python',
    route("param = request.form.get('p')\nRESPONSE = ''\nRESPONSE += f'Value: {param}'\nreturn RESPONSE"),
    route(
      "param = request.form.get('p')\nRESPONSE = ''\nRESPONSE += f'Value: {html.escape(param)}'\nreturn RESPONSE",
    ),
  ],
  ['security/sql-injection', 'java', helperJ('param'), helperJ('"constant"')],
  [
    'security/predictable-random',
    'javascript',
    'const n = Math.random();\n',
    'const n = crypto.getRandomValues(new Uint32Array(1))[0];\n',
  ],
  [
    'security/insecure-cookie',
    'javascript',
    "res.cookie('sid', id, { httpOnly: true });\n",
    "res.cookie('sid', id, { httpOnly: true, secure: true });\n",
  ],
  // A module's top-level `raise` leaves the statements after it in the file, and they are still read; inside a
  // function the path past a `raise` is dead.
  [
    'security/command-injection',
    'python',
    'import os, sys\nraise SystemExit("run through the CLI")\nos.system("grep " + sys.argv[1])\n',
    'import os, sys\ndef run():\n    raise SystemExit("run through the CLI")\n    os.system("grep " + sys.argv[1])\n',
  ],
];

describe('dataflow: vulnerable and safe variants', () => {
  const cases = [...JAVA_CASES, ...PYTHON_CASES, ...OTHER_CASES];
  cases.forEach(([rule, language, vulnerable, safe], i) => {
    it(`#${i} ${rule} in ${language}: ${safe.split('\n').slice(-3).join(' ').trim().slice(0, 70)}`, async () => {
      expect(await ruleIds(vulnerable, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    });
  });
});

describe('a dataflow finding', () => {
  it('carries the trace from the source to the sink, with positions, and a message naming both', async () => {
    const issues = await findings(J(`String bar = param + "x";\n${sqlJ}`), 'java');
    const f = issues.find((i) => i.rule_id === 'security/sql-injection');
    expect(f).toMatchObject({ cwe: 'CWE-89', confidence: 'high', line: 5 });
    expect(f?.message).toContain('request.getParameter("p")');
    expect(f?.message).toContain('line 3');
    const trace = f?.trace ?? [];
    expect(trace[0]).toMatchObject({ line: 3, note: expect.stringContaining('source') });
    expect(trace.some((s) => s.line === 4 && s.note.startsWith('bar'))).toBe(true);
    expect(trace[trace.length - 1]).toMatchObject({ line: 5, note: expect.stringContaining('sink') });
  });

  it("follows a value through the file's own function and says so", async () => {
    const issues = await findings(helperJ('param'), 'java');
    const f = issues.find((i) => i.rule_id === 'security/sql-injection');
    expect(f?.trace?.some((s) => s.note.includes('doSomething'))).toBe(true);
  });
});

describe('a helper reached from a proven source', () => {
  const cases: [CodeLanguage, string, number, number][] = [
    [
      'javascript',
      'function findUser(db, name) {\n  return db.query("SELECT * FROM users WHERE name = \'" + name + "\'");\n}\n\napp.get(\'/user\', (req, res) => {\n  res.json(findUser(db, req.query.name));\n});\n',
      6,
      2,
    ],
    [
      'python',
      'def find_user(cur, name):\n    cur.execute("SELECT * FROM users WHERE name = \'" + name + "\'")\n    return cur.fetchone()\n\n@app.route("/user")\ndef user():\n    return jsonify(find_user(db.cursor(), request.args.get("name")))\n',
      7,
      2,
    ],
  ];
  for (const [language, code, call, sink] of cases)
    it(`${language}: is one finding, the call's, whose trace ends at the helper's sink`, async () => {
      const sql = (await findings(code, language)).filter((i) => i.rule_id === 'security/sql-injection');
      expect(sql).toMatchObject([{ line: call, confidence: 'high' }]);
      expect(sql[0]?.trace?.at(-1)).toMatchObject({ line: sink, note: expect.stringContaining('sink') });
      // Without the call the helper alone is still reported, at medium confidence.
      const helper = code.split('\n\n')[0] ?? '';
      expect(await findings(helper, language)).toMatchObject([{ line: sink, confidence: 'medium' }]);
    });
});

describe('formatting with numeric conversions only', () => {
  const GO = (format: string, arg: string) =>
    `package main\n\nimport (\n\t"database/sql"\n\t"fmt"\n\t"os"\n)\n\nfunc run(db *sql.DB) {\n\tq := fmt.Sprintf("${format}", ${arg})\n\tdb.Query(q)\n}\n`;

  it('is safe in SQL (%d, %5.2f), unlike %s or %v, in Go, Java and Python', async () => {
    expect(await ruleIds(GO('SELECT * FROM t WHERE id = %d', 'os.Args[1]'), 'go')).toEqual([]);
    expect(await ruleIds(GO('SELECT * FROM t WHERE p > %5.2f', 'os.Args[1]'), 'go')).toEqual([]);
    expect(await ruleIds(GO("SELECT * FROM t WHERE n = '%s'", 'os.Args[1]'), 'go')).toContain(
      'security/sql-injection',
    );
    expect(await ruleIds(GO('SELECT * FROM t WHERE n = %v', 'os.Args[1]'), 'go')).toContain(
      'security/sql-injection',
    );
    expect(
      await ruleIds(J('stmt.executeQuery(String.format("SELECT * FROM t WHERE id = %d", param));'), 'java'),
    ).toEqual([]);
    expect(
      await ruleIds(
        J('stmt.executeQuery(String.format("SELECT * FROM t WHERE n = \'%s\'", param));'),
        'java',
      ),
    ).toContain('security/sql-injection');
    expect(await ruleIds(Q('cursor.execute("SELECT * FROM t WHERE id = %d" % param)'), 'python')).toEqual([]);
    expect(
      await ruleIds(Q('cursor.execute("SELECT * FROM t WHERE n = \'%s\'" % param)'), 'python'),
    ).toContain('security/sql-injection');
  });

  it("lib/pq's quoting makes an identifier safe in Go's SQL text", async () => {
    const code = GO('SELECT * FROM %s', 'pq.QuoteIdentifier(os.Args[1])').replace(
      '"os"',
      '"os"\n\t"github.com/lib/pq"',
    );
    expect(await ruleIds(code, 'go')).toEqual([]);
  });
});

describe('one flow, one sink', () => {
  it('`exec(compile(code, …))` is reported once, at the inner sink; `exec` of a tainted value alone still is', async () => {
    const nested = await findings(Q('exec(compile(param, "<input>", "exec"))'), 'python');
    expect(nested.filter((f) => f.rule_id === 'security/code-injection')).toHaveLength(1);
    expect(await ruleIds(Q('code = compile("x = 1", "<c>", "exec")\nexec(param)'), 'python')).toContain(
      'security/code-injection',
    );
  });
});
