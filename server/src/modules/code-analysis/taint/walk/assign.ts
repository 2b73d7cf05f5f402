/**
 * Assignments: a value stored into a name, a field path, a collection entry or a pattern of names; compound
 * assignments (`+=`) folded and checked as their operator; property sinks (`el.innerHTML = x`); C++'s `cin >> name`.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { foldBinary } from '../constants';
import { NAME_LIKE } from '../syntax';
import type { TaintLanguage } from '../types';
import { atParameterSink, built, CLEAN, unionTaint, type Val, withStep } from '../values';
import { putEntry } from './collections';
import { rememberConstructedType } from './declarations';
import { fixedDestinationOf } from './destinations';
import { arithmetic, checkIndex } from './numbers';
import { callShape } from './shape';
import { CONCATENATING, field, IS_CALL, namedChildren, PATH_LIKE, select, URL_PARSERS } from './shared';
import type { WalkState } from './state';
import { checkUrlHost } from './url-host';

/** `std::cin >> name`: the stream's input is stored into the right operand. */
export function streamExtraction(s: WalkState, node: SyntaxNode, source: RegExp): Val | undefined {
  const left = field(node, 'left');
  const right = field(node, 'right');
  const op = field(node, 'operator') ?? node.children.find((c) => !c.named);
  if (!left || !right || !op || s.text(op) !== '>>') return undefined;
  const leftText = s.text(left);
  if (!source.test(leftText)) return undefined;
  if (left.type === node.type) s.evaluate(left);
  assignTo(s, right, { taint: s.newTaint(node, leftText.split('>>')[0] ?? leftText) }, node);
  return CLEAN;
}

export function assignStatement(
  s: WalkState,
  node: SyntaxNode,
  spec: TaintLanguage['assignments'][number],
): Val {
  const target = select(node, spec.target);
  const valueNode = target ? select(node, spec.value, target) : undefined;
  if (!target || !valueNode || valueNode === target) {
    if (node.type === 'variable_declarator' || !valueNode) s.evaluateChildren(node);
    return CLEAN;
  }
  const tuples = s.flow?.tuples;
  if (tuples?.includes(target.type) && tuples.includes(valueNode.type)) {
    // Go's `a, b := x, "c"`: each name takes its own value.
    const targets = namedChildren(target);
    const values = namedChildren(valueNode);
    if (targets.length > 1 && targets.length === values.length) {
      const vals = values.map((value) => s.evaluate(value));
      targets.forEach((t, i) => {
        assignTo(s, t, vals[i] ?? CLEAN, node);
      });
      return CLEAN;
    }
  }
  let v = s.evaluate(valueNode);
  const op = node.children.find((c) => c.field === 'operator' || (!c.named && /=$/.test(c.type)));
  const compound =
    spec.keeps === true ||
    node.type.startsWith('augmented') ||
    (op !== undefined && !/^:?=$/.test(s.text(op)));
  if (compound) {
    const old = s.evaluate(target);
    const opText = op ? s.text(op).replace(/=$/, '') : '+';
    const folded =
      old.constant && v.constant ? foldBinary(opText, old.constant.value, v.constant.value) : undefined;
    // `n += 1`, `total *= n`: the same checks as the operator written out.
    const number = arithmetic(s, node, opText, target, valueNode, old, v);
    let plain = unionTaint(
      old.taint?.numeric ? undefined : old.taint,
      v.taint?.numeric ? undefined : v.taint,
    );
    // `sql += field`, `$q .= $id`: text appended to text builds it, as `sql = sql + field` would.
    const text =
      CONCATENATING.test(opText) &&
      (typeof old.constant?.value === 'string' ||
        typeof v.constant?.value === 'string' ||
        old.taint?.built === true ||
        old.taint?.audit === true);
    if (text) plain = plain ? built(plain) : s.auditOf(node, [old, v]);
    v = {
      taint: plain ?? number,
      constant: folded === undefined ? undefined : { value: folded },
    };
  }
  // A declaration (`let location = …`) makes a new local of that name, not a write to the global it shadows.
  const sink = /declarator|declaration/.test(node.type)
    ? undefined
    : s.lang.propertySinks?.find(
        (p) => p.target.test(s.text(target)) && (!p.valueTypes || p.valueTypes.test(valueNode.type)),
      );
  if (sink) {
    // `session[key] = value`: an untrusted key crosses the boundary as much as an untrusted value.
    const sub = s.flow?.subscripts[target.type];
    const index = sub ? field(target, sub.index) : undefined;
    const taint = atParameterSink(
      v.taint ?? (index ? s.evaluate(index).taint : undefined),
      // A parameter counts at a member (`window.location`, `location.href`): a bare `location` may be a local.
      sink.parameters && target.type !== 'identifier',
    );
    // `location.href = "https://example.com/" + input`: the host is the code's, as for a call's URL.
    const fixed = (sink.kind === 'open-redirect' || sink.kind === 'ssrf') && fixedDestinationOf(s, valueNode);
    if (taint && !fixed) s.flag(sink.kind, node, s.text(target), taint);
  }
  if (s.lang.urlHosts) checkUrlHost(s, node, valueNode);
  assignTo(s, target, v, node);
  rememberConstructedType(s, target, valueNode);
  rememberParsedUrl(s, target, valueNode);
  return v;
}

