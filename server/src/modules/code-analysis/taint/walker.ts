import type { SyntaxNode } from '../parsing/tree';
import { evaluateNode } from './walk/dispatch';
import type { WalkHost } from './walk/host';
import { WalkState } from './walk/state';

/**
 * The dataflow of one function (or the top level): statements in order over an abstract state (taint, constants,
 * collections), branches explored apart and joined, dead branches (constant conditions) skipped, calls to the
 * file's own functions applied through their summaries. The walk is an explicit state (walk/state.ts) and, per node
 * kind, handlers of (state, node) (walk/handlers.ts, dispatched by walk/dispatch.ts) in files by meaning: literals,
 * operators, containers, branches and paths, loops, switches, tries, jumps, closures, calls, summaries, library
 * methods, sinks, destinations, declarations, assignments, names, numbers.
 */
export function newWalk(ctx: WalkHost, unit: SyntaxNode, reporting: boolean): WalkState {
  return new WalkState(ctx, unit, reporting, evaluateNode);
}
