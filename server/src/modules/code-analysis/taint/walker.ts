import type { SyntaxNode } from '../parsing/tree';
import { foldBinary } from './constants';
import { NAME_LIKE } from './syntax';
import type { TaintLanguage } from './types';
import { atParameterSink, built, CLEAN, unionTaint, type Val, withStep } from './values';
import { streamExtraction } from './walk/assign';
import { callShape, evaluateCall } from './walk/calls';
import { runClosure } from './walk/closures';
import { putEntry } from './walk/collections';
import { constructorDeclaration, rememberConstructedType } from './walk/declarations';
import { fixedDestinationOf } from './walk/destinations';
import { evaluateFlow } from './walk/dispatch';
import { tokenTree } from './walk/macros';
import { arithmetic, checkIndex, extremeValue } from './walk/numbers';
import { CONCATENATING, field, IS_CALL, namedChildren, PATH_LIKE, select, URL_PARSERS } from './walk/shared';
import { checkKeySink, checkMemberSink, checkSinks } from './walk/sinks';
import { WalkState } from './walk/state';

export { type CallShape, type SinkHit, select } from './walk/shared';

/**
 * The dataflow of one function (or the top level): statements in order over an abstract state (taint, constants,
 * collections), branches explored apart and joined, dead branches (constant conditions) skipped, calls to the
 * file's own functions applied through their summaries. In layers (walk/): base.ts the state and reporting,
 * expressions.ts literals and operators, statements.ts control flow, calls.ts calls, sinks and summaries; this class
 * dispatches a node to them and stores assignments.
 */
export class FlowWalker extends WalkState {
  /** Evaluates an expression or runs a statement, in order, updating the state; returns the value. */
  override evaluate(node: SyntaxNode): Val {
    if (this.env.dead) return CLEAN;
    if (node !== this.unit && node.named && this.ctx.isFunction(node))
      return this.ctx.isClosure(node) ? runClosure(this, node) : CLEAN; // its own unit
    const flow = this.flow;
    const type = node.type;
    for (const clean of this.lang.cleanMembers ?? [])
      if (clean.types.includes(type) && clean.pattern.test(this.text(node))) return CLEAN;
    const extraction = this.lang.extractions?.find((e) => e.type === type);
    if (extraction) {
      const handled = streamExtraction(this, node, extraction.source);
      if (handled) return handled;
    }
    if (flow) {
      const handled = evaluateFlow(this, flow, node);
      if (handled) return handled;
    }
    if (this.lang.calls.includes(type)) return evaluateCall(this, node);
    if (type === 'token_tree' && this.lang.tokenTrees) return tokenTree(this, node);
    if (type === 'macro_invocation' && this.lang.tokenTrees) return this.macro(node);
    if (this.lang.constructorDeclarations?.includes(type)) constructorDeclaration(this, node);
    for (const k of this.lang.keySinks ?? []) if (k.type === type) checkKeySink(this, node, k);
    const assignment = this.lang.assignments.find((a) => a.type === type);
    if (assignment) return this.assign(node, assignment);
    for (const m of this.lang.memberSinks ?? []) if (m.type === type) checkMemberSink(this, node, m);
    if (PATH_LIKE.test(type) || node.children.length === 0 || this.lang.sourceNodes?.includes(type)) {
      const text = this.text(node);
      const known = this.env.has(text) ? this.env.get(text) : undefined;
      // A parameter of unknown origin named like a source (`argv`, `args`) is that source.
      if (known && (!known.taint?.weak || known.taint.audit)) return known;
      if (this.lang.sources.some((re) => re.test(text))) return { taint: this.newTaint(node, text) };
      if (known) return known;
      const extreme = extremeValue(this, node, text);
      if (extreme) return extreme;
      // A field another method of the class stored input in.
      const stored = this.ctx.readField(this.unit, text);
      if (stored) return { taint: withStep(stored, this.step(node, `reads ${text}`)) };
      const fixed = this.ctx.fieldConstant(this.unit, text);
      if (fixed) return { constant: fixed };
      if (node.children.length === 0) return CLEAN;
      // `a.length` of an `a` that holds null here.
      const object = /^(field_access|attribute|member_expression)$/.test(type)
        ? node.children.find((c) => c.field === 'object')
        : undefined;
      if (object && (this.reporting || this.probe) && this.evaluate(object).constant?.value === null)
        this.ctx.reportNullDereference(node, object, this.unit, this.probe);
    }
    return this.evaluateChildren(node);
  }

  /**
   * A macro (`info!("user {}", name)`): its tokens' taint, and a sink when the catalogue names the macro with its
   * `!` (the callee is the macro's path and `!`, its one argument the token tree).
   */
  private macro(node: SyntaxNode): Val {
    const tree = node.children.find((c) => c.type === 'token_tree');
    const name = node.children[0];
    if (!tree || !name) return this.evaluateChildren(node);
    const v = this.evaluateChildren(node);
    checkSinks(this, node, `${this.text(name).replace(/\s+/g, '')}!`, undefined, [tree], [v], undefined);
    return v;
  }

