import type { SyntaxNode } from '../../parsing/tree';
import { parseNumber, truthy, unescapeLiteral } from '../constants';
import type { BranchSpec, FlowSyntax } from '../flow/types';
import {
  allowListedValue,
  allowListHeld,
  applyGuard,
  applySafeRedirectCheck,
  relativePathHeld,
} from '../guards';
import { refineNumbers } from '../numeric/refine';
import { CLEAN, type Const, Env, markSafe, type Taint, type Val } from '../values';
import { dictLiteral, listLiteral, subscriptRead } from './containers';
import { declareTypes } from './declarations';
import { stringLiteral } from './literals';
import { checkCast, checkLoopBound, numericModel, refineHost } from './numbers';
import { binaryOperation, comparisonChain, unaryOperation } from './operators';
import { ARGUMENT_LISTS, field, joinVals, namedChildren, select, selectAll } from './shared';
import { WalkState } from './state';

/** A receiver read without running anything (a name, a member path, a subscript): reading it again is harmless. */
const COLLECTION_PATH =
  /^(identifier|member_expression|attribute|subscript(_expression)?|field_access|element_reference|instance_variable|variable_name|selector_expression|navigation_expression)$/;
/** Methods that call their block or callback with each item of the receiver. */
const ITERATORS =
  /^(forEach|map|flatMap|filter|find|findIndex|some|every|each|each_with_index|collect|select|reject|flat_map|foreach)$/;

/** Only input or chance can be narrowed: a state holding parameters of unknown origin alone has nothing to do. */
function hasInput(env: Env): boolean {
  for (const t of env.vars.values()) if (!t.weak && !t.audit) return true;
  return false;
}

/** Statements and control flow: branches explored apart and joined, constant conditions deciding, switches, loops, tries, returns. */
export abstract class StatementWalker extends WalkState {
  /**
   * A closure (lambda, arrow function, block) runs where it is written, seeing the enclosing function's names:
   * `db.withConnection { conn => conn.query(sql) }`. It is also walked as its own unit; findings are reported once.
   */
  /** The taint of the collection a closure iterates over when it is the callback of `forEach`, `map`, `each`… */
  private iterated(closure: SyntaxNode): Taint | undefined {
    let call = closure.parent;
    if (call && ARGUMENT_LISTS.test(call.type)) call = call.parent;
    const flow = this.flow;
    if (!call || !flow || !this.lang.calls.includes(call.type)) return undefined;
    const method = flow.method(call);
    const receiver = flow.receiver(call);
    if (!method || !receiver || !ITERATORS.test(this.text(method)) || !COLLECTION_PATH.test(receiver.type))
      return undefined;
    return this.evaluate(receiver).taint;
  }

  protected closure(node: SyntaxNode): Val {
    const returned = this.returned;
    const env = this.env.clone();
    const params = this.ctx.parameters(node);
    for (const name of params) env.set(name, CLEAN);
    // `ids.forEach((id) => …)`, `params[:ids].each do |id|`: the block's first parameter is an item of the receiver.
    const items = this.iterated(node);
    if (items && params[0]) env.vars.set(params[0], items);
    const containers = this.ctx.parameterContainers;
    const body = node.children.filter(
      (c) => c.named && c.field !== 'parameters' && c.field !== 'parameter' && !containers.includes(c.type),
    );
    this.closures += 1;
    this.explore(body, env);
    this.closures -= 1;
    this.returned = returned;
    return CLEAN;
  }

