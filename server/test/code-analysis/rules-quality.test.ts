/**
 * Code-quality rules with a CWE: exceptions, blocks and switches, comparisons fixed by their types, the JVM's object
 * contracts, marker comments, session and cookie lifetimes, and conditions the dataflow folds. Each buggy example
 * fires its rule, the fixed one does not.
 */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

const java = (body: string, members = '') =>
  `class Account {\n  ${members}\n  void run(int n, String s) throws java.io.IOException {\n    ${body}\n  }\n}\n`;

const CASES: RuleCase[] = [
  [
    'bug/return-in-finally',
    'java',
    java('try { load(); } finally { if (n > 0) { return; } }'),
    java('try { load(); } finally { close(); }'),
  ],
  [
    'bug/return-in-finally',
    'python',
    'def f():\n    try:\n        g()\n    finally:\n        return 1\n',
    'def f():\n    try:\n        g()\n    finally:\n        close()\n    return 1\n',
  ],
  [
    'bug/return-in-finally',
    'kotlin',
    'fun f(): Int {\n  try {\n    g()\n  } finally {\n    return 1\n  }\n}\n',
    'fun f(): Int {\n  try {\n    g()\n  } finally {\n    items.forEach { if (it.done) return@forEach; close(it) }\n  }\n  return 1\n}\n',
  ],
  [
    'bug/return-in-finally',
    'ruby',
    'def f\n  g\nensure\n  return 1\nend\n',
    'def f\n  g\nensure\n  close\nend\n',
  ],
  [
    'bug/catch-generic-exception',
    'java',
    java('try { load(); } catch (Exception e) { log(e); }'),
    java('try { load(); } catch (java.io.IOException e) { log(e); }'),
  ],
  [
    'bug/catch-generic-exception',
    'csharp',
    'class A { void F() { try { G(); } catch (Exception e) { Log(e); } } }',
    'class A { void F() { try { G(); } catch (IOException e) { Log(e); } } }',
  ],
  [
    'bug/catch-null-pointer',
    'java',
    java('try { s.trim(); } catch (NullPointerException e) { log(e); }'),
    java('if (s != null) { s.trim(); }'),
  ],
  [
    'bug/generic-exception-thrown',
    'java',
    java('if (n < 0) throw new RuntimeException("negative");'),
    java('if (n < 0) throw new IllegalArgumentException("negative");'),
  ],
  [
    'bug/empty-block',
    'java',
    java('for (int i = 0; i < n; i++) {\n    }'),
    java('for (int i = 0; i < n; i++) { step(i); }'),
  ],
  ['bug/empty-block', 'javascript', 'if (ready) {} else { start(); }', 'if (!ready) { start(); }'],
  [
    'bug/ignored-failure',
    'java',
    java(
      'java.io.File dir = new java.io.File("out");\n    if (!dir.mkdirs()) {\n      // could not create it\n    }',
    ),
    java(
      'java.io.File dir = new java.io.File("out");\n    if (!dir.mkdirs()) {\n      throw new java.io.IOException("cannot create out");\n    }',
    ),
  ],
  [
    'bug/misleading-if',
    'java',
    java('if (n == 0)\n      log(s);\n      reset();'),
    java('if (n == 0) {\n      log(s);\n      reset();\n    }'),
  ],
  ['bug/misleading-if', 'java', java('if (n == 0); { reset(); }'), java('if (n == 0) { reset(); }')],
  ['bug/misleading-if', 'javascript', 'if (n === 0) log(s); reset();', 'if (n === 0) log(s);\nreset();'],
  [
    'bug/switch-without-default',
    'java',
    java('switch (n) { case 0: s = "zero"; break; case 1: s = "one"; break; }'),
    java('switch (n) { case 0: s = "zero"; break; default: s = "many"; }'),
  ],
  [
    'bug/switch-without-default',
    'c',
    'int f(int n) { switch (n) { case 0: return 1; case 1: return 2; } return 0; }',
    'int f(int n) { switch (n) { case 0: return 1; default: return 2; } }',
  ],
  [
    'bug/switch-fall-through',
    'java',
    java('switch (n) { case 0: s = "zero"; case 1: s = "one"; break; default: break; }'),
    java('switch (n) { case 0: s = "zero"; break; case 1: s = "one"; break; default: break; }'),
  ],
  [
    'bug/assignment-in-condition',
    'java',
    java('boolean done = false;\n    if (done = true) { reset(); }'),
    java('boolean done = false;\n    if (done) { reset(); }'),
  ],
  [
    'bug/always-false-comparison',
    'java',
    java('if (n < Integer.MIN_VALUE) { reset(); }'),
    java('if (n < 0) { reset(); }'),
  ],
  [
    'bug/always-false-comparison',
    'go',
    'package m\nfunc f(n int) bool { return n == n-1 }\n',
    'package m\nfunc f(n, m int) bool { return n == m-1 }\n',
  ],
  [
    'bug/always-true-comparison',
    'csharp',
    'class A { bool F(int n) { return n <= int.MaxValue; } }',
    'class A { bool F(int n) { return n <= 100; } }',
  ],
  [
    'bug/constant-condition',
    'java',
    java('String mode = "fast";\n    if (mode.equals("slow")) { reset(); }'),
    java('if (s.equals("slow")) { reset(); }'),
  ],
  [
    'bug/constant-condition',
    'java',
    java('if (limit == 5) { reset(); }', 'private int limit = 5;'),
    java('if (limit == 5) { reset(); }', 'private int limit = 5;\n  void raise() { limit++; }'),
  ],
  [
    'bug/constant-condition',
    'python',
    'def f():\n    retries = 3\n    if retries > 5:\n        g()\n',
    'def f(retries):\n    if retries > 5:\n        g()\n',
  ],
  [
    'bug/finalize-without-super',
    'java',
    'class R { protected void finalize() throws Throwable { release(); } }',
    'class R { protected void finalize() throws Throwable { try { release(); } finally { super.finalize(); } } }',
  ],
  [
    'bug/explicit-finalize',
    'java',
    java('Account a = new Account();\n    a.finalize();'),
    java('Account a = new Account();\n    a.close();'),
  ],
  [
    'bug/clone-without-super',
    'java',
    'class P implements Cloneable { public Object clone() { /* not super.clone() */ return new P(); } }',
    'class P implements Cloneable { public Object clone() throws CloneNotSupportedException { return super.clone(); } }',
  ],
  [
    'bug/empty-synchronized',
    'java',
    java('synchronized (this) {\n      // guarded\n    }'),
    java('synchronized (this) { n++; }'),
  ],
  [
    'bug/class-compared-by-name',
    'java',
    java('Object o = load();\n    if (o.getClass().getName().equals("com.acme.Plugin")) { reset(); }'),
    java('Object o = load();\n    if (o instanceof Runnable) { reset(); }'),
  ],
  [
    'bug/mutable-public-static-field',
    'java',
    'class C { public static String mode = "a"; }',
    'class C { public static final String MODE = "a"; }',
  ],
  [
    'bug/public-static-array',
    'java',
    'class C { public static final int[] SIZES = {1, 2}; }',
    'class C { private static final int[] SIZES = {1, 2}; }',
  ],
  [
    'bug/public-static-mutable-object',
    'java',
    'class C { public static final java.util.Date EPOCH = new java.util.Date(0); }',
    'class C { public static final long EPOCH = 0L; }',
  ],
  [
    'bug/process-exit',
    'java',
    java('if (n < 0) System.exit(2);'),
    java('if (n < 0) throw new IllegalStateException("negative");'),
  ],
  [
    'bug/suspicious-comment',
    'python',
    'def f():\n    # FIXME: breaks on empty input\n    return 1\n',
    'def f():\n    # empty input returns 1\n    return 1\n',
  ],
  [
    'bug/suspicious-comment',
    'java',
    java('/* HACK: retry until it works */\n    reset();'),
    java('/* retry once */\n    reset();'),
  ],
  [
    'bug/unchecked-return-value',
    'java',
    java(
      'byte[] buf = new byte[16];\n    java.io.InputStream in = new java.io.FileInputStream("a.bin");\n    in.read(buf);',
    ),
    java(
      'byte[] buf = new byte[16];\n    java.io.InputStream in = new java.io.FileInputStream("a.bin");\n    if (in.read(buf) < buf.length) { throw new java.io.EOFException(); }',
    ),
  ],
  [
    'bug/unchecked-return-value',
    'java',
    java('new java.io.File("tmp").delete();'),
    java('if (!new java.io.File("tmp").delete()) { log("tmp kept"); }'),
  ],
  [
    'bug/deprecated-api',
    'java',
    java('log(java.net.URLEncoder.encode(s));'),
    java('log(java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8));'),
  ],
  ['bug/unused-variable', 'java', java('int total = n * 2;'), java('int total = n * 2;\n    log(total);')],
];

