/** Go integer conversions that can wrap (CWE-190): narrowing or sign-changing without a range check. */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const RULE = 'security/integer-conversion-overflow';

/** [what, vulnerable, safe] */
const CASES: [string, string, string][] = [
  [
    'an Atoi result narrowed to int32',
    'package m\nimport "strconv"\nfunc f(s string) int32 {\n\tn, _ := strconv.Atoi(s)\n\treturn int32(n)\n}\n',
    'package m\nimport (\n\t"math"\n\t"strconv"\n)\nfunc f(s string) int32 {\n\tn, _ := strconv.Atoi(s)\n\tif n < math.MinInt32 || n > math.MaxInt32 {\n\t\treturn 0\n\t}\n\treturn int32(n)\n}\n',
  ],
  [
    'a parameter narrowed to a byte',
    'package m\nfunc f(v int64) byte {\n\treturn byte(v)\n}\n',
    'package m\nfunc f(v uint8) int64 {\n\treturn int64(v)\n}\n',
  ],
  [
    'a constant that does not fit',
    'package m\nimport "math"\nfunc f() int32 {\n\tvar a uint32 = math.MaxUint32\n\treturn int32(a)\n}\n',
    'package m\nimport "math"\nfunc f() uint32 {\n\tvar a int32 = math.MaxInt32\n\treturn uint32(a)\n}\n',
  ],
  [
    'ParseInt with a bit size that fits the target',
    'package m\nimport "strconv"\nfunc f(s string) int8 {\n\tn, _ := strconv.ParseInt(s, 10, 64)\n\treturn int8(n)\n}\n',
    'package m\nimport "strconv"\nfunc f(s string) int8 {\n\tn, _ := strconv.ParseInt(s, 10, 8)\n\treturn int8(n)\n}\n',
  ],
  [
    'a check that bounds the operand but not the product',
    'package m\nfunc f(x int) uint8 {\n\tif x >= 0 && x < 30 {\n\t\treturn uint8(x * 10)\n\t}\n\treturn 0\n}\n',
    'package m\nfunc f(x int) uint8 {\n\tif x >= 0 && x < 25 {\n\t\treturn uint8(x * 10)\n\t}\n\treturn 0\n}\n',
  ],
  [
    'a guard that tests the upper bound only',
    'package m\nfunc f(runes []rune) []byte {\n\tvar out []byte\n\tfor _, r := range runes {\n\t\tif r > 255 {\n\t\t\tcontinue\n\t\t}\n\t\tout = append(out, byte(r))\n\t}\n\treturn out\n}\n',
    'package m\nfunc f(runes []rune) []byte {\n\tvar out []byte\n\tfor _, r := range runes {\n\t\tif r < 0 || r > 255 {\n\t\t\tcontinue\n\t\t}\n\t\tout = append(out, byte(r))\n\t}\n\treturn out\n}\n',
  ],
  [
    'a guard joined with && that can never hold',
    'package m\nimport "math"\nfunc f(a int64) int32 {\n\tif a < math.MinInt32 && a > math.MaxInt32 {\n\t\tpanic("range")\n\t}\n\treturn int32(a)\n}\n',
    'package m\nimport "math"\nfunc f(a int64) int32 {\n\tif a < math.MinInt32 || a > math.MaxInt32 {\n\t\tpanic("range")\n\t}\n\treturn int32(a)\n}\n',
  ],
  [
    'a value computed from a checked one',
    'package m\nfunc f(v int) int8 {\n\tw := -v\n\tif w >= -129 && w < -1 {\n\t\treturn int8(w)\n\t}\n\treturn 0\n}\n',
    'package m\nfunc f(x int) uint16 {\n\ty := x % 10\n\tif y >= 0 {\n\t\treturn uint16(y)\n\t}\n\treturn 0\n}\n',
  ],
];

describe('Go integer conversions: vulnerable examples fire, safe ones do not', () => {
  for (const [what, vulnerable, safe] of CASES) {
    it(what, async () => {
      const bad = (await findings(vulnerable, 'go')).filter((f) => f.rule_id === RULE);
      expect(bad.length, vulnerable).toBe(1);
      expect(bad[0]?.cwe).toBe('CWE-190');
      expect(
        (await findings(safe, 'go')).filter((f) => f.rule_id === RULE),
        safe,
      ).toEqual([]);
    });
  }
  it('leaves unchecked shifts and masks (an encoder taking a value apart) alone', async () => {
    const code =
      'package m\nfunc f(b []byte, v uint64) {\n\tb[0] = byte(v >> 8)\n\tb[1] = byte(v & 0xff)\n}\n';
    expect((await findings(code, 'go')).map((f) => f.rule_id)).not.toContain(RULE);
  });
  it('leaves int/uint conversions (one machine word) alone', async () => {
    const code = 'package m\nfunc f(v int) uint {\n\treturn uint(v)\n}\n';
    expect((await findings(code, 'go')).map((f) => f.rule_id)).not.toContain(RULE);
  });
});