  protected evaluateFlow(flow: FlowSyntax, node: SyntaxNode): Val | undefined {
    const type = node.type;
    if (flow.branches[type]) return this.branch(flow, node);
    if (flow.elses?.[type]) {
      const body = select(node, flow.elses[type] as string);
      return body ? this.evaluate(body) : CLEAN;
    }
    const ternary = flow.ternaries[type];
    if (ternary) return this.ternary(node, ternary);
    if (flow.switches[type]) return this.switchOn(flow, node);
    if (flow.loops[type]) return this.loop(flow, node);
    if (flow.foreach[type]) return this.foreach(flow, node);
    if (flow.tries[type]) return this.tryStatement(flow, node);
    const jump = flow.jumps?.includes(type) ? node.children[0]?.type : undefined;
    if (jump === 'throw') {
      this.evaluateChildren(node);
      this.env.dead = true;
      return CLEAN;
    }
    if (flow.returns.includes(type) || jump === 'return') {
      const value = namedChildren(node)[0];
      const v = value ? this.evaluate(value) : CLEAN;
      this.returned = this.returned ? joinVals(this.returned, v) : v;
      if (value && this.closures === 0) this.ctx.onReturn(this, this.unit, value, v);
      this.env.dead = true;
      return v;
    }
    if (flow.exits.includes(type)) {
      this.evaluateChildren(node);
      // A module's own top-level `raise` or `exit()` (a script that refuses to run, an example file) does not hide
      // the statements written after it: they are code a reader edits and runs, and what they do is reported.
      if (node.parent !== this.unit || this.ctx.isFunction(this.unit)) this.env.dead = true;
      return CLEAN;
    }
    const lit = flow.literals;
    if (lit.strings.includes(type)) return stringLiteral(this, flow, node);
    if (lit.leafStrings?.includes(type) && node.children.length === 0) {
      // Scala's `"abc"` is one token: its text between the quotes (escapes read as written).
      const raw = this.source.slice(node.startIndex, node.endIndex);
      const quotes = raw.startsWith('"""') ? 3 : 1;
      return { constant: { value: unescapeLiteral(raw.slice(quotes, raw.length - quotes)) } };
    }
    if (lit.numbers.includes(type)) {
      const n = parseNumber(this.text(node));
      return n === undefined ? CLEAN : { constant: { value: n } };
    }
    if (lit.chars.includes(type))
      return { constant: { value: unescapeLiteral(this.text(node).slice(1, -1)) } };
    if (lit.trues.includes(type)) return { constant: { value: true } };
    if (lit.booleans?.includes(type)) return { constant: { value: this.text(node) === 'true' } };
    if (lit.falses.includes(type)) return { constant: { value: false } };
    if (lit.nulls.includes(type)) return { constant: { value: null } };
    if (flow.binaries.includes(type)) return binaryOperation(this, node);
    if (flow.comparisons.includes(type)) return comparisonChain(this, node);
    const operand = flow.unaries[type];
    if (operand !== undefined) return unaryOperation(this, node, operand);
    if (flow.tuples?.includes(type) && namedChildren(node).length === 1) {
      const inner = namedChildren(node)[0];
      return inner ? this.evaluate(inner) : CLEAN;
    }
    if (flow.parens.includes(type)) {
      const inner = namedChildren(node)[0];
      return inner ? this.evaluate(inner) : CLEAN;
    }
    const cast = flow.casts[type];
    if (cast) {
      const value = select(node, cast);
      const v = value ? this.evaluate(value) : CLEAN;
      const target = field(node, 'type');
      const out = target ? checkCast(this, node, this.text(target), value, v) : v;
      // `(string) $_POST['name']`: text cannot carry the operators an array or object adds to a NoSQL filter.
      if (target && out.taint && /^(string|String)$/.test(this.text(target)))
        return { ...out, taint: markSafe(out.taint, ['nosql-injection']) };
      return out;
    }
    const subscript = flow.subscripts[type];
    if (subscript) return subscriptRead(this, node, subscript);
    if (flow.lists.includes(type)) return listLiteral(this, node);
    const dict = flow.dicts[type];
    if (dict) return dictLiteral(this, node, dict);
    const declaration = flow.typedDeclarations[type];
    if (declaration) declareTypes(this, node, declaration);
    return undefined;
  }

  /**
   * The state on the path where `condition` is `truth`, its comparisons narrowing the numbers they test (a copy;
   * the state itself where nothing can narrow).
   */
  protected refined(condition: SyntaxNode | undefined, truth: boolean, from: Env = this.env): Env {
    if (!condition || !numericModel(this) || !hasInput(from)) return from;
    const saved = this.env;
    this.env = from;
    const narrowed = new Map<string, Taint>();
    const view = {
      get: (name: string) => narrowed.get(name) ?? from.vars.get(name),
      set: (name: string, taint: Taint) => narrowed.set(name, taint),
    };
    refineNumbers(view, refineHost(this), condition, truth);
    this.env = saved;
    if (narrowed.size === 0) return from;
    const env = from.clone();
    for (const [name, taint] of narrowed) env.vars.set(name, taint);
    return env;
  }

