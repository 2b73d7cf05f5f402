/** Go errors dropped (rules/go/unchecked-errors.ts, CWE-703, gosec G104): vulnerable forms fire, safe ones do not. */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const RULE = 'bug/unchecked-error';
const withSave = (body: string) =>
  `package main\n\nimport "os"\n\nfunc save(b []byte) error {\n\treturn os.WriteFile("out.txt", b, 0o600)\n}\n\nfunc main() {\n${body}\n}\n`;

/** [what, vulnerable, safe] */
const CASES: [string, string, string][] = [
  [
    'a call of an error-returning function as a statement',
    withSave('\tsave(nil)'),
    withSave('\tif err := save(nil); err != nil {\n\t\tpanic(err)\n\t}'),
  ],
  [
    'an error assigned to the blank identifier',
    withSave('\t_ = save(nil)'),
    withSave('\terr := save(nil)\n\tprintln(err)'),
  ],
  [
    'a file-system call whose error is dropped',
    withSave('\tos.Remove("out.txt")'),
    withSave('\tif err := os.Remove("out.txt"); err != nil {\n\t\tpanic(err)\n\t}'),
  ],
];

describe('Go dropped errors: vulnerable examples fire, safe ones do not', () => {
  for (const [what, vulnerable, safe] of CASES) {
    it(what, async () => {
      const bad = (await findings(vulnerable, 'go', 'bugs')).filter((f) => f.rule_id === RULE);
      expect(bad.length, vulnerable).toBe(1);
      expect(bad[0]?.cwe).toBe('CWE-703');
      expect(
        (await findings(safe, 'go', 'bugs')).filter((f) => f.rule_id === RULE),
        safe,
      ).toEqual([]);
    });
  }
  it('leaves a kept value with its error dropped on purpose, and writes errcheck excuses, alone', async () => {
    const code =
      'package main\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\nfunc pair() (int, error) { return 0, nil }\n\nfunc main() {\n\tv, _ := pair()\n\tvar sb strings.Builder\n\tsb.WriteString("x")\n\tfmt.Println(v, sb.String())\n}\n';
    expect((await findings(code, 'go', 'bugs')).map((f) => f.rule_id)).not.toContain(RULE);
  });
});
