/**
 * Library methods: collections, lookup tables, constants folded, replacements, builders, mutators, formatters.
 */
import type { SyntaxNode } from '../../parsing/tree';
import { foldMethod, unescapeLiteral } from '../constants';
import { kindsRejecting } from '../guards';
import { isLookupTable } from '../lookup-tables';
import { CLEAN_METHODS, MUTATORS } from '../models';
import { NAME_LIKE } from '../syntax';
import { built, CLEAN, type Const, markSafe, type Taint, unionTaint, type Val } from '../values';
import { collectionCall } from './collections';
import { FORMATTERS, numericFormatSafeFor } from './shared';
import type { WalkState } from './state';

/** A string builder's methods that add text to it (Java, Kotlin, C#). */
const BUILDER_APPENDS = /^(append|insert|Append|AppendFormat|AppendLine|Insert)$/;

/** A call to a method nothing the file defines answers: its parts, as `evaluateCall` read them. */
export interface MethodCall {
  callee: string;
  method: string;
  receiverNode: SyntaxNode | undefined;
  receiver: Val;
  vals: Val[];
  argTaint: Taint | undefined;
  calleeTaint: Taint | undefined;
}

/**
 * What a library method does with its receiver and arguments, where nothing the file defines answers the call:
 * collections built and read entry by entry, lookup tables, constants folded, replacements that remove what would
 * break out, string builders, mutators, formatters; else the call's value carries what went in.
 */
export function knownMethod(s: WalkState, call: SyntaxNode, c: MethodCall): Val {
  const { callee, method, receiverNode, receiver, vals, argTaint, calleeTaint } = c;
  const flow = s.flow;
  if (flow?.newCollection.test(callee))
    return { collection: { keys: new Map(), items: [], other: argTaint } };

  const receiverName =
    receiverNode && (NAME_LIKE.test(receiverNode.type) || /field_access|attribute/.test(receiverNode.type))
      ? s.text(receiverNode)
      : undefined;
  // A value looked up in a table of constants is one of them, or the default given.
  const tableName = receiverName ?? (receiverNode?.type === 'constant' ? s.text(receiverNode) : undefined);
  if (tableName && /^(get|getOrDefault|fetch)$/.test(method) && isLookupTable(s.ctx.parsed, tableName)) {
    const fallback = vals[1]?.taint;
    return fallback ? { taint: fallback } : CLEAN;
  }
  const modelled = receiverName ? collectionCall(s, receiverName, method, vals, call) : undefined;
  if (modelled) return modelled;
  if (receiver.constant) {
    const folded = foldMethod(
      method,
      receiver.constant.value,
      vals.map((v) => (v.constant ? v.constant.value : (Symbol.for('unknown') as unknown as Const))),
    );
    if (folded !== undefined) return { constant: { value: folded } };
  }
  if (CLEAN_METHODS.has(method)) return CLEAN;
  // `s.replace("'", "&apos;")`, `s.replaceAll("[<>]", "")`: the characters replaced away can no longer break out
  // of a quoted context. Removing a longer sequence (`<script>`) is not that: `<scr<script>ipt>` collapses into it.
  // Escapes some grammars keep as written (Kotlin's `"\n"`, a regex's `[\r\n]`) are read as the characters.
  const [from, to] = vals.map((v) => v.constant?.value);
  const removed =
    typeof from !== 'string'
      ? undefined
      : from.length === 1 || /^\\.$/.test(from)
        ? unescapeLiteral(from)
        : method === 'replaceAll' && /^\[[^\]^]+\]$/.test(from)
          ? unescapeLiteral(from.slice(1, -1))
          : undefined;
  if (
    /^([rR]eplace(All)?|replacingOccurrences)$/.test(method) &&
    removed !== undefined &&
    typeof to === 'string' &&
    ![...removed].some((c) => to.includes(c))
  ) {
    const taint = markSafe(receiver.taint, kindsRejecting(removed));
    return taint ? { taint } : CLEAN;
  }
  // `props.getProperty(key, "default")` of Properties never loaded here can only be the default.
  if (method === 'getProperty' && vals[1]?.constant && receiverName && !loads(s, receiverName))
    return { constant: vals[1].constant };
  // A string builder's `append`/`AppendFormat`: the argument becomes part of text being assembled, as with `+`.
  if (
    receiverName &&
    argTaint &&
    BUILDER_APPENDS.test(method) &&
    /^(StringBuilder|StringBuffer)$/.test(s.env.types.get(receiverName) ?? '')
  ) {
    const text = built(unionTaint(s.env.vars.get(receiverName), argTaint)) as Taint;
    s.env.vars.set(receiverName, text);
    return { taint: unionTaint(receiver.taint, text) };
  }
  // `s.concat(x)`: the receiver's text with the arguments' joined on, written back only where the language's
  // method changes its receiver (Ruby); `base.concat(x)` in JS or Java leaves `base` as it was.
  if (flow?.concat.methods.test(method) && receiverNode) {
    const text = built(unionTaint(receiver.taint, argTaint));
    if (text && !text.numeric && flow.concat.inPlace && receiverName && !isClassName(s, receiverName))
      s.env.vars.set(receiverName, unionTaint(s.env.vars.get(receiverName), text) as Taint);
    if (!text?.numeric) return text ? { taint: text } : CLEAN;
  }
  if (receiverName && MUTATORS.has(method) && argTaint && !isClassName(s, receiverName)) {
    s.env.vars.set(receiverName, unionTaint(s.env.vars.get(receiverName), argTaint) as Taint);
    return { taint: unionTaint(receiver.taint, argTaint) };
  }
  let taint = unionTaint(calleeTaint, argTaint);
  // What an unknown function makes of a number (`Math.sqrt(n)`, `Math.min(n, 10)`, `String.valueOf(n)`) is not n.
  if (taint?.numeric) taint = undefined;
  if (FORMATTERS.test(method)) {
    // The receiver is part of the text only when it is the template (`"{}".format(x)`) or carries data: a
    // package (`fmt.Sprintf("…")`) is not a value of unknown origin.
    const parts = receiver.constant || receiver.taint ? [receiver, ...vals] : vals;
    taint = built(taint) ?? s.auditOf(call, parts);
    const format = [receiver, ...vals].find((v) => typeof v.constant?.value === 'string')?.constant?.value;
    if (typeof format === 'string') taint = markSafe(taint, numericFormatSafeFor(format));
  }
  return taint ? { taint } : CLEAN;
}

export function loads(s: WalkState, receiver: string): boolean {
  return s.source.slice(s.unit.startIndex, s.unit.endIndex).replace(/\s+/g, '').includes(`${receiver}.load`);
}

export function isClassName(s: WalkState, name: string): boolean {
  return /^[A-Z]/.test(name) && !s.env.has(name);
}
