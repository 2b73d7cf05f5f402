/**
 * Audit findings (low confidence): risky sinks given values the analysis cannot trace, as the field's audit rules
 * report them. Each vulnerable example is reported at `min_confidence: low` and not at the default (medium); each
 * safe one is not reported at all.
 */
import type { CodeLanguage, FindingConfidence } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';

async function ruleIds(code: string, language: CodeLanguage, minConfidence: FindingConfidence) {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence,
  });
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues.map((i) => i.rule_id);
}

interface AuditCase {
  language: CodeLanguage;
  rule: string;
  vulnerable: string;
  safe: string;
}

const EVAL = 'security/dynamic-code-evaluation';
const INCLUDE = 'security/dynamic-file-inclusion';

const CASES: AuditCase[] = [
  {
    language: 'python',
    rule: EVAL,
    vulnerable: 'def run(expr):\n    return eval(expr)\n',
    safe: 'import ast\n\ndef run(expr):\n    return ast.literal_eval(expr) + eval("1 + 2")\n',
  },
  {
    language: 'javascript',
    rule: EVAL,
    vulnerable: 'function calc(expr) {\n  return new Function("x", expr);\n}\n',
    safe: 'function calc(x) {\n  return eval("2 + 2") + x;\n}\n',
  },
  {
    language: 'ruby',
    rule: EVAL,
    vulnerable: 'def define(name, body)\n  Widget.class_eval(body)\nend\n',
    safe: 'def define\n  Widget.class_eval do\n    attr_reader :size\n  end\nend\n',
  },
  {
    language: 'php',
    rule: EVAL,
    vulnerable: '<?php\nfunction run($code) {\n    return eval($code);\n}\n',
    safe: '<?php\nfunction run() {\n    return eval("return 1;");\n}\n',
  },
  {
    language: 'php',
    rule: INCLUDE,
    vulnerable: '<?php\nfunction page($name) {\n    include __DIR__ . "/pages/" . $name;\n}\n',
    safe: "<?php\nrequire_once __DIR__ . '/vendor/autoload.php';\nrequire_once dirname(__FILE__) . '/admin.php';\n",
  },
];

describe('audit rules (low confidence)', () => {
  for (const c of CASES) {
    it(`${c.language}: ${c.rule} reports the vulnerable form at low only, not the safe one`, async () => {
      expect(await ruleIds(c.vulnerable, c.language, 'low')).toContain(c.rule);
      expect(await ruleIds(c.vulnerable, c.language, 'medium')).not.toContain(c.rule);
      expect(await ruleIds(c.safe, c.language, 'low')).not.toContain(c.rule);
    });
  }
});
