/**
 * Switches: `switch`/`when`/`match` arms explored apart (falling through where the language does) and joined; a
 * constant subject runs the arm it selects.
 */
import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax } from '../flow/types';
import { CLEAN, type Const, Env, type Val } from '../values';
import { explore } from './paths';
import { field, joinVals, select } from './shared';
import type { WalkState } from './state';

export function switchOn(s: WalkState, flow: FlowSyntax, node: SyntaxNode): Val {
  const spec = flow.switches[node.type];
  if (!spec) return CLEAN;
  const init = field(node, 'initializer');
  if (init) s.evaluate(init);
  const subjectNode = select(node, spec.subject);
  const subject = subjectNode ? s.evaluate(subjectNode) : CLEAN;
  const arms = spec.arms(node);
  const labelValue = (label: SyntaxNode): Const | undefined => s.evaluate(label).constant?.value;
  const outcomes: Env[] = [];
  // A `when` or `match` expression's value: the value of each arm that runs.
  const values: Val[] = [];
  const runFrom = (start: number) => {
    let env = s.env.clone();
    for (let i = start; i < arms.length; i += 1) {
      const arm = arms[i];
      if (!arm) break;
      env = explore(s, arm.body, env);
      if (arm.ends) break;
    }
    outcomes.push(env);
    if (!env.dead) values.push(s.explored);
  };
  if (subject.constant) {
    const value = subject.constant.value;
    let start = arms.findIndex(
      (a) => a.labels !== 'default' && a.labels.some((l) => labelValue(l) === value),
    );
    if (start === -1) start = arms.findIndex((a) => a.labels === 'default');
    if (start === -1) outcomes.push(s.env.clone());
    else runFrom(start);
  } else {
    for (let i = 0; i < arms.length; i += 1) runFrom(i);
    if (!arms.some((a) => a.labels === 'default')) outcomes.push(s.env.clone());
  }
  s.env = Env.join(outcomes);
  return values.length === 0 ? CLEAN : values.reduce((x, y) => joinVals(x, y));
}
