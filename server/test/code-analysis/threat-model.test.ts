/**
 * `threat_model`: `web` (the default) takes only request input as untrusted; `all` also files, sockets, database
 * rows, properties, HTTP client responses, environment and command line. The same code, through the real server,
 * is a finding under `all` and none under `web`.
 */
import { describe, expect, it } from 'vitest';
import { analysisEndpoint } from '../helpers/analyze-endpoint';

const endpoint = analysisEndpoint();

interface Body {
  issues: { rule_id: string; path?: string }[];
  error?: { message: string; param: string | null; code: string | null };
}

async function analyze(body: Record<string, unknown>): Promise<{ status: number; body: Body }> {
  const res = await endpoint.post({ analysis_type: 'security', ...body });
  return { status: res.status, body: (await res.json()) as Body };
}

/** Local input reaching a sink: a finding only when the threat model counts it as untrusted. */
const LOCAL_INPUT: { language: string; rule: string; code: string }[] = [
  {
    // A command-line tool's arguments are its operator's (a bin script reading the file it is told to).
    language: 'javascript',
    rule: 'security/path-traversal',
    code: "const fs = require('fs');\nconst file = process.argv[2];\nconst text = fs.readFileSync(file, 'utf8');\nconsole.log(text.length);\n",
  },
  {
    language: 'java',
    rule: 'security/sql-injection',
    code: `class Report {
  void run(java.sql.Connection db) throws Exception {
    java.util.Properties props = new java.util.Properties();
    props.load(new java.io.FileInputStream("report.properties"));
    String table = props.getProperty("table");
    db.createStatement().executeQuery("SELECT * FROM " + table);
  }
}`,
  },
  {
    language: 'java',
    rule: 'security/command-injection',
    code: `class Job {
  void next() throws Exception {
    java.sql.Statement st = java.sql.DriverManager.getConnection("jdbc:h2:mem:jobs").createStatement();
    java.sql.ResultSet rs = st.executeQuery("SELECT cmd FROM jobs");
    String cmd = rs.getString(1);
    Runtime.getRuntime().exec("sh -c " + cmd);
  }
}`,
  },
  {
    language: 'python',
    rule: 'security/command-injection',
    code: 'import os\n\ndef replay(path):\n    with open(path) as f:\n        line = f.readline()\n    os.system("run " + line)\n',
  },
  {
    language: 'javascript',
    rule: 'security/code-injection',
    code: "const fs = require('fs');\nasync function load() {\n  const text = await fs.promises.readFile('plugin.js', 'utf8');\n  eval(text);\n}\n",
  },
  {
    language: 'go',
    rule: 'security/command-injection',
    code: 'package main\n\nimport (\n\t"os"\n\t"os/exec"\n)\n\nfunc run() {\n\tdata, _ := os.ReadFile("cmd.txt")\n\texec.Command("sh", "-c", string(data)).Run()\n}\n',
  },
  {
    language: 'php',
    rule: 'security/command-injection',
    code: '<?php\nfunction sync() {\n  $target = file_get_contents("target.txt");\n  system("rsync -a . " . $target);\n}\n',
  },
];

describe('threat_model', () => {
  it.each(LOCAL_INPUT)('$language: $rule from local input only under `all`', async (c) => {
    const web = await analyze({ code: c.code, language: c.language });
    expect(web.status).toBe(200);
    expect(web.body.issues.map((i) => i.rule_id)).not.toContain(c.rule);
    const byDefault = await analyze({ code: c.code, language: c.language, threat_model: 'web' });
    expect(byDefault.body.issues.map((i) => i.rule_id)).not.toContain(c.rule);
    const all = await analyze({ code: c.code, language: c.language, threat_model: 'all' });
    expect(all.status).toBe(200);
    expect(all.body.issues.map((i) => i.rule_id)).toContain(c.rule);
  });

  it('applies to a project: the helper in another file is reached from a file read', async () => {
    const files = [
      {
        path: 'cli.py',
        code: 'from runner import run\n\ndef main():\n    with open("jobs.txt") as f:\n        run(f.read())\n',
      },
      { path: 'runner.py', code: 'import os\n\ndef run(cmd):\n    os.system(cmd)\n' },
    ];
    const web = await analyze({ files });
    expect(web.body.issues.filter((i) => i.path === 'cli.py')).toEqual([]);
    const all = await analyze({ files, threat_model: 'all' });
    expect(all.body.issues.filter((i) => i.path === 'cli.py').map((i) => i.rule_id)).toEqual([
      'security/command-injection',
    ]);
  });

  it('request input is untrusted under both', async () => {
    const code =
      'from flask import request\nimport os\n\n@app.route("/x")\ndef x():\n    os.system(request.args["c"])\n';
    for (const threat_model of ['web', 'all']) {
      const res = await analyze({ code, language: 'python', threat_model });
      expect(res.body.issues.map((i) => i.rule_id)).toContain('security/command-injection');
    }
  });

  it('400 invalid_threat_model naming the accepted values', async () => {
    const res = await analyze({ code: 'x = 1', language: 'python', threat_model: 'local' });
    expect(res.status).toBe(400);
    expect(res.body.error?.param).toBe('threat_model');
    expect(res.body.error?.code).toBe('invalid_threat_model');
    expect(res.body.error?.message).toContain('web, all');
    const wrongType = await analyze({ code: 'x = 1', language: 'python', threat_model: 3 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error?.param).toBe('threat_model');
  });
});
