/** Go structs serialised with a secret field (CWE-499). */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const RULE = 'security/secret-serialized';
const go = (struct: string, extra = '') =>
  `package m\nimport "encoding/json"\ntype Account struct {\n\tName string\n${struct}\n}\n${extra}func dump(a Account) []byte {\n\tb, _ := json.Marshal(a)\n\treturn b\n}\n`;

/** [what, vulnerable, safe] */
const CASES: [string, string, string][] = [
  ['a password field without a tag', go('\tPassword string'), go('\tPassword string `json:"-"`')],
  ['an API token list', go('\tAPITokens []string'), go('\tMaxTokens int')],
  [
    'a type that marshals itself',
    go('\tClientSecret string'),
    go(
      '\tClientSecret string',
      'func (a Account) MarshalJSON() ([]byte, error) { return json.Marshal(struct{ Name string }{a.Name}) }\n',
    ),
  ],
  ['an unexported field is not serialised', go('\tToken string'), go('\ttoken string')],
];

describe('Go secrets serialised: vulnerable examples fire, safe ones do not', () => {
  for (const [what, vulnerable, safe] of CASES) {
    it(what, async () => {
      const bad = (await findings(vulnerable, 'go')).filter((f) => f.rule_id === RULE);
      expect(bad.length, vulnerable).toBe(1);
      expect(bad[0]?.cwe).toBe('CWE-499');
      expect(
        (await findings(safe, 'go')).filter((f) => f.rule_id === RULE),
        safe,
      ).toEqual([]);
    });
  }
});
