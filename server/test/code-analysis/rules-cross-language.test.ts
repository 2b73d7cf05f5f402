/**
 * Families that apply across languages: bidirectional control characters (Trojan Source) in any source, wildcard
 * injection in shell scripts. Each vulnerable example fires its rule on the expected line, each safe one does not.
 */
import type { CodeLanguage, Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import type { RuleCase } from '../helpers/code-analysis';

async function issuesAtLow(code: string, language: CodeLanguage): Promise<Finding[]> {
  const r = await analyzeSource({
    code,
    language,
    filename: undefined,
    analysisType: 'security',
    thresholds: DEFAULT_THRESHOLDS,
    minConfidence: 'low',
  });
  expect(r.parse_errors, `${language} fixture should parse:\n${code}`).toEqual([]);
  return r.issues;
}

const BIDI = 'security/bidi-control-character';
const RLO = '\u202E';
const LRI = '\u2066';
const PDI = '\u2069';

/** The same trick in each language: a comment that hides the end of a string from the reader. */
const TROJAN: [CodeLanguage, string, string][] = [
  [
    'python',
    `level = "user"\nif level != 'none${RLO}${LRI}': # admin${PDI}${LRI}' and level != 'user\n    print(1)\n`,
    'level = "user"\nif level != "none":\n    print(1)\n',
  ],
  [
    'javascript',
    `const level = "user";\nif (level != "user${RLO} ${LRI}// admin${PDI}${LRI}") { run(); }\n`,
    'const level = "user";\nif (level != "user") { run(); }\n',
  ],
  [
    'go',
    `package m\nfunc f(level string) bool {\n\treturn level != "user${RLO} ${LRI}// admin${PDI}${LRI}"\n}\n`,
    'package m\nfunc f(level string) bool {\n\treturn level != "user"\n}\n',
  ],
  [
    'java',
    `class A {\n  boolean f(String l) { return !l.equals("user${RLO} ${LRI}// admin${PDI}${LRI}"); }\n}\n`,
    'class A {\n  boolean f(String l) { return !l.equals("user"); }\n}\n',
  ],
  [
    'rust',
    `fn f(l: &str) -> bool {\n    l != "user${RLO} ${LRI}// admin${PDI}${LRI}"\n}\n`,
    'fn f(l: &str) -> bool {\n    l != "user\\u{202E}"\n}\n',
  ],
];

const WILDCARD: RuleCase[] = [
  [
    'security/wildcard-injection',
    'bash',
    'cd /srv/uploads\ntar czf /backup/u.tgz *\n',
    'cd /srv/uploads\ntar czf /backup/u.tgz ./*\n',
  ],
  ['security/wildcard-injection', 'bash', 'chown -R app:app *.log\n', 'chown -R app:app -- *.log\n'],
];

describe('bidirectional control characters (Trojan Source), in every language', () => {
  for (const [language, vulnerable, safe] of TROJAN) {
    it(language, async () => {
      const issues = await issuesAtLow(vulnerable, language);
      const bidi = issues.filter((i) => i.rule_id === BIDI);
      expect(bidi).toHaveLength(1);
      expect(bidi[0]).toMatchObject({
        cwe: 'CWE-838',
        severity: 'high',
        line: vulnerable.startsWith('package') ? 3 : 2,
      });
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(BIDI);
    });
  }
});

describe('wildcard injection in shell scripts', () => {
  for (const [rule, language, vulnerable, safe] of WILDCARD) {
    it(vulnerable.trim().split('\n').at(-1) ?? '', async () => {
      expect((await issuesAtLow(vulnerable, language)).map((i) => i.rule_id)).toContain(rule);
      expect((await issuesAtLow(safe, language)).map((i) => i.rule_id)).not.toContain(rule);
    });
  }
});
