/**
 * Gaps of the dataflow walk, each with a vulnerable and a safe form: text joined by `concat` (and its spellings)
 * inside larger expressions, with the receiver written back only where the language's method changes it.
 */
import type { CodeLanguage, Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

/** `rule@line` of the findings of `rule`. */
async function lines(code: string, language: CodeLanguage, rule: string): Promise<number[]> {
  const issues: Finding[] = await findings(code, language);
  return issues.filter((i) => i.rule_id === rule).map((i) => i.line);
}

const CMD = 'security/command-injection';
const SQL = 'security/sql-injection';

describe('concat inside larger expressions', () => {
  it('JavaScript: an argument, a template, a ternary arm and a chained call all carry the joined input', async () => {
    const code = `const { exec } = require('child_process');
function run(req) {
  const name = req.query.name;
  exec('ls '.concat(name));
  exec(\`echo \${'-n '.concat(name)}\`);
  exec(req.query.all ? 'ls '.concat(name) : 'ls');
  exec('ls '.concat(name).trim());
  exec('ls '.concat('-la'));
}
module.exports = (app) => app.get('/ls', run);
`;
    expect(await lines(code, 'javascript', CMD)).toEqual([4, 5, 6, 7]);
  });

  it('Java: the same forms through String.concat', async () => {
    const code = `class Files extends javax.servlet.http.HttpServlet {
  protected void doGet(javax.servlet.http.HttpServletRequest req, javax.servlet.http.HttpServletResponse resp) throws java.io.IOException {
    String name = req.getParameter("name");
    Runtime.getRuntime().exec("ls ".concat(name));
    Runtime.getRuntime().exec(req.getParameter("all") != null ? "ls ".concat(name) : "ls");
    Runtime.getRuntime().exec(String.format("%s -la", "ls ".concat(name).trim()));
    Runtime.getRuntime().exec("ls ".concat("-la"));
  }
}
`;
    expect(await lines(code, 'java', CMD)).toEqual([4, 5, 6]);
  });

  it('Kotlin: `plus` spelled as a call joins text as `+` does', async () => {
    const code = `import java.sql.Connection
class Users(private val c: Connection) {
  fun find(name: String) {
    c.createStatement().executeQuery("SELECT * FROM users WHERE name = '".plus(name).trim())
  }
  fun all() {
    c.createStatement().executeQuery("SELECT * FROM users WHERE active = ".plus("1"))
  }
}
`;
    expect(await lines(code, 'kotlin', SQL)).toEqual([4]);
  });

  it('Ruby: a ternary arm of text passed to a query method is read as the text it gives', async () => {
    const code = `class UsersController < ApplicationController
  def index
    @users = User.where(params[:admin] ? "name = '".concat(params[:name]) : "1=1")
  end
  def show
    @users = User.where(params[:admin] ? "role = 'admin'" : { name: params[:name] })
  end
end
`;
    expect(await lines(code, 'ruby', SQL)).toEqual([3]);
  });
});

describe('concat writes into its receiver only where the language says so', () => {
  it('JavaScript: `base.concat(x)` leaves base as it was; the joined value stays tainted', async () => {
    const code = `const { exec } = require('child_process');
module.exports = (app) => app.get('/ls', (req, res) => {
  const base = 'ls ';
  const cmd = base.concat(req.query.name);
  exec(base);
  exec(cmd);
});
`;
    expect(await lines(code, 'javascript', CMD)).toEqual([6]);
  });

  it('Java: `base.concat(x)` leaves base as it was; the joined value stays tainted', async () => {
    const code = `class Files extends javax.servlet.http.HttpServlet {
  protected void doGet(javax.servlet.http.HttpServletRequest req, javax.servlet.http.HttpServletResponse resp) throws java.io.IOException {
    String base = "ls ";
    String cmd = base.concat(req.getParameter("name"));
    Runtime.getRuntime().exec(base);
    Runtime.getRuntime().exec(cmd);
  }
}
`;
    expect(await lines(code, 'java', CMD)).toEqual([6]);
  });

  it("Ruby: String#concat and #prepend change the receiver, in a statement or inside a call's argument", async () => {
    const code = `class UsersController < ApplicationController
  def index
    sql = "name = '"
    sql.concat(params[:name])
    @users = User.where(sql)
  end
  def show
    sql = "' AND active"
    @count = sql.prepend(params[:name]).length
    @users = User.where(sql)
  end
  def fixed
    sql = "name = "
    sql.concat("'admin'")
    @users = User.where(sql)
  end
end
`;
    expect(await lines(code, 'ruby', SQL)).toEqual([5, 10]);
  });
});

describe("a fixed scheme and host reached through a helper's parameter", () => {
  it('JavaScript: the caller passes the base, the helper joins the path after it; a helper putting input first stays', async () => {
    const code = `const axios = require('axios');
const API = 'https://api.example.com';
const join = (base, path) => \`\${base}/\${path}\`;
function suffixed(base, path) {
  return path + base;
}
module.exports = (app) => {
  app.get('/a', async (req, res) => res.json((await axios.get(join(API, req.query.path))).data));
  app.get('/b', async (req, res) => res.json((await axios.get(suffixed('/v1', req.query.path))).data));
  app.get('/c', (req, res) => res.redirect(join('https://www.example.com', req.query.next)));
  app.get('/d', (req, res) => res.redirect(join(req.query.site, 'home')));
};
`;
    expect(await lines(code, 'javascript', 'security/ssrf')).toEqual([9]);
    expect(await lines(code, 'javascript', 'security/open-redirect')).toEqual([11]);
  });

  it('Python: an f-string helper given a module constant base', async () => {
    const code = `import requests
from flask import Flask, request, redirect
app = Flask(__name__)
API = "https://api.example.com"

def join(base, path):
    return f"{base}/{path}"

@app.route("/a")
def a():
    return requests.get(join(API, request.args["path"]), timeout=5).text

@app.route("/b")
def b():
    return requests.get(join(request.args["site"], "status"), timeout=5).text
`;
    expect(await lines(code, 'python', 'security/ssrf')).toEqual([15]);
  });

  it('Java: a static helper concatenating base and path', async () => {
    const code = `class Proxy extends javax.servlet.http.HttpServlet {
  private static String buildUrl(String base, String path) {
    return base + path;
  }
  protected void doGet(javax.servlet.http.HttpServletRequest req, javax.servlet.http.HttpServletResponse resp) throws java.io.IOException {
    new java.net.URL(buildUrl("https://api.example.com/", req.getParameter("path"))).openConnection();
    new java.net.URL(buildUrl(req.getParameter("host"), "/status")).openConnection();
  }
}
`;
    expect(await lines(code, 'java', 'security/ssrf')).toEqual([7]);
  });

  it('Go: a helper whose parameters share one declaration (`base, path string`)', async () => {
    const code = `package main

import "net/http"

func buildURL(base, path string) string {
	return base + path
}

func fetchFrom(base, path string) (*http.Response, error) {
	return http.Get(base + path)
}

func a(w http.ResponseWriter, r *http.Request) {
	http.Get(buildURL("https://api.example.com/", r.URL.Query().Get("path")))
	http.Get(buildURL(r.URL.Query().Get("host"), "/status"))
	fetchFrom(r.URL.Query().Get("host"), "/status")
	fetchFrom("https://api.example.com/", r.URL.Query().Get("path"))
}
`;
    expect(await lines(code, 'go', 'security/ssrf')).toEqual([15, 16]);
  });

  it('C#: a helper joining with a literal slash', async () => {
    const code = `using System.Net.Http;
using Microsoft.AspNetCore.Mvc;
public class ProxyController : Controller {
  private static string Join(string b, string p) { return b + "/" + p; }
  public IActionResult Fetch(string path) {
    new HttpClient().GetAsync(Join("https://api.example.com", path));
    return Redirect(Join("https://www.example.com", path));
  }
  public IActionResult Open(string site) {
    return Redirect(Join(site, "home"));
  }
}
`;
    expect(await lines(code, 'csharp', 'security/ssrf')).toEqual([]);
    expect(await lines(code, 'csharp', 'security/open-redirect')).toEqual([10]);
  });

  it('Kotlin: an expression-bodied helper (`= "$base/$path"`) is the file\'s function, returning its body', async () => {
    const code = `import org.springframework.web.bind.annotation.*
import org.springframework.web.client.RestTemplate
@RestController
class ProxyController(private val rest: RestTemplate) {
  private fun join(base: String, path: String) = "$base/$path"
  @GetMapping("/a")
  fun a(@RequestParam path: String): String? = rest.getForObject(join("https://api.example.com", path), String::class.java)
  @GetMapping("/b")
  fun b(@RequestParam site: String): String? = rest.getForObject(join(site, "status"), String::class.java)
}
`;
    expect(await lines(code, 'kotlin', 'security/ssrf')).toEqual([9]);
  });
});

describe('a command array filled element by element', () => {
  it('JavaScript: `args.push(x)` into the list a shell runs with `-c`; a list of constants stays quiet', async () => {
    const code = `const { spawn, execFile } = require('child_process');
module.exports = (app) => {
  app.get('/run', (req, res) => {
    const args = [];
    args.push('-c');
    args.push(req.query.cmd);
    spawn('sh', args);
  });
  app.get('/ls', (req, res) => {
    const args = ['-la'];
    args.push('/tmp');
    execFile('ls', args);
  });
  app.get('/git', (req, res) => {
    const args = ['log'];
    args.push(req.query.ref);
    execFile('git', args);
  });
};
`;
    expect(await lines(code, 'javascript', CMD)).toEqual([7]);
  });

  it('Python: `args.append(x)` into the list subprocess runs', async () => {
    const code = `import subprocess
from flask import Flask, request
app = Flask(__name__)

@app.route("/run")
def run():
    args = []
    args.append("sh")
    args.append("-c")
    args.append(request.args["cmd"])
    subprocess.run(args)

@app.route("/ls")
def ls():
    args = []
    args.append("ls")
    args.append("-la")
    subprocess.run(args)
`;
    expect(await lines(code, 'python', CMD)).toEqual([11]);
  });

  it('Java: `cmd.add(x)` into the list ProcessBuilder runs', async () => {
    const code = `import java.util.*;
class Runner extends javax.servlet.http.HttpServlet {
  protected void doGet(javax.servlet.http.HttpServletRequest req, javax.servlet.http.HttpServletResponse resp) throws java.io.IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add("sh");
    cmd.add("-c");
    cmd.add(req.getParameter("cmd"));
    new ProcessBuilder(cmd).start();
  }
  protected void doPost(javax.servlet.http.HttpServletRequest req, javax.servlet.http.HttpServletResponse resp) throws java.io.IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add("ls");
    cmd.add("-la");
    new ProcessBuilder(cmd).start();
  }
}
`;
    expect(await lines(code, 'java', CMD)).toEqual([8]);
  });

  it('Go: `args = append(args, x)` spread into exec.Command', async () => {
    const code = `package main

import (
	"net/http"
	"os/exec"
)

func run(w http.ResponseWriter, r *http.Request) {
	args := []string{}
	args = append(args, "-c")
	args = append(args, r.URL.Query().Get("cmd"))
	exec.Command("sh", args...).Run()
}

func list(w http.ResponseWriter, r *http.Request) {
	args := []string{}
	args = append(args, "-la")
	exec.Command("ls", args...).Run()
}
`;
    expect(await lines(code, 'go', CMD)).toEqual([12]);
  });

  it("C#: `args.Add(x)` into the list joined into a process's arguments", async () => {
    const code = `using System.Diagnostics;
using System.Collections.Generic;
using Microsoft.AspNetCore.Mvc;
public class RunController : Controller {
  public IActionResult Run(string cmd) {
    var args = new List<string>();
    args.Add("-c");
    args.Add(cmd);
    Process.Start("sh", string.Join(" ", args));
    return Ok();
  }
}
`;
    expect(await lines(code, 'csharp', CMD)).toEqual([9]);
  });
});
