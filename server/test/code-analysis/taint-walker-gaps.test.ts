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
