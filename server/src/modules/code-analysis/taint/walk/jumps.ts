/** Jumps: `return`, `throw` and exits end the path; a return joins what the function returns. */
import type { SyntaxNode } from '../../parsing/tree';
import { CLEAN, type Val } from '../values';
import { joinVals, namedChildren } from './shared';
import type { WalkState } from './state';

/** `throw e`: its operand runs, and the path ends. */
export function throwStatement(s: WalkState, node: SyntaxNode): Val {
  s.evaluateChildren(node);
  s.env.dead = true;
  return CLEAN;
}

/** `return v`: what the function returns joins `v`, a route handler's response body may be a sink, the path ends. */
export function returnStatement(s: WalkState, node: SyntaxNode): Val {
  const value = namedChildren(node)[0];
  const v = value ? s.evaluate(value) : CLEAN;
  s.returned = s.returned ? joinVals(s.returned, v) : v;
  if (value && s.closures === 0) s.ctx.onReturn(s, s.unit, value, v);
  s.env.dead = true;
  return v;
}

/** `exit()`, `raise`, `panic!`: the operand runs, and the path ends (except a module's own top-level exit). */
export function exitStatement(s: WalkState, node: SyntaxNode): Val {
  s.evaluateChildren(node);
  // A module's own top-level `raise` or `exit()` (a script that refuses to run, an example file) does not hide
  // the statements written after it: they are code a reader edits and runs, and what they do is reported.
  if (node.parent !== s.unit || s.ctx.isFunction(s.unit)) s.env.dead = true;
  return CLEAN;
}
