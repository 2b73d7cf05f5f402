/** Go index and slice bounds fixed by literals and loop headers (CWE-129). */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const go = (body: string) => `package m\nfunc f() int {\n${body}\n\treturn 0\n}\n`;

/** [what, buggy, fixed] */
const CASES: [string, string, string][] = [
  [
    'a constant index past the length',
    go('\ts := make([]int, 4)\n\treturn s[4]'),
    go('\ts := make([]int, 4)\n\treturn s[3]'),
  ],
  [
    'a loop counter that reaches the length',
    go('\tvar a [8]int\n\tfor i := 0; i <= len(a); i++ {\n\t\ta[i] = i\n\t}'),
    go('\tvar a [8]int\n\tfor i := 0; i < len(a); i++ {\n\t\ta[i] = i\n\t}'),
  ],
  [
    'a range counter plus one',
    go('\tvar a [8]int\n\tfor i := range a {\n\t\t_ = a[i+1]\n\t}'),
    go('\tvar a [8]int\n\tfor i := range a {\n\t\t_ = a[i]\n\t}'),
  ],
  [
    'a slice past the capacity',
    go('\ts := make([]byte, 0, 4)\n\t_ = s[:5]'),
    go('\ts := make([]byte, 0, 4)\n\t_ = s[:4]'),
  ],
  [
    'an index under a length check is left alone',
    go('\ts := make([]int, 0)\n\t_ = s[0]'),
    go('\ts := make([]int, 0)\n\tif len(s) > 0 {\n\t\t_ = s[0]\n\t}'),
  ],
  [
    'a buffer grown by append is not sized',
    go('\ts := make([]int, 2)\n\t_ = s[2]'),
    go('\ts := make([]int, 2)\n\ts = append(s, 1)\n\t_ = s[2]'),
  ],
];

describe('Go bounds by construction: buggy examples fire, fixed ones do not', () => {
  for (const [what, buggy, fixed] of CASES) {
    it(what, async () => {
      const bad = (await findings(buggy, 'go', 'bugs')).filter((f) => f.rule_id === 'bug/index-out-of-range');
      expect(bad.length, buggy).toBe(1);
      expect(bad[0]?.cwe).toBe('CWE-129');
      const good = (await findings(fixed, 'go', 'bugs')).filter(
        (f) => f.rule_id === 'bug/index-out-of-range',
      );
      expect(good, fixed).toEqual([]);
    });
  }
});
