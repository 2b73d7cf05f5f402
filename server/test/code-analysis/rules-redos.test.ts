/** ReDoS: regular expressions written in the code that can backtrack exponentially; unambiguous ones stay quiet. */
import { describe, expect, it } from 'vitest';
import { catastrophicRegex } from '../../src/modules/code-analysis/rules/regex-backtracking';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, vulnerable, safe] */
const REDOS: RuleCase[] = [
  ['security/redos', 'javascript', 'const re = /^(\\w+\\s?)*$/;', 'const re = /^[\\w\\s]*$/;'],
  ['security/redos', 'typescript', 'const re = new RegExp("(a+)+b");', 'const re = new RegExp("a+b");'],
  [
    'security/redos',
    'python',
    'import re\nEMAIL = re.compile(r"^([a-z0-9]+)*@example$")\n',
    'import re\nEMAIL = re.compile(r"^[a-z0-9]+@example$")\n',
  ],
  [
    'security/redos',
    'java',
    'class A { Pattern p = Pattern.compile("(\\\\w+\\\\s?)*$"); }',
    'class A { Pattern p = Pattern.compile("\\\\d+(\\\\.\\\\d+)*"); }',
  ],
  [
    'security/redos',
    'csharp',
    'class A { Regex r = new Regex(@"^(\\w+\\s?)*$"); }',
    'class A { Regex r = new Regex(@"^\\w+$"); }',
  ],
  ['security/redos', 'ruby', 'RE = /^(a|a)*$/\n', 'RE = /\\A\\d+\\z/\n'],
  ['security/redos', 'php', "<?php preg_match('/^(\\w+\\s?)*$/i', $s);", "<?php preg_match('#^\\d+$#', $s);"],
  ['security/redos', 'kotlin', 'fun f() { val r = Regex("(a+)+b") }', 'fun f() { val r = Regex("a+b") }'],
  ['security/redos', 'scala', 'object A { val r = "(a+)+b".r }', 'object A { val r = "a+b".r }'],
  [
    'security/redos',
    'swift',
    'func f() throws { let r = try NSRegularExpression(pattern: "(a+)+b", options: []) }',
    'func f() throws { let r = try NSRegularExpression(pattern: "a+b", options: []) }',
  ],
];

describe('ReDoS: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, language, vulnerable, safe] of REDOS) {
    it(`${rule} in ${language}`, async () => {
      const bad = await findings(vulnerable, language);
      expect(bad.map((f) => f.rule_id)).toContain(rule);
      expect(bad.find((f) => f.rule_id === rule)?.cwe).toBe('CWE-1333');
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});

/** Patterns compiled from request input: [language, vulnerable, safe]. */
const INJECTED: [RuleCase[1], string, string][] = [
  [
    'python',
    'from flask import request\nimport re\n@app.route("/s")\ndef s():\n    return str(re.compile(request.args["q"]))\n',
    'from flask import request\nimport re\n@app.route("/s")\ndef s():\n    return str(re.compile(re.escape(request.args["q"])))\n',
  ],
  [
    'javascript',
    "app.get('/s', (req, res) => { const r = new RegExp(req.query.q); res.json(r.test('x')); });",
    "app.get('/s', (req, res) => { const r = new RegExp(escapeStringRegexp(req.query.q)); res.json(r.test('x')); });",
  ],
  [
    'java',
    'class A { void f(HttpServletRequest req) { Pattern x = Pattern.compile(req.getParameter("p")); } }',
    'class A { void f(HttpServletRequest req) { Pattern x = Pattern.compile(Pattern.quote(req.getParameter("p"))); } }',
  ],
  [
    'ruby',
    'def s\n  r = Regexp.new(params[:q])\nend\n',
    'def s\n  r = Regexp.new(Regexp.escape(params[:q]))\nend\n',
  ],
  [
    'php',
    "<?php preg_match($_GET['p'], $s);",
    "<?php preg_match('/' . preg_quote($_GET['p'], '/') . '/', $s);",
  ],
  [
    'csharp',
    'class C : Controller { public IActionResult S([FromQuery] string q) { var r = new Regex(q); return Ok(); } }',
    'class C : Controller { public IActionResult S([FromQuery] string q) { var r = new Regex(Regex.Escape(q)); return Ok(); } }',
  ],
];

describe('regex injection: request input compiled as a pattern', () => {
  for (const [language, vulnerable, safe] of INJECTED) {
    it(`security/regex-injection in ${language}`, async () => {
      expect((await findings(vulnerable, language)).map((f) => f.rule_id)).toContain(
        'security/regex-injection',
      );
      expect((await findings(safe, language)).map((f) => f.rule_id)).not.toContain(
        'security/regex-injection',
      );
    });
  }
});

describe('catastrophic backtracking: which patterns are ambiguous', () => {
  it('flags nested and overlapping repetitions', () => {
    for (const p of [
      '(a+)+',
      '(\\w+\\s?)*$',
      '(.*a){10}',
      '(\\w|\\d)+',
      '(.|\\s)*',
      '(x+x+)+y',
      '([a-z0-9]+)*@',
    ])
      expect(catastrophicRegex(p), p).toBe(true);
  });
  it('leaves separated, bounded and flat repetitions alone', () => {
    for (const p of [
      '(\\d+\\.)+',
      '([a-z]+ )+',
      '^[a-z]+$',
      '(a|ab)*',
      '\\d{1,3}(\\.\\d{1,3}){3}',
      'foo.*bar',
      '\\s*,\\s*',
      '(?<y>\\d{4})-(?<m>\\d\\d)',
    ])
      expect(catastrophicRegex(p), p).toBe(false);
  });
});
