/** Entry points beyond web handlers: AWS Lambda events and Airflow shell commands built from data. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const CASES: RuleCase[] = [
  [
    'security/command-injection',
    'python',
    'import os\ndef lambda_handler(event, context):\n    os.system("convert " + event["file"])\n',
    'import os, shlex\ndef lambda_handler(event, context):\n    os.system("convert " + shlex.quote(event["file"]))\n',
  ],
  [
    'security/sql-injection',
    'python',
    'def handler(event, context):\n    cur.execute("SELECT * FROM t WHERE id = \'%s\'" % event["pathParameters"]["id"])\n',
    'def handler(event, context):\n    cur.execute("SELECT * FROM t WHERE id = %s", (event["pathParameters"]["id"],))\n',
  ],
  [
    'security/command-injection',
    'javascript',
    "const { exec } = require('child_process');\nexports.handler = async (event) => {\n  exec('convert ' + event.queryStringParameters.file);\n};\n",
    "const { execFile } = require('child_process');\nexports.handler = async (event) => {\n  execFile('convert', [event.queryStringParameters.file]);\n};\n",
  ],
  [
    'security/airflow-command-injection',
    'python',
    'from airflow.operators.bash import BashOperator\nt = BashOperator(task_id="a", bash_command=f"echo {message}")\n',
    'from airflow.operators.bash import BashOperator\nt = BashOperator(task_id="a", bash_command="echo $MSG", env={"MSG": message})\n',
  ],
  [
    'security/airflow-command-injection',
    'python',
    'from airflow.operators.bash import BashOperator\nt = BashOperator(task_id="a", bash_command="echo {{ dag_run.conf[\'msg\'] }}")\n',
    'from airflow.operators.bash import BashOperator\nt = BashOperator(task_id="a", bash_command="echo {{ ds }}")\n',
  ],
];

describe('entry points beyond web handlers: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of CASES) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }

  it("a Lambda event is known input (high), another function's `event` parameter is not", async () => {
    const code =
      'import os\ndef lambda_handler(event, context):\n    os.system("ls " + event["x"])\ndef on_click(event):\n    print(event)\n';
    const f = (await findings(code, 'python')).filter((i) => i.rule_id === 'security/command-injection');
    expect(f.map((i) => [i.line, i.confidence])).toEqual([[3, 'high']]);
  });
});
