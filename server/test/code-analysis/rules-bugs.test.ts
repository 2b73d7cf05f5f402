/** Bug pattern rules: buggy examples fire, fixed ones do not. */
import { describe, expect, it } from 'vitest';
import { findings, type RuleCase } from '../helpers/code-analysis';

/** [rule, language, buggy, fixed] */
const BUGS: RuleCase[] = [
  ['bug/assignment-in-condition', 'javascript', 'if (a = b) { f(); }', 'if (a === b) { f(); }'],
  [
    'bug/assignment-in-condition',
    'c',
    'int f(int a, int b) { if (a = b) return 1; return 0; }',
    'int f(int a, int b) { if (a == b) return 1; return 0; }',
  ],
  ['bug/nan-comparison', 'javascript', 'if (x === NaN) { f(); }', 'if (Number.isNaN(x)) { f(); }'],
  ['bug/nan-comparison', 'python', 'if x == float("nan"):\n    f()\n', 'if math.isnan(x):\n    f()\n'],
  ['bug/self-comparison', 'python', 'if a == a:\n    f()\n', 'if a == b:\n    f()\n'],
  [
    'bug/self-assignment',
    'java',
    'class A { int x; void f(int y) { x = x; } }',
    'class A { int x; void f(int x) { this.x = x; } }',
  ],
  [
    'bug/identical-branches',
    'javascript',
    'const v = ok ? compute(1) : compute(1);',
    'const v = ok ? compute(1) : compute(2);',
  ],
  [
    'bug/identical-branches',
    'go',
    'package m\nfunc f(a bool) { if a { g() } else { g() } }\n',
    'package m\nfunc f(a bool) { if a { g() } else { h() } }\n',
  ],
  [
    'bug/duplicate-condition',
    'java',
    'class A { void f(int a) { if (a > 1) { g(); } else if (a > 1) { h(); } } }',
    'class A { void f(int a) { if (a > 1) { g(); } else if (a > 2) { h(); } } }',
  ],
  ['bug/duplicate-key', 'python', 'd = {"a": 1, "b": 2, "a": 3}\n', 'd = {"a": 1, "b": 2, "c": 3}\n'],
  [
    'bug/duplicate-key',
    'typescript',
    'const o = { id: 1, name: "x", id: 2 };',
    'const o = { id: 1, name: "x" };',
  ],
  [
    'bug/unreachable-code',
    'java',
    'class A { int f() { return 1; g(); } }',
    'class A { int f() { g(); return 1; } }',
  ],
  [
    'bug/unreachable-code',
    'python',
    'def f():\n    raise ValueError()\n    g()\n',
    'def f():\n    g()\n    raise ValueError()\n',
  ],
  [
    'bug/unreachable-code',
    'javascript',
    'function f() { return 1; g(); }',
    'function f() { return g(); function g() { return 1; } }',
  ],
  [
    'bug/empty-catch',
    'java',
    'class A { void f() { try { g(); } catch (Exception e) {} } }',
    'class A { void f() { try { g(); } catch (Exception e) { log(e); } } }',
  ],
  [
    'bug/empty-catch',
    'python',
    'try:\n    g()\nexcept ValueError:\n    pass\n',
    'try:\n    g()\nexcept ValueError as e:\n    log(e)\n',
  ],
  [
    'bug/unreachable-code',
    'kotlin',
    'fun f(): Int {\n  return 1\n  g()\n}\n',
    'fun f(): Int {\n  g()\n  return 1\n}\n',
  ],
  [
    'bug/unreachable-code',
    'ruby',
    'def f\n  return 1\n  g\nend\n',
    'def f\n  return 1 if ready?\n  g\nrescue StandardError => e\n  log(e)\nend\n',
  ],
  [
    'bug/unreachable-code',
    'swift',
    'func f() -> Int {\n  return 1\n  g()\n}\n',
    'func f() -> Int {\n  guard ready else { return 0 }\n  g()\n  return 1\n}\n',
  ],
  [
    'bug/empty-catch',
    'kotlin',
    'fun f() {\n  try { g() } catch (e: Exception) { }\n}\n',
    'fun f() {\n  try { g() } catch (e: NumberFormatException) {\n    // not a number: keep the default\n  }\n}\n',
  ],
  [
    'bug/empty-catch',
    'swift',
    'func f() {\n  do { try g() } catch { }\n}\n',
    'func f() {\n  do { try g() } catch { print(error) }\n}\n',
  ],
  [
    'bug/empty-catch',
    'ruby',
    'def f\n  g\nrescue StandardError\nend\n',
    'def f\n  g\nrescue LoadError\n  # optional dependency: run without it\nend\n',
  ],
  [
    'bug/bare-except',
    'python',
    'try:\n    g()\nexcept:\n    log()\n',
    'try:\n    g()\nexcept Exception:\n    log()\n',
  ],
  [
    'bug/mutable-default-argument',
    'python',
    'def f(items=[]):\n    return items\n',
    'def f(items=None):\n    return items or []\n',
  ],
  ['bug/loose-equality', 'javascript', 'if (a == 1) { f(); }', 'if (a === 1 || b == null) { f(); }'],
  [
    'bug/switch-fall-through',
    'javascript',
    'switch (a) { case 1: f(); case 2: g(); break; }',
    'switch (a) { case 1: case 2: g(); break; case 3: return h(); default: i(); }',
  ],
  [
    'bug/switch-fall-through',
    'c',
    'void f(int a) { switch (a) { case 1: g(); case 2: h(); break; } }',
    'void f(int a) { switch (a) { case 1: g(); break; case 2: h(); break; } }',
  ],
];

describe('bug rules: buggy examples fire, fixed ones do not', () => {
  for (const [rule, language, buggy, fixed] of BUGS) {
    it(`${rule} in ${language}`, async () => {
      expect((await findings(buggy, language, 'bugs')).map((f) => f.rule_id)).toContain(rule);
      expect((await findings(fixed, language, 'bugs')).map((f) => f.rule_id)).not.toContain(rule);
    });
  }
});
