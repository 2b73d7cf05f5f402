/**
 * Closures: a lambda, arrow function or block runs where it is written, seeing the enclosing function's names (it is
 * also walked as its own unit; findings are reported once); an iterator's callback gets the receiver's items.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { CLEAN, type Taint, type Val } from '../values';
import { explore } from './paths';
import { ARGUMENT_LISTS } from './shared';
import type { WalkState } from './state';

/** A receiver read without running anything (a name, a member path, a subscript): reading it again is harmless. */
const COLLECTION_PATH =
  /^(identifier|member_expression|attribute|subscript(_expression)?|field_access|element_reference|instance_variable|variable_name|selector_expression|navigation_expression)$/;
/** Methods that call their block or callback with each item of the receiver. */
const ITERATORS =
  /^(forEach|map|flatMap|filter|find|findIndex|some|every|each|each_with_index|collect|select|reject|flat_map|foreach)$/;

/** The taint of the collection a closure iterates over when it is the callback of `forEach`, `map`, `each`… */
function iterated(s: WalkState, closure: SyntaxNode): Taint | undefined {
  let call = closure.parent;
  if (call && ARGUMENT_LISTS.test(call.type)) call = call.parent;
  const flow = s.flow;
  if (!call || !flow || !s.lang.calls.includes(call.type)) return undefined;
  const method = flow.method(call);
  const receiver = flow.receiver(call);
  if (!method || !receiver || !ITERATORS.test(s.text(method)) || !COLLECTION_PATH.test(receiver.type))
    return undefined;
  return s.evaluate(receiver).taint;
}

/**
 * A closure (lambda, arrow function, block) runs where it is written, seeing the enclosing function's names:
 * `db.withConnection { conn => conn.query(sql) }`. It is also walked as its own unit; findings are reported once.
 */
export function runClosure(s: WalkState, node: SyntaxNode): Val {
  const returned = s.returned;
  const env = s.env.clone();
  const params = s.ctx.parameters(node);
  for (const name of params) env.set(name, CLEAN);
  // `ids.forEach((id) => …)`, `params[:ids].each do |id|`: the block's first parameter is an item of the receiver.
  const items = iterated(s, node);
  if (items && params[0]) env.vars.set(params[0], items);
  const containers = s.ctx.parameterContainers;
  const body = node.children.filter(
    (c) => c.named && c.field !== 'parameters' && c.field !== 'parameter' && !containers.includes(c.type),
  );
  s.closures += 1;
  explore(s, body, env);
  s.closures -= 1;
  s.returned = returned;
  return CLEAN;
}
