/** The unused local variable rule: what it reports in each language, and the reads it must not miss. */
import type { CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

describe('unused local variables', () => {
  it('reports a local that is assigned and never read, in JS/TS and Python', async () => {
    const js = await findings(
      'function f(a) {\n  const unused = a * 2;\n  const used = a + 1;\n  return { used };\n}\n',
      'javascript',
      'bugs',
    );
    expect(
      js.filter((f) => f.rule_id === 'bug/unused-variable').map((f) => [f.line, f.column, f.snippet]),
    ).toEqual([[2, 9, 'unused']]);
    const py = await findings(
      'def f(a):\n    tmp = a * 2\n    total = 0\n    total += a\n    return total\n',
      'python',
      'bugs',
    );
    expect(py.filter((f) => f.rule_id === 'bug/unused-variable').map((f) => f.message)).toEqual([
      "Local variable 'tmp' is assigned but never read; remove it, or use it where it was meant to be used.",
    ]);
  });

  /** [language, code with exactly one unused local named `unused` (line given), code where every local is read] */
  const LANGUAGES: [CodeLanguage, string, number, string][] = [
    [
      'go',
      'package main\n\nfunc f(a int) int {\n\tunused := a * 2\n\tvar used = a + 1\n\tv, err := g(a)\n\tif err != nil {\n\t\treturn 0\n\t}\n\treturn used + v\n}\n',
      4,
      'package main\n\nvar pkg = 1\n\nfunc f(a int) func() int {\n\tx := a * 2\n\t_, err := g(a)\n\tif err != nil {\n\t\treturn nil\n\t}\n\treturn func() int { return x }\n}\n',
    ],
    [
      'rust',
      'fn f(a: i32) -> i32 {\n    let unused = a * 2;\n    let mut used = a + 1;\n    used += 1;\n    used\n}\n',
      2,
      'fn f(a: i32) -> String {\n    let _ignored = a * 2;\n    let shown = a + 1;\n    let x = a;\n    let add = move |y: i32| x + y;\n    format!("{shown} {}", add(1))\n}\n',
    ],
    [
      'java',
      'class C {\n  private int field = 1;\n  int f(int a) {\n    int unused = a * 2;\n    int used = a + 1;\n    return used;\n  }\n}\n',
      4,
      'class C {\n  private int field = 1;\n  Runnable f(int a) {\n    int x = a * 2;\n    return () -> System.out.println(x);\n  }\n}\n',
    ],
    [
      'csharp',
      'class C {\n  int F(int a) {\n    var unused = a * 2;\n    var used = a + 1;\n    return used;\n  }\n}\n',
      3,
      'class C {\n  private int field = 1;\n  string F(int a) {\n    var x = a * 2;\n    return $"value {x}";\n  }\n}\n',
    ],
    [
      'kotlin',
      'fun f(a: Int): Int {\n    val unused = a * 2\n    val used = a + 1\n    return used\n}\n',
      2,
      'class C {\n    val field = 1\n    fun f(a: Int): String {\n        val x = a * 2\n        val (p, q) = Pair(1, 2)\n        return "value $x"\n    }\n}\n',
    ],
    [
      'swift',
      'func f(a: Int) -> Int {\n    let unused = a * 2\n    let used = a + 1\n    return used\n}\n',
      2,
      'func f(a: Int) -> String {\n    let x = a * 2\n    return "value \\(x)"\n}\n',
    ],
    [
      'scala',
      'object O {\n  def f(a: Int): Int = {\n    val unused = a * 2\n    val used = a + 1\n    used\n  }\n}\n',
      3,
      'object O {\n  val field = 1\n  def f(a: Int): String = {\n    val x = a * 2\n    s"value $x"\n  }\n}\n',
    ],
  ];

  for (const [language, withUnused, line, allRead] of LANGUAGES) {
    it(`reports exactly the unused local in ${language}, and nothing when every local is read`, async () => {
      const found = (await findings(withUnused, language, 'bugs')).filter(
        (f) => f.rule_id === 'bug/unused-variable',
      );
      expect(found.map((f) => [f.line, f.snippet])).toEqual([[line, 'unused']]);
      const none = (await findings(allRead, language, 'bugs')).filter(
        (f) => f.rule_id === 'bug/unused-variable',
      );
      expect(none.map((f) => f.message)).toEqual([]);
    });
  }

  it('does not report names read by a nested function, ignored names, module-level names or eval users', async () => {
    const cases: [CodeLanguage, string][] = [
      ['javascript', 'function f() {\n  const x = 1;\n  return () => x;\n}\n'],
      ['javascript', 'const top = 1;\nfunction f(code) {\n  const y = 2;\n  return eval(code);\n}\n'],
      [
        'typescript',
        'function f(): number {\n  const _ignored = 1;\n  let n = 0;\n  n = 5;\n  return n;\n}\n',
      ],
      ['python', 'LIMIT = 10\ndef f():\n    x = 1\n    return locals()\n'],
      ['python', 'def f(xs):\n    seen = set()\n    def add(x):\n        seen.add(x)\n    return add\n'],
    ];
    for (const [language, code] of cases) {
      const ids = (await findings(code, language, 'bugs')).map((f) => f.rule_id);
      expect({ code, ids }).toEqual({ code, ids: ids.filter((i) => i !== 'bug/unused-variable') });
    }
  });
});
