/**
 * Calls through summaries: a function the file or the project defines, applied at the call (context.ts `Summary`).
 */
import type { SyntaxNode } from '../../parsing/tree';
import { markSafe, type Taint, unionTaint, type Val, withStep } from '../values';
import type { Summary } from './host';
import type { WalkState } from './state';

/**
 * A call to a function the file (or the project) defines, applied through its summary (context.ts): the constants
 * passed are probed inside it, the arguments it passes to a sink are reported here, and its return value carries
 * what flows to it from the arguments.
 */
export function throughSummary(
  s: WalkState,
  call: SyntaxNode,
  summary: Summary,
  vals: Val[],
  method: string,
): Val {
  summary.owner.noteCall(
    summary.fn,
    vals.map((v) => v.taint),
    s.ctx,
    s.unit,
  );
  // A constant passed in (null, a literal password) may be what the function dereferences or checks.
  if (s.reporting || s.probe)
    vals.forEach((v, i) => {
      if (!v.constant || v.taint) return;
      for (const hit of summary.owner.probe(summary.fn, i, { constant: v.constant }))
        s.ctx.reportThrough(hit, call, method, s.probe);
    });
  // An argument the function passes on to a sink inside it: the sink is reached from here.
  for (const through of summary.sinks) {
    const v = vals[through.arg]?.taint;
    if (!v || v.safe?.includes(through.kind)) continue;
    // A parameter of unknown origin counts only where the helper builds it into the query or command.
    if (v.weak && !v.audit && !through.built) continue;
    let passed = withStep(v, s.step(call, `call to ${method}()`)) as Taint;
    // Text the helper parses into a number before the numeric sink: the number is the caller's input.
    if (through.numeric && !passed.numeric) passed = { ...passed, numeric: through.numeric };
    const steps = [...passed.steps, ...through.steps];
    s.flag(
      through.kind,
      call,
      through.sink,
      { ...passed, built: true, steps: steps.slice(0, 16) },
      through.sinkStep,
    );
  }
  let taint: Taint | undefined = summary.returnsSource;
  summary.flows.forEach((flows, i) => {
    if (flows) taint = unionTaint(taint, vals[i]?.taint);
  });
  if (taint && summary.safe.length > 0) taint = markSafe(taint, summary.safe);
  const out: Val = {};
  if (taint) out.taint = withStep(taint, s.step(call, `through ${method}()`));
  if (summary.constant) out.constant = summary.constant;
  return out;
}