  /**
   * The state inside a branch whose condition is a redirect check of a value (`Url.IsLocalUrl(returnUrl)`) or an
   * allow-list membership (`if (HANDLERS.has(name))`, `Object.hasOwn(HANDLERS, name)`).
   */
  private checkedRedirect(condition: SyntaxNode, from: Env): Env {
    const text = this.text(condition);
    const redirect = /IsLocalUrl|url_has_allowed_host_and_scheme|is_safe_url/.test(text);
    const relative = /\.startsWith\(\s*['"]\/['"]\s*\)/.test(text);
    if (!redirect && !relative && !/\b(includes|has|hasOwn|hasOwnProperty|contains|include\?)/.test(text))
      return from;
    const saved = this.env;
    this.env = from.clone();
    if (redirect) applySafeRedirectCheck(this, condition);
    else allowListHeld(this, condition);
    if (relative) relativePathHeld(this, condition);
    const out = this.env;
    this.env = saved;
    return out;
  }

  protected condition(node: SyntaxNode | undefined): boolean | undefined {
    if (!node) return undefined;
    const v = this.evaluate(node);
    return v.constant ? truthy(v.constant.value) : undefined;
  }

  /** Runs `body` on a copy of the state; returns the copy's final state. */
  protected explore(body: SyntaxNode[] | SyntaxNode | undefined, from: Env = this.env): Env {
    const saved = this.env;
    this.env = from.clone();
    let last: Val = CLEAN;
    for (const n of Array.isArray(body) ? body : body ? [body] : []) last = this.evaluate(n);
    this.explored = last;
    const out = this.env;
    this.env = saved;
    return out;
  }

  /** A branch's condition, decided where it is constant (`unless` negates it); an initialiser (Go) runs first. */
  protected branchTruth(spec: BranchSpec, node: SyntaxNode): boolean | undefined {
    const init = field(node, 'initializer');
    if (init) this.evaluate(init);
    const condition = select(node, spec.condition);
    const truth = this.condition(condition);
    if (truth !== undefined && condition && this.reporting)
      this.ctx.reportConstantCondition(condition, truth, this.unit);
    return truth === undefined || !spec.negate ? truth : !truth;
  }

  protected branch(flow: FlowSyntax, node: SyntaxNode): Val {
    const outcomes: Env[] = [];
    // What the branch evaluates to where `if` is an expression (Kotlin, Rust, Ruby, Scala): its arms' values.
    const values: Val[] = [];
    const take = (body: SyntaxNode | undefined, from?: Env) => {
      outcomes.push(this.explore(body, from));
      values.push(this.explored);
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
      const truth = this.branchTruth(spec, current);
      const test = select(current, spec.condition);
      if (truth !== false) {
        const from = this.refined(test, !spec.negate);
        take(
          select(current, spec.consequence),
          test && !spec.negate ? this.checkedRedirect(test, from) : from,
        );
      }
      if (truth === true) {
        decided = true;
        break;
      }
      // The paths past a condition that did not hold: its comparisons hold the other way there.
      if (truth === undefined) this.env = this.refined(test, Boolean(spec.negate));
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
          const t = this.branchTruth(altSpec, alt);
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
        if (condition) applyGuard(this, condition, guard.negate === true);
      }
      outcomes.push(this.env.clone());
      values.push(CLEAN);
    }
    this.env = Env.join(outcomes);
    const live = values.filter((_, i) => !outcomes[i]?.dead);
    return live.length === 0 ? CLEAN : live.reduce((x, y) => joinVals(x, y));
  }

  protected ternary(
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
    const truth = this.condition(cond);
    if (truth === true) return yes ? this.evaluate(yes) : CLEAN;
    if (truth === false) return no ? this.evaluate(no) : CLEAN;
    // `in_array($c, ['price', 'tax'], true) ? $c : 'price'`: the arm taken when the list holds it is a listed value.
    const listed = cond && yes ? allowListedValue(this, cond) : undefined;
    const onList = (v: Val) => (listed && yes && this.text(listed) === this.text(yes) ? CLEAN : v);
    const before = this.env;
    // `ALLOWED.has(next) ? next : '/'`: the arm taken when an allow-list or redirect check holds sees it checked.
    const yesEnv = cond ? this.checkedRedirect(cond, this.refined(cond, true)) : before;
    const noEnv = this.refined(cond, false);
    if (yesEnv !== before || noEnv !== before) {
      // `d != 0 ? n / d : 0`: each arm sees the condition's comparisons hold its way.
      this.env = yesEnv === before ? before.clone() : yesEnv;
      const a = onList(yes ? this.evaluate(yes) : CLEAN);
      const afterYes = this.env;
      this.env = noEnv;
      const b = no ? this.evaluate(no) : CLEAN;
      this.env = Env.join([afterYes, this.env]);
      return joinVals(a, b);
    }
    const a = onList(yes ? this.evaluate(yes) : CLEAN);
    const b = no ? this.evaluate(no) : CLEAN;
    return joinVals(a, b);
  }

  protected switchOn(flow: FlowSyntax, node: SyntaxNode): Val {
    const spec = flow.switches[node.type];
    if (!spec) return CLEAN;
    const init = field(node, 'initializer');
    if (init) this.evaluate(init);
    const subjectNode = select(node, spec.subject);
    const subject = subjectNode ? this.evaluate(subjectNode) : CLEAN;
    const arms = spec.arms(node);
    const labelValue = (label: SyntaxNode): Const | undefined => this.evaluate(label).constant?.value;
    const outcomes: Env[] = [];
    // A `when` or `match` expression's value: the value of each arm that runs.
    const values: Val[] = [];
    const runFrom = (start: number) => {
      let env = this.env.clone();
      for (let i = start; i < arms.length; i += 1) {
        const arm = arms[i];
        if (!arm) break;
        env = this.explore(arm.body, env);
        if (arm.ends) break;
      }
      outcomes.push(env);
      if (!env.dead) values.push(this.explored);
    };
    if (subject.constant) {
      const value = subject.constant.value;
      let start = arms.findIndex(
        (a) => a.labels !== 'default' && a.labels.some((l) => labelValue(l) === value),
      );
      if (start === -1) start = arms.findIndex((a) => a.labels === 'default');
      if (start === -1) outcomes.push(this.env.clone());
      else runFrom(start);
    } else {
      for (let i = 0; i < arms.length; i += 1) runFrom(i);
      if (!arms.some((a) => a.labels === 'default')) outcomes.push(this.env.clone());
    }
    this.env = Env.join(outcomes);
    return values.length === 0 ? CLEAN : values.reduce((x, y) => joinVals(x, y));
  }

  protected loop(flow: FlowSyntax, node: SyntaxNode): Val {
    const spec = flow.loops[node.type];
    if (!spec) return CLEAN;
    const truth = spec.condition ? this.condition(select(node, spec.condition)) : undefined;
    if (truth === false) return CLEAN;
    const body = select(node, spec.body);
    const condition = spec.condition ? select(node, spec.condition) : undefined;
    // Other children (a C-style for's init and update) run once, in order.
    for (const c of node.children) if (c.named && c !== body && c !== condition) this.evaluate(c);
    const test = condition ?? field(node, 'condition');
    checkLoopBound(this, test);
    const after = this.explore(body, this.refined(test, true));
    this.env = Env.join([this.env, after]);
    return CLEAN;
  }

  protected foreach(flow: FlowSyntax, node: SyntaxNode): Val {
    const spec = flow.foreach[node.type];
    if (!spec) return CLEAN;
    const iterable = select(node, spec.iterable);
    const target = select(node, spec.target);
    const v = iterable ? this.evaluate(iterable) : CLEAN;
    const body = this.env.clone();
    const saved = this.env;
    this.env = body;
    if (target) this.assignTo(target, { taint: v.taint }, node);
    const bodyNode = select(node, spec.body);
    if (bodyNode) this.evaluate(bodyNode);
    const after = this.env;
    this.env = Env.join([saved, after]);
    return CLEAN;
  }

  protected tryStatement(flow: FlowSyntax, node: SyntaxNode): Val {
    const spec = flow.tries[node.type];
    if (!spec) return CLEAN;
    const before = this.env.clone();
    for (const c of node.children) {
      if (!c.named || spec.handlers.includes(c.type) || c.type === spec.finalizer) continue;
      this.evaluate(c);
    }
    const outcomes = [this.env];
    // A handler may start anywhere in the body: from the state before it, joined with the state after it.
    const entry = Env.join([before, this.env]);
    entry.dead = false;
    for (const c of node.children) if (spec.handlers.includes(c.type)) outcomes.push(this.explore(c, entry));
    this.env = Env.join(outcomes);
    const finalizer = node.children.find((c) => c.type === spec.finalizer);
    if (finalizer) {
      const dead = this.env.dead;
      this.env.dead = false;
      this.evaluate(finalizer);
      this.env.dead = this.env.dead || dead;
    }
    return CLEAN;
  }
}
