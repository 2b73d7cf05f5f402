/**
 * Branches: `if`/`elif`/`else` chains and ternaries explored apart and joined, a constant condition deciding, and
 * the checks a condition makes (allow-lists, redirect checks, guards) holding on the path where it held.
 */
import type { SyntaxNode } from '../../parsing/tree';
import type { BranchSpec, FlowSyntax } from '../flow/types';
import {
  allowListedValue,
  allowListHeld,
  applyGuard,
  applySafeRedirectCheck,
  relativePathHeld,
} from '../guards';
import { CLEAN, Env, type Val } from '../values';
import { conditionTruth, explore, refined } from './paths';
import { field, joinVals, namedChildren, select, selectAll } from './shared';
import type { WalkState } from './state';

/**
 * The state inside a branch whose condition is a redirect check of a value (`Url.IsLocalUrl(returnUrl)`) or an
 * allow-list membership (`if (HANDLERS.has(name))`, `Object.hasOwn(HANDLERS, name)`).
 */
function checkedRedirect(s: WalkState, condition: SyntaxNode, from: Env): Env {
  const text = s.text(condition);
  const redirect = /IsLocalUrl|url_has_allowed_host_and_scheme|is_safe_url/.test(text);
  const relative = /\.startsWith\(\s*['"]\/['"]\s*\)/.test(text);
  if (!redirect && !relative && !/\b(includes|has|hasOwn|hasOwnProperty|contains|include\?)/.test(text))
    return from;
  const saved = s.env;
  s.env = from.clone();
  if (redirect) applySafeRedirectCheck(s, condition);
  else allowListHeld(s, condition);
  if (relative) relativePathHeld(s, condition);
  const out = s.env;
  s.env = saved;
  return out;
}

/** A branch's condition, decided where it is constant (`unless` negates it); an initialiser (Go) runs first. */
export function branchTruth(s: WalkState, spec: BranchSpec, node: SyntaxNode): boolean | undefined {
  const init = field(node, 'initializer');
  if (init) s.evaluate(init);
  const condition = select(node, spec.condition);
  const truth = conditionTruth(s, condition);
  if (truth !== undefined && condition && s.reporting)
    s.ctx.reportConstantCondition(condition, truth, s.unit);
  return truth === undefined || !spec.negate ? truth : !truth;
}

export function branch(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val {
  const outcomes: Env[] = [];
  // What the branch evaluates to where `if` is an expression (Kotlin, Rust, Ruby, Scala): its arms' values.
  const values: Val[] = [];
  const take = (body: SyntaxNode | undefined, from?: Env) => {
    outcomes.push(explore(s, body, from));
    values.push(s.explored);
  };
  let current: SyntaxNode | undefined = node;
  let decided = false;
  const first = flow.branches[node.type];
  const guard = first && selectAll(node, first.alternative).length === 0 ? first : undefined;
  while (current && !decided) {
    const spec: BranchSpec | undefined = flow.branches[current.type];
    if (!spec) {
      // A plain else: Python's else_clause, or Java's alternative statement.
      const bodyField = flow.elses?.[current.type];
      take(bodyField ? select(current, bodyField) : current);
      decided = true;
      break;
    }
    const truth = branchTruth(s, spec, current);
    const test = select(current, spec.condition);
    if (truth !== false) {
      const from = refined(s, test, !spec.negate);
      take(select(current, spec.consequence), test && !spec.negate ? checkedRedirect(s, test, from) : from);
    }
    if (truth === true) {
      decided = true;
      break;
    }
    // The paths past a condition that did not hold: its comparisons hold the other way there.
    if (truth === undefined) s.env = refined(s, test, Boolean(spec.negate));
    const alternatives: SyntaxNode[] = spec.alternative ? selectAll(current, spec.alternative) : [];
    if (alternatives.length > 1) {
      // Python, PHP: every elif/else clause is an `alternative` of the if statement itself.
      for (const alt of alternatives) {
        const altSpec = flow.branches[alt.type];
        if (!altSpec) {
          const bodyField = flow.elses?.[alt.type];
          take(bodyField ? select(alt, bodyField) : alt);
          decided = true;
          break;
        }
        const t = branchTruth(s, altSpec, alt);
        if (t !== false) take(select(alt, altSpec.consequence));
        if (t === true) {
          decided = true;
          break;
        }
      }
      break;
    }
    current = alternatives[0];
  }
  if (!decided) {
    // `if ('../' in name) return …`, `if not is_safe(url): url = "/"`: on the path where the check's condition
    // did not hold, the value passed it; the join keeps it safe only where the other path made it so too.
    // Ruby's `return … unless ALLOWED.include?(x)`: past it the condition held.
    if (guard && outcomes.length === 1) {
      const condition = select(node, guard.condition);
      if (condition) applyGuard(s, condition, guard.negate === true);
    }
    outcomes.push(s.env.clone());
    values.push(CLEAN);
  }
  s.env = Env.join(outcomes);
  const live = values.filter((_, i) => !outcomes[i]?.dead);
  return live.length === 0 ? CLEAN : live.reduce((x, y) => joinVals(x, y));
}

export function ternaryExpression(
  s: WalkState,
  node: SyntaxNode,
  spec: { condition: string; consequence: string; alternative: string } | 'positional',
): Val {
  let cond: SyntaxNode | undefined;
  let yes: SyntaxNode | undefined;
  let no: SyntaxNode | undefined;
  if (spec === 'positional') [yes, cond, no] = namedChildren(node);
  else {
    cond = select(node, spec.condition);
    yes = select(node, spec.consequence);
    no = select(node, spec.alternative);
  }
  const truth = conditionTruth(s, cond);
  if (truth === true) return yes ? s.evaluate(yes) : CLEAN;
  if (truth === false) return no ? s.evaluate(no) : CLEAN;
  // `in_array($c, ['price', 'tax'], true) ? $c : 'price'`: the arm taken when the list holds it is a listed value.
  const listed = cond && yes ? allowListedValue(s, cond) : undefined;
  const onList = (v: Val) => (listed && yes && s.text(listed) === s.text(yes) ? CLEAN : v);
  const before = s.env;
  // `ALLOWED.has(next) ? next : '/'`: the arm taken when an allow-list or redirect check holds sees it checked.
  const yesEnv = cond ? checkedRedirect(s, cond, refined(s, cond, true)) : before;
  const noEnv = refined(s, cond, false);
  if (yesEnv !== before || noEnv !== before) {
    // `d != 0 ? n / d : 0`: each arm sees the condition's comparisons hold its way.
    s.env = yesEnv === before ? before.clone() : yesEnv;
    const a = onList(yes ? s.evaluate(yes) : CLEAN);
    const afterYes = s.env;
    s.env = noEnv;
    const b = no ? s.evaluate(no) : CLEAN;
    s.env = Env.join([afterYes, s.env]);
    return joinVals(a, b);
  }
  const a = onList(yes ? s.evaluate(yes) : CLEAN);
  const b = no ? s.evaluate(no) : CLEAN;
  return joinVals(a, b);
}
