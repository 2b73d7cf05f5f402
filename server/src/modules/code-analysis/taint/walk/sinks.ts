/**
 * Sinks: a call's arguments (positional, keyed, a list's head, the receiver, the key that picks the function), a
 * property key or a member that reach a sink the catalogue names, with the sink's conditions.
 */
import { CONFIDENCE_LEVELS } from '@tessera/shared';
import type { SyntaxNode } from '../../parsing/tree';
import type { SinkSpec, TaintKind, TaintLanguage } from '../types';
import {
  AUDIT_ANY_VALUE_KINDS,
  atParameterSink,
  auditTaint,
  CLEAN,
  confidenceAt,
  type Taint,
  unionTaint,
  type Val,
} from '../values';
import { fixedDestinationOf } from './destinations';
import { callShape } from './shape';
import { field, isShellCommandLine, namedChildren, select } from './shared';
import type { WalkState } from './state';

/** `{ __html: html }` in JSX: a property whose value is written into the page. */
export function checkKeySink(
  s: WalkState,
  node: SyntaxNode,
  sink: NonNullable<TaintLanguage['keySinks']>[number],
): void {
  const key = field(node, 'key');
  const value = field(node, 'value');
  if (!key || !value || !sink.key.test(s.text(key))) return;
  const v = s.evaluate(value);
  if (v.taint) s.flag(sink.kind, node, s.text(key), v.taint);
}

export function checkSinks(
  s: WalkState,
  call: SyntaxNode,
  callee: string,
  typed: string | undefined,
  args: SyntaxNode[],
  vals: Val[],
  calleeTaint: Taint | undefined,
): void {
  // One finding per kind: a call that is two kinds of sink (a Flask template built from input is both template
  // injection and XSS) is reported as each.
  const flagged = new Set<string>();
  for (const sink of s.lang.sinks) {
    if (flagged.has(sink.kind)) continue;
    if (!(sink.callee.test(callee) || (typed !== undefined && sink.callee.test(typed)))) continue;
    if (!conditionsHold(s, sink, call)) continue;
    if (sink.arg === 'receiver') {
      if (calleeTaint) s.flag(sink.kind, call, callee, calleeTaint);
      continue;
    }
    if (sink.arg === 'key') {
      const key = calleeKey(s, call);
      const taint = key && s.evaluate(key).taint;
      if (taint) s.flag(sink.kind, call, callee, taint);
      continue;
    }
    const positions = sink.arg === 'any' ? args.map((_, i) => i) : sink.arg === 'options' ? [] : [sink.arg];
    const candidates: [SyntaxNode, Val][] = [];
    for (const i of positions) {
      const arg = args[i];
      const v = vals[i];
      if (arg && v) candidates.push(listHeadOf(s, sink, arg, v));
    }
    if (sink.keys) candidates.push(...keyedValues(s, sink, args));
    // The argument the finding is surest of: known input over a parameter over an audit.
    let strongest: { taint: Taint; rank: number } | undefined;
    for (const [whole, wholeVal] of candidates) {
      // `where(admin ? "name = '#{q}'" : { name: q })`: the arms of the types the sink reads, each on its own.
      const typed = sink.argTypes ? typedArms(s, sink.argTypes, whole) : [whole];
      for (const arg of typed) {
        // An arm is read on its own only where the whole carries something: a ternary whose condition checks the
        // value against a list (`PAGES.include?(p) ? p : 'terms'`) is clean as a whole, and stays so.
        if (arg !== whole && !wholeVal.taint) continue;
        const v = arg === whole ? wholeVal : s.evaluate(arg);
        // `exec(compile(code, …))`: the inner call is this flow's sink of the same kind, reported there once.
        if (isSinkCall(s, arg, sink.kind)) continue;
        if (sink.shellList && !isShellCommandLine(shellTexts(sink, vals[0], v))) continue;
        if (sink.wholeValue && v.collection) continue;
        const taint = atParameterSink(
          sink.entry !== undefined
            ? v.collection?.keys.get(sink.entry)
            : (v.taint ?? (sink.audit === false ? undefined : unknownValue(s, arg, v, sink.kind))),
          sink.parameters,
        );
        const confidence = taint && confidenceAt(taint, sink.kind, s.lang.everyInput === true);
        if (!taint || !confidence) continue;
        // A fixed scheme and host before the input: the request goes where the code says, whatever is appended.
        if ((sink.kind === 'ssrf' || sink.kind === 'open-redirect') && fixedDestinationOf(s, arg)) continue;
        const rank = CONFIDENCE_LEVELS.indexOf(confidence);
        if (!strongest || rank > strongest.rank) strongest = { taint, rank };
      }
    }
    if (strongest) {
      s.flag(sink.kind, call, callee, strongest.taint);
      flagged.add(sink.kind);
    }
  }
}

