/**
 * Calls the dataflow follows into other classes and files: same-named methods down a chain of classes, a
 * parenthesised `new`, fields named without `this`, the constructed type behind a declared base type, and helpers
 * whose callers all pass constants. Each with a vulnerable and a safe form.
 */
import type { Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeProject } from '../../src/modules/code-analysis/project';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import { findings } from '../helpers/code-analysis';

async function projectFindings(files: Record<string, string>): Promise<Finding[]> {
  const result = await analyzeProject({
    files: Object.entries(files).map(([path, code]) => ({ path, code, language: 'java' })),
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
  });
  return result.issues;
}

const at = (issues: Finding[], rule: string) =>
  issues.filter((i) => i.rule_id === rule).map((i) => `${i.path ?? ''}:${i.line}:${i.confidence}`);

const HANDLER = (call: string, value = 'req.getParameter("q")') => `class Entry {
  void handle(javax.servlet.http.HttpServletRequest req) throws Exception {
    String q = ${value};
    ${call};
  }
}`;
const RELAY = `class Relay {
  void send(String q) throws Exception { (new Store()).send(q); }
}`;
const STORE = `class Store {
  void send(String q) throws Exception {
    java.sql.Statement st = java.sql.DriverManager.getConnection("jdbc:h2:mem:x").createStatement();
    st.executeQuery("SELECT * FROM t WHERE name = '" + q + "'");
  }
}`;

describe('calls across classes (Java projects)', () => {
  it('follows a chain of methods that share a name, each in its own class', async () => {
    const bad = await projectFindings({
      'Entry.java': HANDLER('(new Relay()).send(q)'),
      'Relay.java': RELAY,
      'Store.java': STORE,
    });
    expect(at(bad, 'security/sql-injection')).toContain('Entry.java:4:high');
    const safe = await projectFindings({
      'Entry.java': HANDLER('(new Relay()).send(q)', '"fixed"'),
      'Relay.java': RELAY,
      'Store.java': STORE,
    });
    expect(at(safe, 'security/sql-injection')).toEqual([]);
  });

  it('calls the constructed class, not the declared base type, after `Base b = new Impl()`', async () => {
    const base = 'abstract class Sink { abstract void send(String q) throws Exception; }';
    const impl = STORE.replace('class Store {', 'class Store extends Sink {');
    const quiet = 'class Quiet extends Sink { void send(String q) { System.out.println(q.length()); } }';
    const bad = await projectFindings({
      'Entry.java': HANDLER('Sink s = new Store();\n    s.send(q)'),
      'Sink.java': base,
      'Store.java': impl,
      'Quiet.java': quiet,
    });
    expect(at(bad, 'security/sql-injection').some((s) => s.startsWith('Entry.java:'))).toBe(true);
    const safe = await projectFindings({
      'Entry.java': HANDLER('Sink s = new Quiet();\n    s.send(q)'),
      'Sink.java': base,
      'Store.java': impl,
      'Quiet.java': quiet,
    });
    expect(at(safe, 'security/sql-injection').filter((s) => s.startsWith('Entry.java:'))).toEqual([]);
  });
});

describe('fields named without `this`', () => {
  const cls = (value: string) => `class Job {
  private String pending;
  void accept(javax.servlet.http.HttpServletRequest req) throws Exception {
    pending = ${value};
    run();
  }
  private void run() throws Exception {
    Runtime.getRuntime().exec("convert " + pending);
  }
}`;
  it('input stored in a field by one method reaches a sink in another', async () => {
    expect((await findings(cls('req.getParameter("f")'), 'java')).map((i) => i.rule_id)).toContain(
      'security/command-injection',
    );
    expect((await findings(cls('"thumb.png"'), 'java')).map((i) => i.rule_id)).not.toContain(
      'security/command-injection',
    );
  });
  it('a local of the same name is not the field', async () => {
    const code = `class Job {
  private String pending = "a.png";
  void accept(javax.servlet.http.HttpServletRequest req) throws Exception {
    String pending = req.getParameter("f");
    System.out.println(pending.length());
    run();
  }
  private void run() throws Exception { Runtime.getRuntime().exec("convert " + pending); }
}`;
    expect((await findings(code, 'java')).map((i) => i.rule_id)).not.toContain('security/command-injection');
  });
});

describe('helpers whose callers all pass constants', () => {
  const helper = (calls: string) => `class Tool {
  private void run(String target) throws Exception {
    Runtime.getRuntime().exec("ping -c 1 " + target);
  }
  ${calls}
}`;
  it('a parameter every call fills with a constant is not input', async () => {
    const code = helper(
      'void a() throws Exception { run("localhost"); }\n  void b() throws Exception { String t = "127.0.0.1"; run(t); }',
    );
    expect((await findings(code, 'java')).map((i) => i.rule_id)).not.toContain('security/command-injection');
  });
  it('stays an audit finding when one call passes a value of unknown origin, or nothing calls it', async () => {
    const passed = helper(
      'void a(String host) throws Exception { run(host); }\n  void b() throws Exception { run("localhost"); }',
    );
    expect((await findings(passed, 'java')).map((i) => `${i.rule_id}:${i.confidence}`)).toContain(
      'security/command-injection:medium',
    );
    expect((await findings(helper(''), 'java')).map((i) => `${i.rule_id}:${i.confidence}`)).toContain(
      'security/command-injection:medium',
    );
  });
});

describe('XML escaping and XPath', () => {
  const query = (value: string) => `class Login {
  Object find(javax.servlet.http.HttpServletRequest req) throws Exception {
    String user = ${value};
    javax.xml.xpath.XPath xp = javax.xml.xpath.XPathFactory.newInstance().newXPath();
    return xp.evaluate("//user[name/text()='" + user + "']", new org.xml.sax.InputSource("users.xml"));
  }
}`;
  it('escapeXml turns quotes into entities, so the value cannot leave the XPath string', async () => {
    expect((await findings(query('req.getParameter("u")'), 'java')).map((i) => i.rule_id)).toContain(
      'security/xpath-injection',
    );
    expect(
      (await findings(query('StringEscapeUtils.escapeXml(req.getParameter("u"))'), 'java')).map(
        (i) => i.rule_id,
      ),
    ).not.toContain('security/xpath-injection');
  });
});
