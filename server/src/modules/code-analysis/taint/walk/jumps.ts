/** Jumps: `return`, `throw` and exits end the path; a return joins what the function returns. */
import type { SyntaxNode } from '../../parsing/tree';
import { handlerAnnotations, isRouteHandler } from '../parameters';
import { CLEAN, type Val } from '../values';
import { callShape } from './shape';
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
  if (value && s.closures === 0) responseBodySink(s, s.unit, value, v);
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

/** A route handler returning input as its response body, where the catalogue names that a sink. */
export function responseBodySink(s: WalkState, unit: SyntaxNode, value: SyntaxNode, v: Val): void {
  const sinks = s.ctx.lang.returnSink;
  if (!sinks || !v.taint || !s.reporting) return;
  if (!isRouteHandler(s.ctx.parsed, s.ctx.lang, unit)) return;
  const text = s.nodeText(value);
  for (const sink of Array.isArray(sinks) ? sinks : [sinks]) {
    if (sink.value && !sink.value.test(text)) continue;
    if (sink.unless && /call|invocation/.test(value.type) && sink.unless.test(callShape(s, value).callee))
      continue;
    if (sink.scope || sink.scopeUnless) {
      const declared = handlerAnnotations(s.ctx.parsed, unit);
      if (sink.scope && !sink.scope.test(`${declared} ${text}`)) continue;
      if (sink.scopeUnless?.test(declared)) continue;
    }
    s.flag(sink.kind, value, 'the response body', v.taint);
    return;
  }
}