/** The items of a command line the sink runs: the list's, after the program where the call names it apart. */
function shellTexts(sink: SinkSpec, program: Val | undefined, list: Val): (string | undefined)[] | undefined {
  const texts = list.collection?.texts;
  if (sink.shellList !== 'program') return texts;
  const name = program?.constant?.value;
  return [typeof name === 'string' ? name : undefined, ...(texts ?? [])];
}

/**
 * The argument, or the parts of it, of the node types the sink reads as dangerous, looked at through parentheses
 * and the arms of a ternary: `where(admin ? "name = '#{q}'" : "1=1")` passes the string the arm taken gives.
 */
function typedArms(s: WalkState, types: RegExp, arg: SyntaxNode, depth = 0): SyntaxNode[] {
  if (types.test(arg.type)) return [arg];
  const flow = s.flow;
  if (!flow || depth > 8) return [];
  if (flow.parens.includes(arg.type)) {
    const inner = namedChildren(arg);
    return inner.length === 1 ? typedArms(s, types, inner[0] as SyntaxNode, depth + 1) : [];
  }
  const spec = flow.ternaries[arg.type];
  if (!spec) return [];
  const arms =
    spec === 'positional'
      ? [namedChildren(arg)[0], namedChildren(arg)[2]]
      : [select(arg, spec.consequence), select(arg, spec.alternative)];
  return arms.flatMap((a) => (a ? typedArms(s, types, a, depth + 1) : []));
}

/** `["name = ? AND x = #{y}", value]` where the sink reads a list by its head: the template, without the bound values. */
function listHeadOf(s: WalkState, sink: SinkSpec, arg: SyntaxNode, v: Val): [SyntaxNode, Val] {
  if (!sink.listHead?.test(arg.type)) return [arg, v];
  const head = namedChildren(arg)[0];
  return head ? listHeadOf(s, sink, head, s.evaluate(head)) : [arg, CLEAN];
}

/**
 * The values of keyword or hash-option arguments whose key the sink names (`:order => x`, `order: x`, and the
 * pairs of a trailing hash literal `{ :order => x }`); each read as a list's head where the sink says so.
 */
