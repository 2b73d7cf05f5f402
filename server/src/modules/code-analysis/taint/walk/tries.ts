/** `try`/`catch`/`finally`: a handler may start anywhere in the body, the finaliser runs on every path. */
import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax } from '../flow/types';
import { CLEAN, Env, type Val } from '../values';
import { explore } from './paths';
import type { WalkState } from './state';

export function tryStatement(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val {
  const spec = flow.tries[node.type];
  if (!spec) return CLEAN;
  const before = s.env.clone();
  for (const c of node.children) {
    if (!c.named || spec.handlers.includes(c.type) || c.type === spec.finalizer) continue;
    s.evaluate(c);
  }
  const outcomes = [s.env];
  // A handler may start anywhere in the body: from the state before it, joined with the state after it.
  const entry = Env.join([before, s.env]);
  entry.dead = false;
  for (const c of node.children) if (spec.handlers.includes(c.type)) outcomes.push(explore(s, c, entry));
  s.env = Env.join(outcomes);
  const finalizer = node.children.find((c) => c.type === spec.finalizer);
  if (finalizer) {
    const dead = s.env.dead;
    s.env.dead = false;
    s.evaluate(finalizer);
    s.env.dead = s.env.dead || dead;
  }
  return CLEAN;
}
