/**
 * Rules that look around the node they match (`rules/scoped.ts`): thread misuse, object contracts, operator and
 * return-value mistakes, credentials in written HTML, sensitive values in logs, endless loops, code after a
 * redirect, failing assertions, ports bound twice. Each vulnerable example fires its rule (with its CWE, on the
 * expected line), the fixed one does not.
 */
import { describe, it } from 'vitest';
import { expectPlacedCase, javaClass, type PlacedCase, SERVLET_PARAMS } from '../helpers/code-analysis';

const java = javaClass('Account');
const servlet = (body: string) => java(body, '', SERVLET_PARAMS);

const CASES: PlacedCase[] = [
  [
    'bug/thread-run-called',
    'CWE-572',
    'java',
    java('Thread t = new Thread(() -> work());\n    t.run();'),
    5,
    java('Thread t = new Thread(() -> work());\n    t.start();'),
  ],
  [
    'security/thread-in-servlet',
    'CWE-383',
    'java',
    servlet('Thread t = new Thread(() -> work());\n    t.start();'),
    4,
    java('Thread t = new Thread(() -> work());\n    t.start();'),
  ],
  [
    'bug/equals-without-hashcode',
    'CWE-581',
    'java',
    'class Money {\n  int cents;\n  public boolean equals(Object o) { return o instanceof Money && ((Money) o).cents == cents; }\n}\n',
    3,
    'class Money {\n  int cents;\n  public boolean equals(Object o) { return o instanceof Money && ((Money) o).cents == cents; }\n  public int hashCode() { return cents; }\n}\n',
  ],
  [
    'bug/equals-without-hashcode',
    'CWE-581',
    'csharp',
    'class Money {\n  int cents;\n  public override bool Equals(object o) { return o is Money m && m.cents == cents; }\n}\n',
    3,
    'class Money {\n  int cents;\n  public override bool Equals(object o) { return o is Money m && m.cents == cents; }\n  public override int GetHashCode() { return cents; }\n}\n',
  ],
  [
    'security/overridable-clone',
    'CWE-491',
    'java',
    'class Wallet implements Cloneable {\n  private int[] keys;\n  protected Object clone() throws CloneNotSupportedException { return super.clone(); }\n}\n',
    3,
    'class Wallet implements Cloneable {\n  private int[] keys;\n  protected final Object clone() throws CloneNotSupportedException { return super.clone(); }\n}\n',
  ],
  [
    'bug/string-reference-comparison',
    'CWE-597',
    'java',
    java('String a = read();\n    String b = read();\n    if (a == b) { log(); }'),
    6,
    java('String a = read();\n    String b = read();\n    if (a.equals(b) || a == null) { log(); }'),
  ],
  [
    'bug/c-string-pointer-comparison',
    'CWE-597',
    'c',
    'int is_admin(const char *role) {\n    if (role == "admin") return 1;\n    return 0;\n}\n',
    2,
    'int is_admin(const char *role) {\n    if (role != NULL && strcmp(role, "admin") == 0) return 1;\n    return 0;\n}\n',
  ],
  [
    'security/non-reentrant-function',
    'CWE-676',
    'c',
    'void fields(char *line) {\n    for (char *f = strtok(line, ","); f; f = strtok(NULL, ",")) emit(f);\n}\n',
    2,
    'void fields(char *line) {\n    char *save;\n    for (char *f = strtok_r(line, ",", &save); f; f = strtok_r(NULL, ",", &save)) emit(f);\n}\n',
  ],
  [
    'bug/comparison-instead-of-assignment',
    'CWE-482',
    'java',
    java('boolean ready = false;\n    if ((ready == check()) == true) { log(); }'),
    5,
    java('boolean ready = false;\n    if ((ready = check()) == true) { log(); }'),
  ],
  [
    'bug/incorrect-return-check',
    'CWE-253',
    'java',
    java(
      'java.io.InputStream in = open();\n    byte[] buf = new byte[64];\n    if (in.read(buf) == 0) { log(); }',
    ),
    6,
    java(
      'java.io.InputStream in = open();\n    byte[] buf = new byte[64];\n    if (in.read(buf) == -1) { log(); }',
    ),
  ],
  [
    'bug/incorrect-return-check',
    'CWE-253',
    'javascript',
    'function has(s) {\n  return s.indexOf("x") > 0;\n}\n',
    2,
    'function has(s) {\n  return s.indexOf("x") >= 0;\n}\n',
  ],
  [
    'security/secret-in-html-comment',
    'CWE-615',
    'java',
    servlet('response.getWriter().println("<!-- db password = hunter2 --><form method=post>");'),
    4,
    servlet('response.getWriter().println("<!-- login form --><form method=post>");'),
  ],
  [
    'security/password-field-unmasked',
    'CWE-549',
    'python',
    'def page():\n    return \'<input name="password" type="text">\'\n',
    2,
    'def page():\n    return \'<input name="password" type="password">\'\n',
  ],
  [
    'security/password-form-get',
    'CWE-598',
    'java',
    servlet(
      'response.getWriter().println("<form method=\\"get\\" action=\\"/login\\">");\n    response.getWriter().println("<input name=\\"pw\\" type=\\"password\\">");',
    ),
    4,
    servlet(
      'response.getWriter().println("<form method=\\"post\\" action=\\"/login\\">");\n    response.getWriter().println("<input name=\\"pw\\" type=\\"password\\">");',
    ),
  ],
  [
    'security/login-form-cleartext',
    'CWE-523',
    'php',
    "<?php\nfunction login() {\n  echo \"<form action='http://shop.example.com/login' method='post'>\";\n  echo \"<input type='password' name='pw'>\";\n}\n",
    3,
    "<?php\nfunction login() {\n  echo \"<form action='https://shop.example.com/login' method='post'>\";\n  echo \"<input type='password' name='pw'>\";\n}\n",
  ],
  [
    'security/session-id-logged',
    'CWE-533',
    'java',
    servlet(
      'javax.servlet.http.HttpSession session = request.getSession(true);\n    log("user in session " + session.getId());',
    ),
    5,
    servlet('javax.servlet.http.HttpSession session = request.getSession(true);\n    log("user logged in");'),
  ],
  [
    'security/session-id-logged',
    'CWE-534',
    'java',
    servlet('logger.debug("session " + request.getSession().getId());'),
    4,
    servlet('logger.debug("session started");'),
  ],
  [
    'security/environment-in-response',
    'CWE-526',
    'java',
    servlet('response.getWriter().println("path: " + System.getenv("PATH"));'),
    4,
    servlet('response.getWriter().println("path: hidden");'),
  ],
  [
    'bug/infinite-loop',
    'CWE-835',
    'java',
    java('int i = 0;\n    while (true) {\n      i++;\n    }'),
    5,
    java('int i = 0;\n    while (true) {\n      if (++i > 10) break;\n    }'),
  ],
  [
    'bug/infinite-loop',
    'CWE-835',
    'csharp',
    'class A {\n  void F() {\n    for (;;) {\n      G();\n    }\n  }\n}\n',
    3,
    'class A {\n  void F() {\n    for (;;) {\n      if (G()) return;\n    }\n  }\n}\n',
  ],
  [
    'security/redirect-without-exit',
    'CWE-698',
    'java',
    servlet(
      'if (request.getUserPrincipal() == null) {\n      response.sendRedirect("/login");\n      audit();\n    }',
    ),
    5,
    servlet(
      'if (request.getUserPrincipal() == null) {\n      response.sendRedirect("/login");\n      return;\n    }',
    ),
  ],
  [
    'security/redirect-without-exit',
    'CWE-698',
    'php',
    "<?php\nif (!isset($_SESSION['user'])) {\n  header('Location: /login');\n}\necho secret();\n",
    3,
    "<?php\nif (!isset($_SESSION['user'])) {\n  header('Location: /login');\n  exit;\n}\necho secret();\n",
  ],
  [
    'bug/reachable-assertion',
    'CWE-617',
    'java',
    java('assert false : "unreachable";'),
    4,
    java('assert count() > 0 : "empty";'),
  ],
  [
    'security/port-bound-twice',
    'CWE-605',
    'java',
    java(
      'java.net.ServerSocket a = new java.net.ServerSocket();\n    a.bind(new java.net.InetSocketAddress(8080));\n    java.net.ServerSocket b = new java.net.ServerSocket();\n    b.bind(new java.net.InetSocketAddress("localhost", 8080));',
    ),
    7,
    java(
      'java.net.ServerSocket a = new java.net.ServerSocket();\n    a.bind(new java.net.InetSocketAddress(8080));\n    java.net.ServerSocket b = new java.net.ServerSocket();\n    b.bind(new java.net.InetSocketAddress("localhost", 8081));',
    ),
  ],
  [
    'bug/unused-private-method',
    'CWE-561',
    'java',
    'class Report {\n  private String total() { return "0"; }\n  public String show() { return "none"; }\n}\n',
    2,
    'class Report {\n  private String total() { return "0"; }\n  public String show() { return total(); }\n}\n',
  ],
  [
    'bug/non-serializable-in-session',
    'CWE-579',
    'java',
    'class Cart {\n  static class Item { String sku; }\n  void add(javax.servlet.http.HttpServletRequest request) {\n    Item item = new Item();\n    request.getSession(true).setAttribute("item", item);\n  }\n}\n',
    5,
    'class Cart {\n  static class Item implements java.io.Serializable { String sku; }\n  void add(javax.servlet.http.HttpServletRequest request) {\n    Item item = new Item();\n    request.getSession(true).setAttribute("item", item);\n  }\n}\n',
  ],
  [
    'bug/literal-condition',
    'CWE-571',
    'java',
    java('if (true) {\n      log();\n    }'),
    4,
    java('if (ready()) {\n      log();\n    }'),
  ],
  [
    'bug/classes-never-equal',
    'CWE-571',
    'java',
    java(
      'java.util.Random a = new java.util.Random();\n    java.security.SecureRandom b = new java.security.SecureRandom();\n    if (!a.getClass().equals(b.getClass())) {\n      log();\n    }',
    ),
    6,
    java(
      'java.util.Random a = new java.util.Random();\n    java.util.Random b = pick();\n    if (!a.getClass().equals(b.getClass())) {\n      log();\n    }',
    ),
  ],
  [
    'bug/unused-variable',
    'CWE-563',
    'java',
    java('String label;\n    label = "draft";\n    log();'),
    4,
    java('String label;\n    label = "draft";\n    log(label);'),
  ],
];

describe('scoped rules', () => {
  it.each(CASES)('%s (%s) in %s', (...placed) => expectPlacedCase(...placed));
});
