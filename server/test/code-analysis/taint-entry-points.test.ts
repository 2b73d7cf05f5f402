/**
 * Entry points beyond web handlers: AWS Lambda events, Airflow shell commands built from data, and the tools an MCP
 * server or an agent framework offers a model (their arguments are chosen by whatever the model read).
 */
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
    'security/command-injection',
    'python',
    'import asyncio\nasync def handler(event, context):\n    await asyncio.subprocess.create_subprocess_exec(event["program"], "--version")\n',
    'import asyncio\nasync def handler(event, context):\n    await asyncio.subprocess.create_subprocess_exec("convert", event["file"], "out.png")\n',
  ],
  [
    'security/code-injection',
    'python',
    'import sys, _xxsubinterpreters\n_xxsubinterpreters.run_string(_xxsubinterpreters.create(), sys.argv[1])\n',
    'import sys, _xxsubinterpreters\n_xxsubinterpreters.run_string(_xxsubinterpreters.create(), "print(len(sys.argv))")\n',
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
  [
    'security/command-injection',
    'typescript',
    'import { exec } from "child_process";\nserver.tool("run", { command: z.string() }, async ({ command }) => {\n  exec(command);\n  return { content: [] };\n});\n',
    'import { exec } from "child_process";\nserver.tool("list", {}, async () => {\n  exec("ls -la /tmp");\n  return { content: [] };\n});\n',
  ],
  [
    'security/ssrf',
    'typescript',
    'server.setRequestHandler(CallToolRequestSchema, async (call) => {\n  await fetch(call.params.arguments.url);\n  return {};\n});\n',
    'server.setRequestHandler(CallToolRequestSchema, async (call) => {\n  await fetch("https://api.example.com/status");\n  return {};\n});\n',
  ],
  [
    'security/ssrf',
    'python',
    'import requests\n@mcp.tool()\ndef get(url: str) -> str:\n    return requests.get(url, timeout=5).text\n',
    'import requests\ndef get(url: str) -> str:\n    return requests.get(url, timeout=5).text\n',
  ],
  [
    'security/ssrf',
    'csharp',
    'public static class Tools {\n    [McpServerTool]\n    public static string Fetch(string url) {\n        return new HttpClient().GetStringAsync(url).Result;\n    }\n}\n',
    'public static class Tools {\n    public static string Fetch(string url) {\n        return new HttpClient().GetStringAsync(url).Result;\n    }\n}\n',
  ],
  [
    'security/command-injection',
    'java',
    'class Tools {\n    @Tool(description = "run")\n    String run(String cmd) throws Exception {\n        Runtime.getRuntime().exec(cmd);\n        return "ok";\n    }\n}\n',
    'class Tools {\n    @Tool(description = "run")\n    String run(String cmd) throws Exception {\n        Runtime.getRuntime().exec(new String[] {"git", "status"});\n        return "ok";\n    }\n}\n',
  ],
  [
    'security/command-injection',
    'go',
    'package main\n\nfunc handle(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {\n\tcmd := request.GetString("cmd", "")\n\texec.Command("sh", "-c", cmd).Run()\n\treturn nil, nil\n}\n',
    'package main\n\nfunc handle(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {\n\texec.Command("git", "status").Run()\n\treturn nil, nil\n}\n',
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

  it("an MCP tool's arguments are known input (high); a plain function's parameter is not", async () => {
    const code =
      'import subprocess\n@mcp.tool()\ndef run(cmd: str) -> str:\n    return subprocess.check_output(cmd, shell=True)\n\ndef helper(cmd):\n    return subprocess.check_output(cmd, shell=True)\n';
    const f = (await findings(code, 'python')).filter((i) => i.rule_id === 'security/command-injection');
    expect(f.filter((i) => i.confidence === 'high').map((i) => i.line)).toEqual([4]);
  });
});
