/** Taint rules for XSS, unsafe deserialization, path traversal, SSRF and open redirects: vulnerable examples fire, safe ones do not. */
import { describe, expect, it } from 'vitest';
import { type RuleCase, ruleIds } from '../helpers/code-analysis';
import { cmain, cs, go, java, js, php, py, rb } from '../helpers/taint-handlers';

const WEB_CASES: RuleCase[] = [
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
  ['security/xss', 'ruby', rb('render inline: "<p>#{params[:q]}</p>"'), rb('render plain: params[:q]')],
  [
    'security/xss',
    'csharp',
    cs('Response.Write("<p>" + Request.Query["q"] + "</p>");'),
    cs('Response.Write("<p>" + HttpUtility.HtmlEncode(Request.Query["q"]) + "</p>");'),
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
  [
    'security/unsafe-deserialization',
    'ruby',
    rb('obj = Marshal.load(cookies[:state])'),
    rb('obj = JSON.parse(cookies[:state])'),
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
  [
    'security/path-traversal',
    'ruby',
    rb('send_file "/srv/#{params[:f]}"'),
    rb('send_file "/srv/#{File.basename(params[:f])}"'),
  ],
  [
    'security/path-traversal',
    'csharp',
    cs('var text = File.ReadAllText("/srv/" + Request.Query["f"]);'),
    cs('var text = File.ReadAllText("/srv/" + Path.GetFileName(Request.Query["f"]));'),
  ],
  [
    'security/path-traversal',
    'c',
    cmain('FILE *f = fopen(argv[1], "r");'),
    cmain('FILE *f = fopen("/etc/app.conf", "r");'),
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
  [
    'security/ssrf',
    'ruby',
    rb('Net::HTTP.get(URI(params[:url]))'),
    rb('Net::HTTP.get(URI("https://api.example.com/"))'),
  ],
  [
    'security/ssrf',
    'csharp',
    cs('var body = await client.GetStringAsync(Request.Query["url"]);'),
    cs('var body = await client.GetStringAsync("https://api.example.com/");'),
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
  ['security/open-redirect', 'ruby', rb('redirect_to params[:next]'), rb('redirect_to root_path')],
  [
    'security/open-redirect',
    'csharp',
    cs('Response.Redirect(Request.Query["next"]);'),
    cs('Response.Redirect("/home");'),
  ],
];

describe('taint rules: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of WEB_CASES) {
    it(`${rule} in ${language}`, async () => {
      expect(await ruleIds(vulnerable, language)).toContain(rule);
      expect(await ruleIds(safe, language)).not.toContain(rule);
    });
  }
});
