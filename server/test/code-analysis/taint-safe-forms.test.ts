/** Safe forms that used to draw findings: a fixed host before the input, Rails only_path, Laravel e(), configured Secure flags. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const CASES: RuleCase[] = [
  [
    'security/ssrf',
    'python',
    'from flask import request\nimport requests\n@app.route("/a")\ndef a():\n    return requests.get(request.args["url"]).text\n',
    'from flask import request\nimport requests\n@app.route("/a")\ndef a():\n    return requests.get("https://api.corp.com/users/" + request.args["id"]).text\n',
  ],
  [
    'security/ssrf',
    'python',
    'from flask import request\nimport requests\n@app.route("/a")\ndef a():\n    return requests.get(f"https://{request.args[\'host\']}/users").text\n',
    'from flask import request\nimport requests\n@app.route("/a")\ndef a():\n    return requests.get(f"https://api.corp.com/users/{request.args[\'id\']}").text\n',
  ],
  [
    'security/open-redirect',
    'java',
    'class A { void f(HttpServletRequest request, HttpServletResponse response) throws Exception { response.sendRedirect(request.getParameter("u")); } }',
    'class A { void f(HttpServletRequest request, HttpServletResponse response) throws Exception { response.sendRedirect("https://app.corp.com/path/" + request.getParameter("u")); } }',
  ],
  [
    'security/open-redirect',
    'python',
    'from flask import request, redirect\n@app.route("/a")\ndef a():\n    return redirect("/" + request.args["next"])\n',
    'from flask import request, redirect\n@app.route("/a")\ndef a():\n    return redirect("/home/" + request.args["next"])\n',
  ],
  [
    'security/open-redirect',
    'ruby',
    'class A < ApplicationController\n  def go\n    redirect_to params[:url]\n  end\nend\n',
    'class A < ApplicationController\n  def go\n    redirect_to params[:url], only_path: true\n  end\nend\n',
  ],
  ['security/xss', 'php', "<?php echo $_GET['name'];", "<?php echo e($_GET['name']);"],
  [
    'security/insecure-cookie',
    'python',
    'resp.set_cookie("s", v, secure=False)\n',
    'resp.set_cookie("s", v, secure=app.config["SESSION_COOKIE_SECURE"], httponly=True)\n',
  ],
  [
    'security/insecure-cookie',
    'java',
    'class A { void f(HttpServletResponse r) { Cookie k = new Cookie("s", "v"); r.addCookie(k); } }',
    'class A { void f(HttpServletResponse r) { Cookie k = new Cookie("s", "v"); k.setSecure(props.isSecure()); r.addCookie(k); } }',
  ],
  [
    'security/sql-injection',
    'ruby',
    "class A < ApplicationController\n  SORTS = { 'new' => 'created_at DESC' }.freeze\n  def i\n    Report.order(SORTS.fetch(params[:s], params[:d]))\n  end\nend\n",
    "class A < ApplicationController\n  SORTS = { 'new' => 'created_at DESC' }.freeze\n  def i\n    Report.order(SORTS.fetch(params[:s], 'id'))\n  end\nend\n",
  ],
  [
    'security/path-traversal',
    'ruby',
    'class A < ApplicationController\n  def d\n    send_file cookies.permanent[:f]\n  end\nend\n',
    'class A < ApplicationController\n  def d\n    send_file cookies.signed.permanent[:f]\n  end\nend\n',
  ],
  [
    'security/open-redirect',
    'ruby',
    'class A < ApplicationController\n  def go\n    redirect_to params.permit(:domain, :page)\n  end\nend\n',
    'class A < ApplicationController\n  def go\n    redirect_to [params.permit(:domain)]\n  end\nend\n',
  ],
];

describe('safe forms stay quiet, their unsafe counterparts do not', () => {
  for (const [rule, language, vulnerable, safe] of CASES) {
    it(`${rule} in ${language}`, async () => {
      expect((await findings(vulnerable, language)).map((f) => f.rule_id)).toContain(rule);
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});
