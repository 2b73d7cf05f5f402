/**
 * Response splitting (CWE-113), format strings (CWE-134), log injection (CWE-117), SMTP command injection (CWE-93), unsafe reflection (CWE-470), external control of a
 * setting (CWE-15), XSS through an error page, and a replace that only removes a sequence: each a vulnerable and a
 * safe form per language.
 */
import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { ruleIds } from '../helpers/code-analysis';

const servlet = (body: string) => `class Page {
  void doGet(javax.servlet.http.HttpServletRequest req, javax.servlet.http.HttpServletResponse res) throws Exception {
    String v = req.getParameter("v");
    ${body}
  }
}`;

const CASES: [string, CodeLanguage, string, string][] = [
  [
    'security/header-injection',
    'java',
    servlet('res.addHeader("X-Lang", v);'),
    servlet('res.addHeader("X-Lang", java.net.URLEncoder.encode(v, "UTF-8"));'),
  ],
  [
    'security/header-injection',
    'java',
    servlet('res.addCookie(new javax.servlet.http.Cookie("lang", v));'),
    servlet('res.addCookie(new javax.servlet.http.Cookie("lang", "en"));'),
  ],
  [
    'security/header-injection',
    'csharp',
    'class C : Controller { public void Get() { Response.AddHeader("X-Name", Request.Query["n"]); } }',
    'class C : Controller { public void Get() { Response.AddHeader("X-Name", "fixed"); } }',
  ],
  [
    'security/format-string',
    'java',
    servlet('System.out.printf(v);'),
    servlet('System.out.printf("%s", v);'),
  ],
  [
    'security/format-string',
    'c',
    'int main(int argc, char **argv) { printf(argv[1]); return 0; }',
    'int main(int argc, char **argv) { printf("%s", argv[1]); return 0; }',
  ],
  [
    'security/format-string',
    'go',
    'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tfmt.Printf(os.Args[1])\n}\n',
    'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tfmt.Printf("%s", os.Args[1])\n}\n',
  ],
  [
    'security/log-injection',
    'go',
    'package main\n\nimport (\n\t"log"\n\t"net/http"\n)\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tuser := r.URL.Query().Get("user")\n\tlog.Printf("login: %s", user)\n}\n',
    'package main\n\nimport (\n\t"log"\n\t"net/http"\n\t"strconv"\n)\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tuser := r.URL.Query().Get("user")\n\tlog.Printf("login: %s", strconv.Quote(user))\n}\n',
  ],
  [
    'security/log-injection',
    'go',
    'package main\n\nimport (\n\t"log/slog"\n\t"net/http"\n)\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tmsg := r.FormValue("msg")\n\tslog.Warn(msg)\n}\n',
    'package main\n\nimport (\n\t"log/slog"\n\t"net/http"\n)\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tmsg := r.FormValue("msg")\n\tslog.Warn("request", "msg", msg)\n}\n',
  ],
  [
    'security/log-injection',
    'go',
    'package main\n\nimport (\n\t"log"\n\t"os"\n)\n\nfunc main() {\n\tlog.Println("processing:", os.Args[1])\n}\n',
    'package main\n\nimport (\n\t"log"\n\t"net/http"\n\t"os"\n)\n\nfunc main() {\n\tlog.Fatal(http.ListenAndServe(os.Getenv("ADDR"), nil))\n}\n',
  ],
  [
    'security/smtp-injection',
    'go',
    'package main\n\nimport (\n\t"net/http"\n\t"net/smtp"\n)\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tfrom := r.FormValue("from")\n\t_ = smtp.SendMail("127.0.0.1:25", nil, from, []string{"ops@corp.example"}, []byte("hi"))\n}\n',
    'package main\n\nimport (\n\t"net/http"\n\t"net/mail"\n\t"net/smtp"\n)\n\nfunc handler(w http.ResponseWriter, r *http.Request) {\n\tfrom, err := mail.ParseAddress(r.FormValue("from"))\n\tif err != nil {\n\t\treturn\n\t}\n\t_ = smtp.SendMail("127.0.0.1:25", nil, from.Address, []string{"ops@corp.example"}, []byte("hi"))\n}\n',
  ],
  [
    'security/format-string',
    'python',
    'from flask import request\n\ndef greet(user):\n    return request.args["t"].format(user=user)\n',
    'from flask import request\n\ndef greet(user):\n    return "Hello {user}".format(user=request.args["t"])\n',
  ],
  [
    'security/reflection',
    'java',
    servlet('Object o = Class.forName(v).getDeclaredConstructor().newInstance();'),
    servlet('Object o = Class.forName("com.example.Plugin").getDeclaredConstructor().newInstance();'),
  ],
  [
    'security/reflection',
    'python',
    'import importlib\nfrom flask import request\n\ndef load():\n    return importlib.import_module(request.args["m"])\n',
    'import importlib\nfrom flask import request\n\ndef load():\n    return importlib.import_module("plugins.default")\n',
  ],
  [
    'security/config-setting',
    'java',
    servlet('java.sql.DriverManager.getConnection("jdbc:h2:mem:x").setCatalog(v);'),
    servlet('java.sql.DriverManager.getConnection("jdbc:h2:mem:x").setCatalog("reports");'),
  ],
  [
    'security/config-setting',
    'c',
    'int main(int argc, char **argv) { setenv("LD_LIBRARY_PATH", argv[1], 1); return 0; }',
    'int main(int argc, char **argv) { setenv("LANG", "C", 1); return 0; }',
  ],
  [
    'security/xss',
    'java',
    servlet('res.sendError(404, "<p>No page " + v);'),
    servlet('res.sendError(404, "<p>No page " + org.owasp.encoder.Encode.forHtml(v));'),
  ],
  [
    'security/xss',
    'java',
    servlet('res.getWriter().println(v.replaceAll("<script>", ""));'),
    servlet('res.getWriter().println(v.replaceAll("[<>]", ""));'),
  ],
];

describe('more sinks', () => {
  it.each(CASES)(
    '%s in %s: the vulnerable form is found, the safe one is not',
    async (rule, language, bad, safe) => {
      expect(await ruleIds(bad, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    },
  );
});
