/** Go context propagation (CWE-400): lost cancel functions, detached goroutines, loops that ignore ctx.Done(). */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

/** [rule, vulnerable, safe]: Go sources; the first must report the rule (CWE-400), the second must not. */
const CASES: [string, string, string][] = [
  [
    'bug/context-cancel-not-called',
    'package m\nimport "context"\nfunc f(ctx context.Context) {\n\tc, _ := context.WithTimeout(ctx, 5)\n\tuse(c)\n}\n',
    'package m\nimport "context"\nfunc f(ctx context.Context) {\n\tc, cancel := context.WithTimeout(ctx, 5)\n\tdefer cancel()\n\tuse(c)\n}\n',
  ],
  [
    'bug/context-cancel-not-called',
    'package m\nimport "context"\ntype W struct{ stop func() }\nfunc New(ctx context.Context) *W {\n\t_, cancel := context.WithCancel(ctx)\n\treturn &W{stop: cancel}\n}\n',
    'package m\nimport "context"\ntype W struct{ stop func() }\nfunc New(ctx context.Context) *W {\n\t_, cancel := context.WithCancel(ctx)\n\treturn &W{stop: cancel}\n}\nfunc (w *W) Close() { w.stop() }\n',
  ],
  [
    'bug/context-cancel-not-called',
    'package m\nimport "context"\nvar stop context.CancelFunc\nfunc init() {\n\t_, c := context.WithCancel(context.Background())\n\tstop = c\n}\n',
    'package m\nimport "context"\nvar stop context.CancelFunc\nfunc init() {\n\t_, c := context.WithCancel(context.Background())\n\tstop = c\n}\nfunc shutdown() { stop() }\n',
  ],
  [
    'bug/goroutine-detached-context',
    'package m\nimport "context"\nfunc f(ctx context.Context) {\n\tgo func() {\n\t\twork(context.Background())\n\t}()\n}\n',
    'package m\nimport "context"\nfunc f(ctx context.Context) {\n\tgo func() {\n\t\twork(ctx)\n\t}()\n}\n',
  ],
  [
    'bug/loop-ignores-context',
    'package m\nimport (\n\t"context"\n\t"time"\n)\nfunc poll(ctx context.Context) {\n\tfor {\n\t\tfetch()\n\t\ttime.Sleep(time.Second)\n\t}\n}\n',
    'package m\nimport (\n\t"context"\n\t"time"\n)\nfunc poll(ctx context.Context) {\n\tfor {\n\t\tselect {\n\t\tcase <-ctx.Done():\n\t\t\treturn\n\t\tcase <-time.After(time.Second):\n\t\t\tfetch()\n\t\t}\n\t}\n}\n',
  ],
];

describe('Go context propagation: vulnerable examples fire, safe ones do not', () => {
  for (const [rule, vulnerable, safe] of CASES) {
    it(`${rule}: ${vulnerable.split('\n')[3]?.trim()}`, async () => {
      const bad = (await findings(vulnerable, 'go', 'bugs')).filter((f) => f.rule_id === rule);
      expect(bad.length, vulnerable).toBeGreaterThan(0);
      expect(bad[0]?.cwe).toBe('CWE-400');
      const good = (await findings(safe, 'go', 'bugs')).filter((f) => f.rule_id === rule);
      expect(good, safe).toEqual([]);
    });
  }
  it('reports the lost cancel on the line of the call', async () => {
    const code =
      'package m\nimport "context"\nfunc f(ctx context.Context) {\n\tc, _ := context.WithCancel(ctx)\n\tuse(c)\n}\n';
    const lost = (await findings(code, 'go', 'bugs')).find(
      (f) => f.rule_id === 'bug/context-cancel-not-called',
    );
    expect(lost?.line).toBe(4);
  });
});