function keyedValues(s: WalkState, sink: SinkSpec, args: SyntaxNode[]): [SyntaxNode, Val][] {
  const out: [SyntaxNode, Val][] = [];
  const pairs = args.flatMap((a) => (a.type === 'hash' ? namedChildren(a) : [a]));
  for (const pair of pairs) {
    const key = field(pair, 'key') ?? field(pair, 'name');
    const value = field(pair, 'value');
    if (!key || !value) continue;
    const name = s.text(key).replace(/^:|:$|^["']|["']$/g, '');
    if (!sink.keys?.test(name)) continue;
    const [node, v] = listHeadOf(s, sink, value, s.evaluate(value));
    // `extra(select={"n": sql})`, `where=[sql]`: every entry of a dict or list given under the key is SQL text.
    const c = v.collection;
    const entries = c && [...c.keys.values(), ...(c.items ?? []), c.other];
    const taint = v.taint ?? entries?.reduce<Taint | undefined>((t, e) => unionTaint(t, e), undefined);
    out.push([node, taint ? { taint } : v]);
  }
  return out;
}

/**
 * A sink's argument that is neither constant nor known to carry anything: an audit taint where the field reads
 * any variable there as a finding (a command line, gosec G204), else nothing.
 */
function unknownValue(s: WalkState, arg: SyntaxNode, v: Val, kind: TaintKind): Taint | undefined {
  if (v.constant || v.collection || !AUDIT_ANY_VALUE_KINDS.includes(kind)) return undefined;
  const text = s.text(arg);
  return auditTaint(
    { text: text.slice(0, 60), line: arg.startRow + 1 },
    s.step(arg, `a value of unknown origin: ${text}`),
  );
}

function isSinkCall(s: WalkState, node: SyntaxNode, kind: TaintKind): boolean {
  if (!s.lang.calls.includes(node.type)) return false;
  const { callee } = callShape(s, node);
  // Gin's `c.Query("sort")` reads the request: a source whose name a sink shares is not a sink reported there.
  if (s.lang.sourceCalls.some((re) => re.test(callee))) return false;
  return s.lang.sinks.some(
    (sink) => sink.kind === kind && sink.callee.test(callee) && conditionsHold(s, sink, node),
  );
}

/**
 * What picks the function a call runs: the key of a subscript (`name` in `handlers[name](…)`,
 * `handlers[name].call(…)`, `new globalThis[name]()`) or a variable holding its name (PHP). A literal key is the
 * code's own choice.
 */
function calleeKey(s: WalkState, call: SyntaxNode): SyntaxNode | undefined {
  const flow = s.flow;
  if (!flow) return undefined;
  // PHP's variable functions and methods: `$fn()`, `$obj->$method()`, `$class::$method()`.
  const name = field(call, 'name') ?? field(call, 'function');
  if (name?.type === 'variable_name') return name;
  let fn = field(call, 'function') ?? field(call, 'constructor');
  while (fn && flow.parens.includes(fn.type)) fn = namedChildren(fn)[0];
  // `handlers[name].call(thisArg, …)`: the function is still the one the key picks.
  if (fn?.type === 'member_expression' && /^(call|apply)$/.test(s.text(field(fn, 'property') ?? fn)))
    fn = field(fn, 'object');
  const spec = fn && flow.subscripts[fn.type];
  const key = spec && fn ? field(fn, spec.index) : undefined;
  return key && !flow.literals?.strings.includes(key.type) ? key : undefined;
}

export function conditionsHold(
  s: WalkState,
  sink: TaintLanguage['sinks'][number],
  call: SyntaxNode,
): boolean {
  if (sink.whenInFunction && !sink.whenInFunction.test(s.source.slice(s.unit.startIndex, s.unit.endIndex)))
    return false;
  if (sink.unlessInFunction?.test(s.source.slice(s.unit.startIndex, s.unit.endIndex))) return false;
  if (sink.unlessInFile?.test(s.source)) return false;
  if (sink.whenInFile && !sink.whenInFile.test(s.source)) return false;
  if (sink.unlessParent && call.parent && sink.unlessParent.test(s.text(call.parent))) return false;
  if (sink.minArgs !== undefined && callShape(s, call).args.length < sink.minArgs) return false;
  if (!sink.when && !sink.unless) return true;
  const text = s.source.slice(call.startIndex, call.endIndex);
  return (!sink.when || sink.when.test(text)) && !sink.unless?.test(text);
}

export function checkMemberSink(
  s: WalkState,
  node: SyntaxNode,
  sink: NonNullable<TaintLanguage['memberSinks']>[number],
): void {
  const member = node.children.find((c) => c.field === sink.member);
  const receiver = node.children.find((c) => c.field === sink.receiver);
  if (!member || !receiver || !sink.name.test(s.text(member))) return;
  if (sink.unless?.test(s.text(receiver))) return;
  const v = s.evaluate(receiver);
  if (v.taint) s.flag(sink.kind, node, s.text(node), v.taint);
}
