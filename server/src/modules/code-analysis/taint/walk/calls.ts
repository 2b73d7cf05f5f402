/**
 * Calls: the callee's parts and the arguments evaluated, sources and propagators, sinks and size sinks, value
 * checks, sanitisers (plain, per kind, of a template's bound values), then the call through a summary (summaries.ts)
 * or a library method's model (methods.ts).
 */
import type { SyntaxNode } from '../../parsing/tree';
import { NAME_LIKE } from '../syntax';
import { built, CLEAN, markSafe, type Taint, unionTaint, type Val, withStep } from '../values';
import { assignTo } from './assign';
import { parameterDefault } from './declarations';
import { knownMethod } from './methods';
import { checkSizes, numberFromCall } from './numbers';
import { callShape } from './shape';
import { field, namedChildren } from './shared';
import { checkSinks } from './sinks';
import type { WalkState } from './state';
import { throughSummary } from './summaries';
import { checkCleartext, checkValues } from './value-checks';

export function evaluateCall(s: WalkState, call: SyntaxNode): Val {
  const { callee, args, argsNode } = callShape(s, call);
  const flow = s.flow;
  const receiverNode = flow?.receiver(call);
  const methodNode = flow?.method(call);
  // The callee's own parts (the receiver, a member path) are read before the arguments.
  let calleeTaint: Taint | undefined;
  let receiver: Val = CLEAN;
  if (receiverNode) {
    receiver = s.evaluate(receiverNode);
    calleeTaint = receiver.taint;
    if (receiver.constant?.value === null && (s.reporting || s.probe))
      s.ctx.reportNullDereference(call, receiverNode, s.unit, s.probe);
  } else if (!argsNode) {
    const receiverChild = call.children.find((c) => c.field === 'receiver');
    if (receiverChild) calleeTaint = s.evaluate(receiverChild).taint;
  } else {
    for (const c of call.children) {
      if (c === argsNode || !c.named || c === methodNode || c.startIndex >= argsNode.startIndex) continue;
      if (c.type === 'call_suffix') continue;
      calleeTaint = unionTaint(calleeTaint, s.evaluate(c).taint);
    }
  }
  const vals = args.map((a) => s.evaluate(a));
  // Ruby's `items.each do |item| … end`: the block runs where the call is, seeing its names.
  const block = field(call, 'block');
  if (block && !args.includes(block)) s.evaluate(block);
  // Keyword arguments (`shell=True`) are evaluated as their value.
  const method = methodNode ? s.text(methodNode) : (callee.split('.').pop() ?? callee).replace(/^new/, '');
  const typed = typedCallee(s, receiverNode, method);
  const matches = (re: RegExp) => re.test(callee) || (typed !== undefined && re.test(typed));

  for (const source of s.lang.sourceArguments ?? []) {
    if (!matches(source.callee)) continue;
    if (source.when && !source.when.test(s.source.slice(call.startIndex, call.endIndex))) continue;
    const targets = source.into === 'all' ? args : args.slice(source.into, source.into + 1);
    const taint = s.newTaint(call, callee);
    for (const target of targets) assignTo(s, target, { taint }, call);
  }
  for (const p of s.lang.propagators ?? []) {
    const target = args[p.into];
    if (!target || !p.callee.test(callee)) continue;
    const taint = built(vals.find((v, i) => i !== p.into && v.taint)?.taint);
    if (taint) assignTo(s, target, { taint: unionTaint(s.evaluate(target).taint, taint) }, call);
  }
  checkSinks(s, call, callee, typed, args, vals, calleeTaint);
  checkSizes(s, call, matches, args, vals);
  checkValues(s, call, callee, typed, vals);
  checkCleartext(s, call, callee, vals);
  // `def fetch(url="http://…"): requests.get(url)`: the function's own default, used when a caller passes none.
  const defaults = args.map((arg, i) =>
    !vals[i]?.constant && (!vals[i]?.taint || vals[i]?.taint?.weak) && NAME_LIKE.test(arg.type)
      ? parameterDefault(s, s.text(arg))
      : undefined,
  );
  if (defaults.some((d) => d !== undefined))
    checkCleartext(
      s,
      call,
      callee,
      defaults.map((d) => (d === undefined ? CLEAN : { constant: { value: d } })),
      'medium',
    );

  const argTaint = vals.reduce<Taint | undefined>((t, v) => unionTaint(t, v.taint), undefined);
  const number = numberFromCall(s, call, matches, vals, unionTaint(argTaint, calleeTaint));
  if (number) return number;
  if (s.lang.sanitizers.some(matches)) return CLEAN;
  const template = templateTaint(s, matches, args, vals);
  if (template) return template;
  for (const sanitizer of s.lang.kindSanitizers ?? []) {
    if (!matches(sanitizer.callee) || (sanitizer.when && !sanitizer.when.test(s.text(call)))) continue;
    const t = markSafe(unionTaint(argTaint, calleeTaint), sanitizer.kinds);
    return t ? { taint: withStep(t, s.step(call, `sanitised by ${callee}`)) } : CLEAN;
  }
  if (s.lang.sourceCalls.some(matches) || s.lang.sources.some((re) => re.test(callee)))
    return { taint: s.newTaint(call, s.text(call)) };

  // Without a flow adapter there is no receiver node: `repo.find` names its receiver in the callee's text.
  const prefix = callee.includes('.') ? callee.slice(0, callee.lastIndexOf('.')) : undefined;
  const receiverType = receiverNode
    ? typeOf(s, receiverNode)
    : prefix && (s.env.types.get(prefix) ?? s.ctx.fieldTypes.get(prefix));
  const summary = s.ctx.summaryFor(callee, method, args.length, receiverNode, receiverType);
  if (summary) return throughSummary(s, call, summary, vals, method);
  return knownMethod(s, call, { callee, method, receiverNode, receiver, vals, argTaint, calleeTaint });
}

/** `Type.method` for a receiver whose declared type is known (`xp.evaluate` → `XPath.evaluate`). */
export function typedCallee(
  s: WalkState,
  receiver: SyntaxNode | undefined,
  method: string,
): string | undefined {
  const type = receiver ? typeOf(s, receiver) : undefined;
  return type ? `${type}.${method}` : undefined;
}

export function typeOf(s: WalkState, receiver: SyntaxNode): string | undefined {
  return s.env.types.get(s.text(receiver)) ?? s.ctx.fieldTypes.get(s.text(receiver));
}

/**
 * `sanitize_sql_array(["name = ?", name])`: the bound values are made safe for the sanitiser's kinds; what the
 * template itself carries (`["name = '#{name}'"]`) stays.
 */
function templateTaint(
  s: WalkState,
  matches: (re: RegExp) => boolean,
  args: SyntaxNode[],
  vals: Val[],
): Val | undefined {
  const spec = s.lang.templateSanitizers?.find((t) => matches(t.callee));
  const first = args[0];
  if (!spec || !first) return undefined;
  const head = spec.list.test(first.type) ? namedChildren(first)[0] : first;
  const template = head === first ? vals[0] : head ? s.evaluate(head) : CLEAN;
  const bound = vals.reduce<Taint | undefined>((t, v) => unionTaint(t, v.taint), undefined);
  const taint = unionTaint(template?.taint, head === first ? undefined : markSafe(bound, spec.kinds));
  return taint ? { taint } : CLEAN;
}
