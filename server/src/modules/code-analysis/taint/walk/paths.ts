/**
 * Paths: the walk's state copied for a path (a branch, a loop body), narrowed by what a condition says of numbers.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { truthy } from '../constants';
import { refineNumbers } from '../numeric/refine';
import { CLEAN, type Env, type Taint, type Val } from '../values';
import { numericModel, refineHost } from './numbers';
import type { WalkState } from './state';

/** Only input or chance can be narrowed: a state holding parameters of unknown origin alone has nothing to do. */
function hasInput(env: Env): boolean {
  for (const t of env.vars.values()) if (!t.weak && !t.audit) return true;
  return false;
}

/**
 * The state on the path where `condition` is `truth`, its comparisons narrowing the numbers they test (a copy;
 * the state itself where nothing can narrow).
 */
export function refined(
  s: WalkState,
  condition: SyntaxNode | undefined,
  truth: boolean,
  from: Env = s.env,
): Env {
  if (!condition || !numericModel(s) || !hasInput(from)) return from;
  const saved = s.env;
  s.env = from;
  const narrowed = new Map<string, Taint>();
  const view = {
    get: (name: string) => narrowed.get(name) ?? from.vars.get(name),
    set: (name: string, taint: Taint) => narrowed.set(name, taint),
  };
  refineNumbers(view, refineHost(s), condition, truth);
  s.env = saved;
  if (narrowed.size === 0) return from;
  const env = from.clone();
  for (const [name, taint] of narrowed) env.vars.set(name, taint);
  return env;
}

export function conditionTruth(s: WalkState, node: SyntaxNode | undefined): boolean | undefined {
  if (!node) return undefined;
  const v = s.evaluate(node);
  return v.constant ? truthy(v.constant.value) : undefined;
}

/** Runs `body` on a copy of the state; returns the copy's final state. */
export function explore(s: WalkState, body: SyntaxNode[] | SyntaxNode | undefined, from: Env = s.env): Env {
  const saved = s.env;
  s.env = from.clone();
  let last: Val = CLEAN;
  for (const n of Array.isArray(body) ? body : body ? [body] : []) last = s.evaluate(n);
  s.explored = last;
  const out = s.env;
  s.env = saved;
  return out;
}
