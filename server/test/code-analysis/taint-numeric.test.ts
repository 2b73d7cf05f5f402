/**
 * Numbers from input, chance or a type's extreme at the numeric sinks (taint/numeric/, walk/numbers.ts): arithmetic
 * that can wrap, a divisor that can be zero, an index, a narrowing cast, a loop bound, a capacity or delay. Each case
 * is a vulnerable form and the same code with the range check that makes it safe.
 */
import type { CodeLanguage, ThreatModel } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analyzeSource } from '../../src/modules/code-analysis/analyze';
import { DEFAULT_THRESHOLDS } from '../../src/modules/code-analysis/types';
import { findings } from '../helpers/code-analysis';
import { cmain, cs, go, java } from '../helpers/taint-handlers';

const N = 'int n = Integer.parseInt(request.getParameter("n"));\n';
const R = 'int n = new java.security.SecureRandom().nextInt();\n';

/**
 * [rule, language, vulnerable, safe, the vulnerable finding's line, threat model]. A value nobody chose (a random
 * draw, a type's extreme) is suspect under `all`; under `web` it is an audit finding (below).
 */
const CASES: [string, CodeLanguage, string, string, number, ThreatModel?][] = [
  // Java: input parsed into a number.
  [
    'security/integer-overflow',
    'java',
    java(`${N}int r = n + 1;`),
    java(`${N}if (n < Integer.MAX_VALUE) { int r = n + 1; }`),
    4,
  ],
  [
    'security/integer-overflow',
    'java',
    java(`${N}if (n > 0) { int r = n * 2; }`),
    java(`${N}if (n > 0 && n < Integer.MAX_VALUE / 2) { int r = n * 2; }`),
    4,
  ],
  [
    'security/integer-underflow',
    'java',
    java(`${N}int r = n - 1;`),
    java(`${N}if (n <= Integer.MIN_VALUE) return;\nint r = n - 1;`),
    4,
  ],
  [
    'security/divide-by-zero',
    'java',
    java(`${N}int r = 100 / n;`),
    java(`${N}int r = n != 0 ? 100 / n : 0;`),
    4,
  ],
  [
    'security/array-index',
    'java',
    java(`${N}int[] a = {1, 2, 3};\nint v = a[n];`),
    java(`${N}int[] a = {1, 2, 3};\nif (n >= 0 && n < a.length) { int v = a[n]; }`),
    5,
  ],
  [
    'security/numeric-truncation',
    'java',
    java(`${N}byte b = (byte) n;`),
    java(`${N}if (n >= Byte.MIN_VALUE && n <= Byte.MAX_VALUE) { byte b = (byte) n; }`),
    4,
  ],
  [
    'security/unchecked-loop-condition',
    'java',
    java(`${N}for (int i = 0; i < n; i++) response.getWriter().println(i);`),
    java(`${N}if (n > 20) n = 20;\nfor (int i = 0; i < n; i++) response.getWriter().println(i);`),
    4,
  ],
  [
    'security/uncontrolled-allocation',
    'java',
    java(`${N}java.util.List<String> l = new java.util.ArrayList<>(n);`),
    java(`${N}java.util.List<String> l = new java.util.ArrayList<>(Math.min(n, 100));`),
    4,
  ],
  // Java: a random draw, and a type's extreme stored in a variable.
  [
    'security/divide-by-zero',
    'java',
    java(`${R}int r = 100 % n;`),
    java(`${R}if (n == 0) return;\nint r = 100 % n;`),
    4,
    'all',
  ],
  [
    'security/integer-overflow',
    'java',
    java('int m = Integer.MAX_VALUE;\nint r = m + 1;'),
    java('int m = Integer.MAX_VALUE - 1;\nint r = m + 1;'),
    4,
    'all',
  ],
  // C: atoi of the environment.
  [
    'security/integer-overflow',
    'c',
    cmain('int n = atoi(getenv("N"));\nint r = n * 4;\nprintf("%d", r);'),
    cmain('int n = atoi(getenv("N"));\nif (n < 0 || n > 1000) return 1;\nint r = n * 4;\nprintf("%d", r);'),
    6,
  ],
  [
    'security/divide-by-zero',
    'c',
    cmain('int n = atoi(getenv("N"));\nprintf("%d", 100 / n);'),
    cmain('int n = atoi(getenv("N"));\nif (n != 0) printf("%d", 100 / n);'),
    6,
  ],
  [
    'security/uncontrolled-allocation',
    'c',
    cmain('int n = atoi(getenv("N"));\nchar *p = malloc(n);\nfree(p);'),
    cmain('int n = atoi(getenv("N"));\nif (n <= 0 || n > 4096) return 1;\nchar *p = malloc(n);\nfree(p);'),
    6,
  ],
  // C#: int.Parse of the query string.
  [
    'security/integer-overflow',
    'csharp',
    cs('int n = int.Parse(Request.Query["n"]);\nint r = n + 1;'),
    cs('int n = int.Parse(Request.Query["n"]);\nif (n < int.MaxValue) { int r = n + 1; }'),
    4,
  ],
  [
    'security/divide-by-zero',
    'csharp',
    cs('int n = int.Parse(Request.Query["n"]);\nint r = 100 / n;'),
    cs('int n = int.Parse(Request.Query["n"]);\nif (n == 0) return BadRequest();\nint r = 100 / n;'),
    4,
  ],
  [
    'security/numeric-truncation',
    'csharp',
    cs('int n = int.Parse(Request.Query["n"]);\nshort s = (short) n;'),
    cs(
      'int n = int.Parse(Request.Query["n"]);\nif (n > short.MaxValue || n < short.MinValue) return BadRequest();\nshort s = (short) n;',
    ),
    4,
  ],
  // Go: strconv.Atoi of a form value.
  [
    'security/integer-overflow',
    'go',
    go('n, _ := strconv.Atoi(r.FormValue("n"))\nsize := n * 1024\nfmt.Println(size)'),
    go(
      'n, _ := strconv.Atoi(r.FormValue("n"))\nif n < 0 || n > 4096 {\n\treturn\n}\nsize := n * 1024\nfmt.Println(size)',
    ),
    5,
  ],
  [
    'security/uncontrolled-allocation',
    'go',
    go('n, _ := strconv.Atoi(r.FormValue("n"))\nbuf := make([]byte, n)\nfmt.Println(buf)'),
    go(
      'n, _ := strconv.Atoi(r.FormValue("n"))\nif n > 4096 {\n\tn = 4096\n}\nbuf := make([]byte, n)\nfmt.Println(buf)',
    ),
    5,
  ],
];