const NULLS: RuleCase[] = [
  [
    'bug/null-dereference',
    'java',
    java('String name = null;\n    if (n > 3) { log(name.trim()); }'),
    java('String name = null;\n    if (name != null) { log(name.trim()); }'),
  ],
  [
    'bug/null-dereference',
    'python',
    'def f(rows):\n    conn = None\n    return conn.cursor()\n',
    'def f(rows, connect):\n    conn = None\n    conn = connect()\n    return conn.cursor()\n',
  ],
  [
    'bug/null-dereference',
    'java',
    java('show(null);', 'void show(String label) { log(label.trim()); }'),
    java('show(null);', 'void show(String label) { if (label != null) { log(label.trim()); } }'),
  ],
  [
    'bug/null-dereference',
    'java',
    java('String label = lookup();\n    log(label.trim());', 'static String lookup() { return null; }'),
    java('String label = lookup();\n    log(label.trim());', 'static String lookup() { return "none"; }'),
  ],
  [
    'bug/null-dereference',
    'java',
    java('int[] sizes = null;\n    log(sizes.length);'),
    java('int[] sizes = new int[3];\n    log(sizes.length);'),
  ],
];

const SECURITY: RuleCase[] = [
  [
    'security/hardcoded-password',
    'java',
    java(
      'java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:mysql://db/app", "app", "hunter2");',
    ),
    java(
      'java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:mysql://db/app", "app", System.getenv("DB_PASSWORD"));',
    ),
  ],
  [
    'security/hardcoded-password',
    'java',
    java(
      'String pw = "s3cret!";\n    java.net.PasswordAuthentication a = new java.net.PasswordAuthentication("svc", pw.toCharArray());',
    ),
    java(
      'char[] pw = System.console().readPassword();\n    java.net.PasswordAuthentication a = new java.net.PasswordAuthentication("svc", pw);',
    ),
  ],
  [
    'security/hardcoded-password',
    'java',
    java(
      'connect("hunter2");',
      'void connect(String pw) throws java.sql.SQLException { java.sql.DriverManager.getConnection("jdbc:h2:mem:x", "sa", pw); }',
    ),
    java(
      'connect(System.getenv("DB_PASSWORD"));',
      'void connect(String pw) throws java.sql.SQLException { java.sql.DriverManager.getConnection("jdbc:h2:mem:x", "sa", pw); }',
    ),
  ],
  [
    'security/hardcoded-key',
    'java',
    java(
      'String key = "0123456789abcdef";\n    javax.crypto.spec.SecretKeySpec k = new javax.crypto.spec.SecretKeySpec(key.getBytes("UTF-8"), "AES");',
    ),
    java(
      'byte[] key = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("/etc/app/key"));\n    javax.crypto.spec.SecretKeySpec k = new javax.crypto.spec.SecretKeySpec(key, "AES");',
    ),
  ],
  [
    'security/fixed-seed',
    'java',
    java(
      'java.security.SecureRandom r = new java.security.SecureRandom();\n    r.setSeed(42L);\n    log(r.nextInt());',
    ),
    java('java.security.SecureRandom r = new java.security.SecureRandom();\n    log(r.nextInt());'),
  ],
  [
    'security/session-never-expires',
    'java',
    java(
      'javax.servlet.http.HttpSession session = request.getSession();\n    session.setMaxInactiveInterval(-1);',
    ),
    java(
      'javax.servlet.http.HttpSession session = request.getSession();\n    session.setMaxInactiveInterval(30 * 60);',
    ),
  ],
  [
    'security/persistent-cookie',
    'java',
    java(
      'javax.servlet.http.Cookie c = new javax.servlet.http.Cookie("pref", "x");\n    c.setMaxAge(60 * 60 * 24 * 365 * 10);',
    ),
    java(
      'javax.servlet.http.Cookie c = new javax.servlet.http.Cookie("pref", "x");\n    c.setMaxAge(60 * 60);',
    ),
  ],
  [
    'security/persistent-cookie',
    'python',
    'def view(resp):\n    resp.set_cookie("pref", "x", max_age=10 * 365 * 24 * 3600)\n',
    'def view(resp):\n    resp.set_cookie("pref", "x", max_age=3600)\n',
  ],
  [
    'security/stack-trace-exposure',
    'java',
    java('try { load(); } catch (java.io.IOException e) { e.printStackTrace(); }'),
    java('try { load(); } catch (java.io.IOException e) { LOG.warn("load failed", e); }'),
  ],
];

describe('quality rules', () => {
  it.each(CASES)('%s in %s', async (rule, language, buggy, fixed) => {
    expect((await findings(buggy, language, 'bugs')).map((f) => f.rule_id)).toContain(rule);
    expect((await findings(fixed, language, 'bugs')).map((f) => f.rule_id)).not.toContain(rule);
  });
  it.each(NULLS)('%s in %s', async (rule, language, buggy, fixed) => {
    expect((await findings(buggy, language, 'bugs')).map((f) => f.rule_id)).toContain(rule);
    expect((await findings(fixed, language, 'bugs')).map((f) => f.rule_id)).not.toContain(rule);
  });
  it.each(SECURITY)('%s in %s', async (rule, language, vulnerable, safe) => {
    expect((await findings(vulnerable, language)).map((f) => f.rule_id)).toContain(rule);
    expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
  });
  it('each finding carries its CWE', async () => {
    const issues = await findings(java('try { load(); } finally { return; }'), 'java', 'bugs');
    expect(issues.find((f) => f.rule_id === 'bug/return-in-finally')?.cwe).toBe('CWE-584');
  });
});