  protected assign(node: SyntaxNode, spec: TaintLanguage['assignments'][number]): Val {
    const target = select(node, spec.target);
    const valueNode = target ? select(node, spec.value, target) : undefined;
    if (!target || !valueNode || valueNode === target) {
      if (node.type === 'variable_declarator' || !valueNode) this.evaluateChildren(node);
      return CLEAN;
    }
    const tuples = this.flow?.tuples;
    if (tuples?.includes(target.type) && tuples.includes(valueNode.type)) {
      // Go's `a, b := x, "c"`: each name takes its own value.
      const targets = namedChildren(target);
      const values = namedChildren(valueNode);
      if (targets.length > 1 && targets.length === values.length) {
        const vals = values.map((value) => this.evaluate(value));
        targets.forEach((t, i) => {
          this.assignTo(t, vals[i] ?? CLEAN, node);
        });
        return CLEAN;
      }
    }
    let v = this.evaluate(valueNode);
    const op = node.children.find((c) => c.field === 'operator' || (!c.named && /=$/.test(c.type)));
    const compound =
      spec.keeps === true ||
      node.type.startsWith('augmented') ||
      (op !== undefined && !/^:?=$/.test(this.text(op)));
    if (compound) {
      const old = this.evaluate(target);
      const opText = op ? this.text(op).replace(/=$/, '') : '+';
      const folded =
        old.constant && v.constant ? foldBinary(opText, old.constant.value, v.constant.value) : undefined;
      // `n += 1`, `total *= n`: the same checks as the operator written out.
      const number = arithmetic(this, node, opText, target, valueNode, old, v);
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
      if (text) plain = plain ? built(plain) : this.auditOf(node, [old, v]);
      v = {
        taint: plain ?? number,
        constant: folded === undefined ? undefined : { value: folded },
      };
    }
    // A declaration (`let location = …`) makes a new local of that name, not a write to the global it shadows.
    const sink = /declarator|declaration/.test(node.type)
      ? undefined
      : this.lang.propertySinks?.find(
          (p) => p.target.test(this.text(target)) && (!p.valueTypes || p.valueTypes.test(valueNode.type)),
        );
    if (sink) {
      // `session[key] = value`: an untrusted key crosses the boundary as much as an untrusted value.
      const sub = this.flow?.subscripts[target.type];
      const index = sub ? field(target, sub.index) : undefined;
      const taint = atParameterSink(
        v.taint ?? (index ? this.evaluate(index).taint : undefined),
        // A parameter counts at a member (`window.location`, `location.href`): a bare `location` may be a local.
        sink.parameters && target.type !== 'identifier',
      );
      // `location.href = "https://example.com/" + input`: the host is the code's, as for a call's URL.
      const fixed =
        (sink.kind === 'open-redirect' || sink.kind === 'ssrf') && fixedDestinationOf(this, valueNode);
      if (taint && !fixed) this.flag(sink.kind, node, this.text(target), taint);
    }
    this.assignTo(target, v, node);
    rememberConstructedType(this, target, valueNode);
    this.rememberParsedUrl(target, valueNode);
    return v;
  }

  /** `url = urlparse(target)`: a check of `url`'s host or scheme is a check of `target`. */
  protected rememberParsedUrl(target: SyntaxNode, value: SyntaxNode): void {
    if (!this.lang.calls.includes(value.type) || !NAME_LIKE.test(target.type)) return;
    const { callee, args } = callShape(this, value);
    const arg = args[0];
    if (!arg || !NAME_LIKE.test(arg.type) || !URL_PARSERS.test(callee)) return;
    this.env.parsedFrom.set(this.text(target), this.text(arg));
  }

  /** Stores a value into a target: a name, a field path, a subscript (collection entry), or a pattern of names. */
  override assignTo(target: SyntaxNode, v: Val, at: SyntaxNode): void {
    const subscript = this.flow?.subscripts[target.type];
    if (subscript) {
      const objectNode = field(target, subscript.object);
      const indexNode = field(target, subscript.index);
      if (objectNode && (NAME_LIKE.test(objectNode.type) || PATH_LIKE.test(objectNode.type))) {
        const name = this.text(objectNode);
        const index = indexNode ? this.evaluate(indexNode) : CLEAN;
        checkIndex(this, target, indexNode, index);
        putEntry(this, name, index.constant?.value, v.taint, at, true);
        return;
      }
    }
    const taint = withStep(v.taint, this.step(at, `${this.text(target)} = …`));
    const val: Val = { ...v, taint };
    if (
      NAME_LIKE.test(target.type) ||
      target.children.length === 0 ||
      (PATH_LIKE.test(target.type) && !IS_CALL.test(target.type))
    ) {
      const name = this.text(target);
      // A declaration (`String q = …`) or a name already local is not the object's field of that name.
      const local = this.env.has(name) || /declarat/.test(at.type);
      this.env.set(name, val);
      if (taint && this.reporting && (!local || /[.>@]/.test(name)))
        this.ctx.storeField(this.unit, name, taint);
      return;
    }
    const elements = namedChildren(target);
    // A wrapper of one name (Go's expression list, Kotlin's variable declaration) takes the whole value.
    if (elements.length === 1 && (!v.collection || this.flow?.tuples?.includes(target.type))) {
      this.assignTo(elements[0] as SyntaxNode, v, at);
      return;
    }
    const items = v.collection?.items;
    elements.forEach((element, i) => {
      const item = items && items.length === elements.length ? { taint: items[i] } : { taint: v.taint };
      this.assignTo(element, item, at);
    });
  }
}
