/**
 * Loops: the body explored once from the state its condition allows and joined with the state that skips it; a
 * `for each` binds its target to the iterable's items.
 */
import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax } from '../flow/types';
import { CLEAN, Env, type Val } from '../values';
import { assignTo } from './assign';
import { checkLoopBound } from './numbers';
import { conditionTruth, explore, refined } from './paths';
import { field, select } from './shared';
import type { WalkState } from './state';

export function loopStatement(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val {
  const spec = flow.loops[node.type];
  if (!spec) return CLEAN;
  const truth = spec.condition ? conditionTruth(s, select(node, spec.condition)) : undefined;
  if (truth === false) return CLEAN;
  const body = select(node, spec.body);
  const condition = spec.condition ? select(node, spec.condition) : undefined;
  // Other children (a C-style for's init and update) run once, in order.
  for (const c of node.children) if (c.named && c !== body && c !== condition) s.evaluate(c);
  const test = condition ?? field(node, 'condition');
  checkLoopBound(s, test);
  const after = explore(s, body, refined(s, test, true));
  s.env = Env.join([s.env, after]);
  return CLEAN;
}

export function foreachStatement(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val {
  const spec = flow.foreach[node.type];
  if (!spec) return CLEAN;
  const iterable = select(node, spec.iterable);
  const target = select(node, spec.target);
  const v = iterable ? s.evaluate(iterable) : CLEAN;
  const body = s.env.clone();
  const saved = s.env;
  s.env = body;
  if (target) assignTo(s, target, { taint: v.taint }, node);
  const bodyNode = select(node, spec.body);
  if (bodyNode) s.evaluate(bodyNode);
  const after = s.env;
  s.env = Env.join([saved, after]);
  return CLEAN;
}