describe('numbers from input at numeric sinks', () => {
  it.each(CASES)('%s (%s)', async (rule, language, vulnerable, safe, line, threat = 'web') => {
    const bad = (await findings(vulnerable, language, 'security', threat)).filter((f) => f.rule_id === rule);
    expect(
      bad.map((f) => f.line),
      vulnerable,
    ).toEqual([line]);
    const good = (await findings(safe, language, 'security', threat)).filter((f) => f.rule_id === rule);
    expect(good, safe).toEqual([]);
  });

  it('carries the CWE and says which value and where it came from', async () => {
    const [f] = (await findings(java(`${N}int r = n + 1;`), 'java')).filter((x) => x.cwe === 'CWE-190');
    expect(f?.confidence).toBe('high');
    expect(f?.message).toContain('request.getParameter("n")');
    expect(f?.message).toContain('without a range check');
    const [random] = (await findings(java(`${R}int r = 100 / n;`), 'java', 'security', 'all')).filter(
      (x) => x.cwe === 'CWE-369',
    );
    expect(random?.confidence).toBe('medium');
    // Under the default threat model, a value nobody chose is mostly a sentinel (`min = Integer.MAX_VALUE`
    // before a loop): reported only to those who ask for audit findings.
    const sentinel = java('int m = Integer.MAX_VALUE;\nint r = m + 1;');
    expect((await findings(sentinel, 'java')).filter((x) => x.cwe === 'CWE-190')).toEqual([]);
    const audit = await analyzeSource({
      code: sentinel,
      language: 'java',
      filename: undefined,
      analysisType: 'security',
      thresholds: DEFAULT_THRESHOLDS,
      minConfidence: 'low',
    });
    expect(audit.issues.filter((x) => x.cwe === 'CWE-190').map((x) => x.confidence)).toEqual(['low']);
  });

  it('leaves text alone: a number joined into a string is no SQL injection, and text is not arithmetic', async () => {
    const rules = (
      await findings(
        java(
          `${N}String s = request.getParameter("s");\nstmt.executeQuery("SELECT * FROM t WHERE id = " + n);\nString t = s + 1;`,
        ),
        'java',
      )
    ).map((f) => f.rule_id);
    expect(rules).not.toContain('security/sql-injection');
    expect(rules).not.toContain('security/integer-overflow');
  });

  it('does not check arithmetic in languages whose integers do not wrap', async () => {
    const rules = (await findings('n = int(input())\nprint(n + 1, 100 / n)\n', 'python')).map(
      (f) => f.rule_id,
    );
    expect(rules.filter((r) => /overflow|divide/.test(r))).toEqual([]);
  });
});