/** `url = urlparse(target)`: a check of `url`'s host or scheme is a check of `target`. */
export function rememberParsedUrl(s: WalkState, target: SyntaxNode, value: SyntaxNode): void {
  if (!s.lang.calls.includes(value.type) || !NAME_LIKE.test(target.type)) return;
  const { callee, args } = callShape(s, value);
  const arg = args[0];
  if (!arg || !NAME_LIKE.test(arg.type) || !URL_PARSERS.test(callee)) return;
  s.env.parsedFrom.set(s.text(target), s.text(arg));
}

/** Stores a value into a target: a name, a field path, a subscript (collection entry), or a pattern of names. */
export function assignTo(s: WalkState, target: SyntaxNode, v: Val, at: SyntaxNode): void {
  const subscript = s.flow?.subscripts[target.type];
  if (subscript) {
    const objectNode = field(target, subscript.object);
    const indexNode = field(target, subscript.index);
    if (objectNode && (NAME_LIKE.test(objectNode.type) || PATH_LIKE.test(objectNode.type))) {
      const name = s.text(objectNode);
      const index = indexNode ? s.evaluate(indexNode) : CLEAN;
      checkIndex(s, target, indexNode, index);
      putEntry(s, name, index.constant?.value, v.taint, at, true);
      return;
    }
  }
  const taint = withStep(v.taint, s.step(at, `${s.text(target)} = …`));
  const val: Val = { ...v, taint };
  if (
    NAME_LIKE.test(target.type) ||
    target.children.length === 0 ||
    (PATH_LIKE.test(target.type) && !IS_CALL.test(target.type))
  ) {
    const name = s.text(target);
    // A declaration (`String q = …`) or a name already local is not the object's field of that name.
    const local = s.env.has(name) || /declarat/.test(at.type);
    s.env.set(name, val);
    if (taint && s.reporting && (!local || /[.>@]/.test(name))) s.ctx.storeField(s.unit, name, taint);
    return;
  }
  const elements = namedChildren(target);
  // A wrapper of one name (Go's expression list, Kotlin's variable declaration) takes the whole value.
  if (elements.length === 1 && (!v.collection || s.flow?.tuples?.includes(target.type))) {
    assignTo(s, elements[0] as SyntaxNode, v, at);
    return;
  }
  const items = v.collection?.items;
  elements.forEach((element, i) => {
    const item = items && items.length === elements.length ? { taint: items[i] } : { taint: v.taint };
    assignTo(s, element, item, at);
  });
}
