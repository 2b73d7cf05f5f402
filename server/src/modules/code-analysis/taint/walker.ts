import type { SyntaxNode } from '../parsing/tree';
import {
  foldBinary,
  foldIndex,
  foldMethod,
  foldSlice,
  parseNumber,
  truthy,
  unescapeLiteral,
} from './constants';
import type { FileContext } from './context';
import type { BranchSpec, FlowSyntax } from './flow/types';
import { applyGuard, kindsRejecting } from './guards';
import {
  CLEAN_METHODS,
  COLLECTION_ADD,
  COLLECTION_CLEAR,
  COLLECTION_GET,
  COLLECTION_INSERT,
  COLLECTION_PUT,
  MUTATORS,
} from './models';
import { NAME_LIKE, norm } from './syntax';
import type { TaintKind, TaintLanguage } from './types';
import {
  built,
  CLEAN,
  type Collection,
  type Const,
  collectionTaint,
  copyCollection,
  Env,
  markSafe,
  type Taint,
  type TraceStep,
  unionTaint,
  type Val,
  WEAK_KINDS,
  withStep,
} from './values';

const PATH_LIKE =
  /identifier|member|attribute|subscript|field_access|selector|variable_name|element_reference|scoped|call|invocation|index|^name$/;
const ARGUMENT_LISTS = /^(arguments|argument_list|value_arguments)$/;
const IS_CALL = /call|invocation/;
/** Nodes that build a string from their parts: concatenation, interpolation, templates, format macros. */
const STRING_BUILDING =
  /binary|concatenat|interpolat|template|string|encapsed|macro_invocation|token_tree|heredoc|f_string|format/;
/** Calls that build a string from their arguments. */
const FORMATTERS = /^(format|Format|sprintf|Sprintf|Sprint|Sprintln|snprintf|join|Join|concat|Concat|f)$/;
const URL_PARSERS =
  /^((urllib\.parse|urlparse)\.)?(urlparse|urlsplit)$|^new(URL|URI)$|^(URI\.create|URL|urllib\.parse\.urlparse)$/;

/** The first child the selector names: a field, `*first` / `*last` named child, or `type:<node type>`. */
export function select(node: SyntaxNode, selector: string, not?: SyntaxNode): SyntaxNode | undefined {
  if (selector === '*last') {
    for (let i = node.children.length - 1; i >= 0; i -= 1) {
      const c = node.children[i] as SyntaxNode;
      if (c.named && c !== not && !/comment/.test(c.type)) return c;
    }
    return undefined;
  }
  if (selector === '*first')
    return node.children.find((c) => c.named && c !== not && !/comment/.test(c.type));
  if (selector.startsWith('after:')) {
    // The first named child after a keyword (Kotlin's `if (c) a else b` names no field).
    const token = selector.slice(6);
    const at = node.children.findIndex((c) => c.type === token);
    return at === -1
      ? undefined
      : node.children.slice(at + 1).find((c) => c.named && !/comment/.test(c.type));
  }
  if (selector.startsWith('type:')) {
    const type = selector.slice(5);
    return node.children.find((c) => c.type === type);
  }
  return node.children.find((c) => c.field === selector);
}

/** Every child the selector names: all children of a field (Python's elif clauses), else the one `select` finds. */
function selectAll(node: SyntaxNode, selector: string): SyntaxNode[] {
  if (/^(\*|type:|after:)/.test(selector)) {
    const one = select(node, selector);
    return one ? [one] : [];
  }
  return node.children.filter((c) => c.field === selector);
}

const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);
const namedChildren = (node: SyntaxNode) => node.children.filter((c) => c.named && !/comment/.test(c.type));

/** Java's package prefixes (`java.io.File` → `File`, `org.x.ESAPI.encoder()` → `ESAPI.encoder()`). */
const PACKAGE_PREFIX = /^(new)?(?:[a-z_][a-z0-9_]*\.)+(?=[A-Z])/;

/** A sink reached while summarising a function: the summary keeps those its parameters reach (context.ts). */
export interface SinkHit {
  kind: TaintKind;
  sink: string;
  taint: Taint;
  sinkStep: TraceStep;
}

const MAX_SINK_HITS = 32;

export interface CallShape {
  callee: string;
  args: SyntaxNode[];
  argsNode: SyntaxNode | undefined;
}

/**
 * The dataflow of one function (or the top level): statements in order over an abstract state (taint, constants,
 * collections), branches explored apart and joined, dead branches (constant conditions) skipped, calls to the
 * file's own functions applied through their summaries.
 */
export class FlowWalker {
  env = new Env();
  /** What the function returns, joined over its return statements. */
  returned: Val | undefined;
  /** The value of the last node `explore` ran (an `if` expression's arm). */
  private explored: Val = CLEAN;
  /** Sinks reached when not reporting. */
  readonly sinkHits: SinkHit[] = [];
  /** How many closures deep the walk is: a closure's `return` is not the function's. */
  private closures = 0;
  private readonly lang: TaintLanguage;
  private readonly flow: FlowSyntax | undefined;
  private readonly source: string;

  constructor(
    private readonly ctx: FileContext,
    private readonly unit: SyntaxNode,
    readonly reporting: boolean,
  ) {
    this.lang = ctx.lang;
    this.flow = ctx.lang.flow;
    this.source = ctx.parsed.source;
  }

  run(parameters: [string, Taint][]): void {
    for (const [name, taint] of parameters) this.env.vars.set(name, taint);
    for (const child of this.unit.children) this.evaluate(child);
  }

  private text(node: SyntaxNode): string {
    return norm(this.source, node);
  }

  private step(node: SyntaxNode, note: string): TraceStep {
    const step: TraceStep = {
      line: node.startRow + 1,
      column: node.startCol + 1,
      end_line: node.endRow + 1,
      end_column: node.endCol + 1,
      note: note.length > 80 ? `${note.slice(0, 79)}…` : note,
    };
    if (this.ctx.path !== undefined) step.path = this.ctx.path;
    return step;
  }

  /** Evaluates an expression or runs a statement, in order, updating the state; returns the value. */
  evaluate(node: SyntaxNode): Val {
    if (this.env.dead) return CLEAN;
    if (node !== this.unit && node.named && this.ctx.isFunction(node))
      return this.ctx.isClosure(node) ? this.closure(node) : CLEAN; // its own unit
    const flow = this.flow;
    const type = node.type;
    for (const clean of this.lang.cleanMembers ?? [])
      if (clean.types.includes(type) && clean.pattern.test(this.text(node))) return CLEAN;
    const extraction = this.lang.extractions?.find((e) => e.type === type);
    if (extraction) {
      const handled = this.extraction(node, extraction.source);
      if (handled) return handled;
    }
    if (flow) {
      const handled = this.evaluateFlow(flow, node);
      if (handled) return handled;
    }
    if (this.lang.calls.includes(type)) return this.evaluateCall(node);
    if (type === 'token_tree' && this.lang.tokenTrees) return this.tokenTree(node);
    if (this.lang.constructorDeclarations?.includes(type)) this.constructorDeclaration(node);
    for (const k of this.lang.keySinks ?? []) if (k.type === type) this.checkKey(node, k);
    const assignment = this.lang.assignments.find((a) => a.type === type);
    if (assignment) return this.assign(node, assignment);
    for (const m of this.lang.memberSinks ?? []) if (m.type === type) this.checkMember(node, m);
    if (PATH_LIKE.test(type) || node.children.length === 0 || this.lang.sourceNodes?.includes(type)) {
      const text = this.text(node);
      const known = this.env.has(text) ? this.env.get(text) : undefined;
      // A parameter of unknown origin named like a source (`argv`, `args`) is that source.
      if (known && !known.taint?.weak) return known;
      if (this.lang.sources.some((re) => re.test(text))) return { taint: this.newTaint(node, text) };
      if (known) return known;
      // A field another method of the class stored input in.
      const stored = this.ctx.readField(this.unit, text);
      if (stored) return { taint: withStep(stored, this.step(node, `reads ${text}`)) };
      if (node.children.length === 0) return CLEAN;
    }
    return this.evaluateChildren(node);
  }

  /**
   * A closure (lambda, arrow function, block) runs where it is written, seeing the enclosing function's names:
   * `db.withConnection { conn => conn.query(sql) }`. It is also walked as its own unit; findings are reported once.
   */
  private closure(node: SyntaxNode): Val {
    const returned = this.returned;
    const env = this.env.clone();
    for (const name of this.ctx.parameters(node)) env.set(name, CLEAN);
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

  /**
   * A macro's tokens (Rust's `format!("…", html_escape::encode_text(&x))`): a path followed by a parenthesised
   * group is a call, and a sanitiser's group is clean.
   */
  private tokenTree(node: SyntaxNode): Val {
    let taint: Taint | undefined;
    let path = '';
    let head: SyntaxNode | undefined;
    const endPath = (calls: boolean) => {
      // A name read on its own (`q.name` reads `q`); a called path is a function, not data.
      if (head && !calls) taint = unionTaint(taint, this.evaluate(head).taint);
      path = '';
      head = undefined;
    };
    let generics = 0;
    for (const child of node.children) {
      const text = this.text(child);
      // A turbofish (`x.parse::<u32>()`) belongs to the called path.
      if (generics > 0 || (text === '<' && path.endsWith('::'))) {
        path += text;
        if (text === '<') generics += 1;
        else if (text === '>') generics -= 1;
        continue;
      }
      if (NAME_LIKE.test(child.type)) {
        if (path === '' || /(\.|::)$/.test(path)) {
          if (path === '') head = child;
          path += text;
          continue;
        }
        endPath(false);
        head = child;
        path = text;
        continue;
      }
      if ((text === '.' || text === '::') && path !== '') {
        path += text;
        continue;
      }
      if (child.type === 'token_tree') {
        const called = path;
        const sanitised = called !== '' && this.lang.sanitizers.some((re) => re.test(called));
        const kinds = (this.lang.kindSanitizers ?? []).find(
          (k) => called !== '' && k.callee.test(called),
        )?.kinds;
        endPath(called !== '');
        if (!sanitised) {
          const inner = this.tokenTree(child).taint;
          taint = unionTaint(taint, kinds ? markSafe(inner, kinds) : inner);
        }
        continue;
      }
      endPath(false);
      if (child.named) taint = unionTaint(taint, this.evaluate(child).taint);
    }
    endPath(false);
    return taint ? { taint } : CLEAN;
  }

  /** `std::ifstream in(path);`: the declared type's constructor runs on the arguments, which may reach a sink. */
  private constructorDeclaration(node: SyntaxNode): void {
    const typeNode = field(node, 'type');
    if (!typeNode) return;
    const callee = this.text(typeNode);
    for (const d of node.children.filter((c) => c.field === 'declarator')) {
      let args: SyntaxNode[] = [];
      if (d.type === 'function_declarator') {
        // The most vexing parse: `in(path)` reads as a parameter of type `path`.
        const list = field(d, 'parameters');
        args = (list ? namedChildren(list) : []).map((p) => field(p, 'type') ?? p);
      } else {
        const value = field(d, 'value');
        if (value && ARGUMENT_LISTS.test(value.type)) args = namedChildren(value);
      }
      if (args.length === 0) continue;
      const vals = args.map((a) =>
        NAME_LIKE.test(a.type) || a.type === 'type_identifier'
          ? this.env.get(this.text(a))
          : this.evaluate(a),
      );
      this.checkSinks(node, callee, undefined, args, vals, undefined);
    }
  }

  /** `std::cin >> name`: the stream's input is stored into the right operand. */
  private extraction(node: SyntaxNode, source: RegExp): Val | undefined {
    const left = field(node, 'left');
    const right = field(node, 'right');
    const op = field(node, 'operator') ?? node.children.find((c) => !c.named);
    if (!left || !right || !op || this.text(op) !== '>>') return undefined;
    const leftText = this.text(left);
    if (!source.test(leftText)) return undefined;
    if (left.type === node.type) this.evaluate(left);
    this.assignTo(right, { taint: this.newTaint(node, leftText.split('>>')[0] ?? leftText) }, node);
    return CLEAN;
  }

  /** `{ __html: html }` in JSX: a property whose value is written into the page. */
  private checkKey(node: SyntaxNode, sink: NonNullable<TaintLanguage['keySinks']>[number]): void {
    const key = field(node, 'key');
    const value = field(node, 'value');
    if (!key || !value || !sink.key.test(this.text(key))) return;
    const v = this.evaluate(value);
    if (v.taint) this.flag(sink.kind, node, this.text(key), v.taint);
  }

  private evaluateChildren(node: SyntaxNode): Val {
    let taint: Taint | undefined;
    for (const child of node.children) {
      if (!child.named) continue;
      taint = unionTaint(taint, this.evaluate(child).taint);
    }
    if (taint && STRING_BUILDING.test(node.type)) taint = built(taint);
    return taint ? { taint } : CLEAN;
  }

  private newTaint(node: SyntaxNode, text: string): Taint {
    const origin = { text: text.slice(0, 60), line: node.startRow + 1 };
    return { origin, steps: [this.step(node, `source: ${text}`)] };
  }

  // ---- control flow, constants and collections (languages with a FlowSyntax) ----

  private evaluateFlow(flow: FlowSyntax, node: SyntaxNode): Val | undefined {
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
      this.env.dead = true;
      return CLEAN;
    }
    const lit = flow.literals;
    if (lit.strings.includes(type)) return this.stringLiteral(flow, node);
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
    if (flow.binaries.includes(type)) return this.binary(node);
    if (flow.comparisons.includes(type)) return this.comparison(node);
    const operand = flow.unaries[type];
    if (operand !== undefined) return this.unary(node, operand);
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
      return value ? this.evaluate(value) : CLEAN;
    }
    const subscript = flow.subscripts[type];
    if (subscript) return this.subscript(node, subscript);
    if (flow.lists.includes(type)) return this.list(node);
    const dict = flow.dicts[type];
    if (dict) return this.dict(node, dict);
    const declaration = flow.typedDeclarations[type];
    if (declaration) this.declareTypes(node, declaration);
    return undefined;
  }

  private condition(node: SyntaxNode | undefined): boolean | undefined {
    if (!node) return undefined;
    const v = this.evaluate(node);
    return v.constant ? truthy(v.constant.value) : undefined;
  }

  /** Runs `body` on a copy of the state; returns the copy's final state. */
  private explore(body: SyntaxNode[] | SyntaxNode | undefined, from: Env = this.env): Env {
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
  private branchTruth(spec: BranchSpec, node: SyntaxNode): boolean | undefined {
    const init = field(node, 'initializer');
    if (init) this.evaluate(init);
    const truth = this.condition(select(node, spec.condition));
    return truth === undefined || !spec.negate ? truth : !truth;
  }

  private branch(flow: FlowSyntax, node: SyntaxNode): Val {
    const outcomes: Env[] = [];
    // What the branch evaluates to where `if` is an expression (Kotlin, Rust, Ruby, Scala): its arms' values.
    const values: Val[] = [];
    const take = (body: SyntaxNode | undefined) => {
      outcomes.push(this.explore(body));
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
      if (truth !== false) take(select(current, spec.consequence));
      if (truth === true) {
        decided = true;
        break;
      }
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
      outcomes.push(this.env.clone());
      values.push(CLEAN);
    }
    this.env = Env.join(outcomes);
    // `if ('../' in name) return …`: past a guard that leaves, the value passed the check.
    if (guard && !guard.negate && !decided && outcomes.length === 2 && outcomes[0]?.dead) {
      const condition = select(node, guard.condition);
      if (condition) applyGuard(this, condition);
    }
    const live = values.filter((_, i) => !outcomes[i]?.dead);
    return live.length === 0 ? CLEAN : live.reduce((x, y) => joinVals(x, y));
  }

  /** The taint a name holds now, without evaluating anything (guards read what the condition already ran). */
  taintOfName(node: SyntaxNode): Taint | undefined {
    return this.env.vars.get(this.text(node));
  }

  constantOf(node: SyntaxNode): Const | undefined {
    const lit = this.flow?.literals;
    if (!lit?.strings.includes(node.type) && !lit?.chars.includes(node.type)) return undefined;
    return this.evaluate(node).constant?.value;
  }

  markValidated(node: SyntaxNode | string, kinds: readonly TaintKind[]): void {
    const name = typeof node === 'string' ? node : this.text(node);
    const taint = this.env.vars.get(name);
    if (taint && kinds.length > 0) this.env.vars.set(name, markSafe(taint, kinds) as Taint);
  }

  nodeText(node: SyntaxNode): string {
    return this.text(node);
  }

  private ternary(
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
    const a = yes ? this.evaluate(yes) : CLEAN;
    const b = no ? this.evaluate(no) : CLEAN;
    return joinVals(a, b);
  }

  private switchOn(flow: FlowSyntax, node: SyntaxNode): Val {
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

  private loop(flow: FlowSyntax, node: SyntaxNode): Val {
    const spec = flow.loops[node.type];
    if (!spec) return CLEAN;
    const truth = spec.condition ? this.condition(select(node, spec.condition)) : undefined;
    if (truth === false) return CLEAN;
    const body = select(node, spec.body);
    const condition = spec.condition ? select(node, spec.condition) : undefined;
    // Other children (a C-style for's init and update) run once, in order.
    for (const c of node.children) if (c.named && c !== body && c !== condition) this.evaluate(c);
    const after = this.explore(body);
    this.env = Env.join([this.env, after]);
    return CLEAN;
  }

  private foreach(flow: FlowSyntax, node: SyntaxNode): Val {
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

  private tryStatement(flow: FlowSyntax, node: SyntaxNode): Val {
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

  private stringLiteral(flow: FlowSyntax, node: SyntaxNode): Val {
    let text = '';
    let taint: Taint | undefined;
    let constant = true;
    const visit = (n: SyntaxNode) => {
      for (const c of n.children) {
        if (flow.literals.interpolations.includes(c.type)) {
          constant = false;
          taint = unionTaint(taint, this.evaluateChildren(c).taint);
        } else if (flow.literals.interpolatedValues?.includes(c.type)) {
          // PHP's `"id=$id"`, Kotlin's `"$id"`: the variable itself sits in the string.
          constant = false;
          taint = unionTaint(taint, this.evaluate(c).taint);
        } else if (flow.literals.stringParts.includes(c.type)) {
          const raw = this.source.slice(c.startIndex, c.endIndex);
          text += c.type === 'escape_sequence' ? unescapeLiteral(raw) : raw;
        } else if (flow.literals.strings.includes(c.type)) visit(c);
      }
    };
    visit(node);
    if (taint) return { taint: built(taint) };
    return constant ? { constant: { value: text } } : CLEAN;
  }

  private binary(node: SyntaxNode): Val {
    // Grammars without fields (Kotlin's `additive_expression`): operands by position, the operator between them.
    const operands = namedChildren(node);
    const left = field(node, 'left') ?? operands[0];
    const right = field(node, 'right') ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
    const op =
      field(node, 'operator') ?? node.children.find((c) => !c.named && c.startIndex >= (left?.endIndex ?? 0));
    const a = left ? this.evaluate(left) : CLEAN;
    const opText = op ? this.text(op) : '';
    // Short circuit: a constant left side decides whether the right side runs.
    if (a.constant && /^(&&|and|\|\||or)$/.test(opText)) {
      const t = truthy(a.constant.value);
      if ((t && /^(\|\||or)$/.test(opText)) || (!t && /^(&&|and)$/.test(opText))) return a;
    }
    const b = right ? this.evaluate(right) : CLEAN;
    if (a.constant && b.constant) {
      const v = foldBinary(opText, a.constant.value, b.constant.value);
      if (v !== undefined) return { constant: { value: v } };
    }
    if (/^(==|!=|<|>|<=|>=|===|!==|instanceof)$/.test(opText)) return CLEAN;
    const taint = built(unionTaint(a.taint, b.taint));
    return taint ? { taint } : CLEAN;
  }

  private comparison(node: SyntaxNode): Val {
    const operands = namedChildren(node);
    const ops = node.children.filter((c) => c.field === 'operators');
    const vals = operands.map((o) => this.evaluate(o));
    let result: Const | undefined = true;
    for (let i = 0; i < ops.length; i += 1) {
      const a = vals[i]?.constant;
      const b = vals[i + 1]?.constant;
      const opNode = ops[i] as SyntaxNode;
      const op = this.source.slice(opNode.startIndex, opNode.endIndex).replace(/\s+/g, ' ');
      if (!a || !b) return CLEAN;
      const v = foldBinary(op, a.value, b.value);
      if (v === undefined) return CLEAN;
      result = result && v;
    }
    return { constant: { value: result ?? null } };
  }

  private unary(node: SyntaxNode, operandField: string): Val {
    const operand = field(node, operandField) ?? namedChildren(node)[0];
    const v = operand ? this.evaluate(operand) : CLEAN;
    const op = node.children.find((c) => !c.named);
    const opText = op ? this.text(op) : '';
    if (v.constant) {
      if (opText === '!' || opText === 'not') return { constant: { value: !truthy(v.constant.value) } };
      if (opText === '-' && typeof v.constant.value === 'number')
        return { constant: { value: -v.constant.value } };
    }
    return opText === '!' || opText === 'not' ? CLEAN : { taint: v.taint };
  }

  private subscript(node: SyntaxNode, spec: { object: string; index: string }): Val {
    const objectNode = field(node, spec.object);
    const indexNode = field(node, spec.index);
    const object = objectNode ? this.evaluate(objectNode) : CLEAN;
    if (indexNode?.type === 'slice') {
      const parts = namedChildren(indexNode).map((p) => this.evaluate(p).constant?.value);
      if (object.constant) {
        const v = foldSlice(object.constant.value, parts[0], parts[1]);
        if (v !== undefined) return { constant: { value: v } };
      }
      return { taint: object.taint };
    }
    const index = indexNode ? this.evaluate(indexNode) : CLEAN;
    if (object.constant && index.constant) {
      const v = foldIndex(object.constant.value, index.constant.value);
      if (v !== undefined) return { constant: { value: v } };
    }
    if (object.collection && index.constant) return readEntry(object, index.constant.value);
    return { taint: object.taint };
  }

  private list(node: SyntaxNode): Val {
    const vals = namedChildren(node).map((c) => this.evaluate(c));
    const items = vals.map((v) => v.taint);
    const texts = vals.map((v) => (typeof v.constant?.value === 'string' ? v.constant.value : undefined));
    const collection: Collection = { keys: new Map(), items, other: undefined, texts };
    const taint = items.reduce<Taint | undefined>((t, v) => unionTaint(t, v), undefined);
    return taint ? { taint, collection } : { collection };
  }

  private dict(node: SyntaxNode, spec: { pair: string; key: string; value: string }): Val {
    const collection: Collection = { keys: new Map(), items: undefined, other: undefined };
    for (const pair of node.children) {
      if (pair.type !== spec.pair) {
        if (pair.named) collection.other = unionTaint(collection.other, this.evaluate(pair).taint);
        continue;
      }
      const keyNode = field(pair, spec.key);
      const valueNode = field(pair, spec.value);
      const key = keyNode ? this.evaluate(keyNode) : CLEAN;
      const value = valueNode ? this.evaluate(valueNode) : CLEAN;
      const sink = this.lang.keySinks?.find((k) => k.type === pair.type);
      if (sink && keyNode && value.taint && sink.key.test(this.text(keyNode)))
        this.flag(sink.kind, pair, this.text(keyNode), value.taint);
      if (key.constant) collection.keys.set(String(key.constant.value), value.taint);
      else collection.other = unionTaint(collection.other, unionTaint(key.taint, value.taint));
    }
    // An options object passed whole (`client.search(base, { filter })`) carries what it holds.
    const taint = this.flow?.dictsCarry ? collectionTaint(collection) : undefined;
    return taint ? { taint, collection } : { collection };
  }

  private declareTypes(node: SyntaxNode, spec: { type: string; declarator: string; name: string }): void {
    const typeNode = field(node, spec.type);
    if (!typeNode) return;
    const simple = this.text(typeNode).replace(/<.*>/, '').replace(/\[\]/g, '').split('.').pop();
    if (!simple) return;
    const declarators = spec.declarator ? node.children.filter((c) => c.field === spec.declarator) : [node];
    // Declarations outside any function are the class's fields: their types hold in every method.
    const isField = this.unit === this.ctx.parsed.root;
    for (const d of declarators) {
      const name = field(d, spec.name);
      if (!name) continue;
      this.env.types.set(this.text(name), simple);
      if (isField) {
        this.ctx.fieldTypes.set(this.text(name), simple);
        this.ctx.fieldTypes.set(`this.${this.text(name)}`, simple);
      }
    }
  }

  // ---- assignments ----

  private assign(node: SyntaxNode, spec: TaintLanguage['assignments'][number]): Val {
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
      v = {
        taint: unionTaint(old.taint, v.taint),
        constant: folded === undefined ? undefined : { value: folded },
      };
    }
    const sink = this.lang.propertySinks?.find(
      (p) => p.target.test(this.text(target)) && (!p.valueTypes || p.valueTypes.test(valueNode.type)),
    );
    if (sink) {
      // `session[key] = value`: an untrusted key crosses the boundary as much as an untrusted value.
      const sub = this.flow?.subscripts[target.type];
      const index = sub ? field(target, sub.index) : undefined;
      const taint = v.taint ?? (index ? this.evaluate(index).taint : undefined);
      if (taint) this.flag(sink.kind, node, this.text(target), taint);
    }
    this.assignTo(target, v, node);
    this.rememberConstructedType(target, valueNode);
    this.rememberParsedUrl(target, valueNode);
    return v;
  }

  /** `url = urlparse(target)`: a check of `url`'s host or scheme is a check of `target`. */
  private rememberParsedUrl(target: SyntaxNode, value: SyntaxNode): void {
    if (!this.lang.calls.includes(value.type) || !NAME_LIKE.test(target.type)) return;
    const { callee, args } = this.shape(value);
    const arg = args[0];
    if (!arg || !NAME_LIKE.test(arg.type) || !URL_PARSERS.test(callee)) return;
    this.env.parsedFrom.set(this.text(target), this.text(arg));
  }

  /** The name a parsed URL came from, for a guard on `url.netloc` / `url.getHost()`. */
  parsedSource(object: SyntaxNode): string | undefined {
    return this.env.parsedFrom.get(this.text(object));
  }

  /** Stores a value into a target: a name, a field path, a subscript (collection entry), or a pattern of names. */
  assignTo(target: SyntaxNode, v: Val, at: SyntaxNode): void {
    const subscript = this.flow?.subscripts[target.type];
    if (subscript) {
      const objectNode = field(target, subscript.object);
      const indexNode = field(target, subscript.index);
      if (objectNode && (NAME_LIKE.test(objectNode.type) || PATH_LIKE.test(objectNode.type))) {
        const name = this.text(objectNode);
        const index = indexNode ? this.evaluate(indexNode) : CLEAN;
        this.putEntry(name, index.constant?.value, v.taint, at, true);
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
      this.env.set(name, val);
      if (taint && this.reporting) this.ctx.storeField(this.unit, name, taint);
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

  /** `m[k] = v`, `m.put(k, v)`: the entry under a constant key, else the collection as a whole. */
  private putEntry(
    name: string,
    key: Const | undefined,
    taint: Taint | undefined,
    at: SyntaxNode,
    index: boolean,
  ): void {
    const stepped = withStep(
      taint,
      this.step(at, `${name}[${key === undefined ? '…' : JSON.stringify(key)}] = …`),
    );
    const collection = this.env.collections.get(name);
    if (!collection) {
      if (stepped) this.env.vars.set(name, unionTaint(this.env.vars.get(name), stepped) as Taint);
      return;
    }
    const copy = copyCollection(collection);
    if (key === undefined) copy.other = unionTaint(copy.other, stepped);
    else if (index && typeof key === 'number' && copy.items && key >= 0 && key < copy.items.length)
      copy.items[key] = stepped;
    else if (typeof key === 'number' && copy.items && index) copy.other = unionTaint(copy.other, stepped);
    else copy.keys.set(String(key), stepped);
    this.env.collections.set(name, copy);
  }

  // ---- calls ----

  shape(call: SyntaxNode): CallShape {
    const isList = (c: SyntaxNode) => c.field === 'arguments' || ARGUMENT_LISTS.test(c.type);
    const suffix = call.children.find((c) => c.type === 'call_suffix');
    const argsNode = call.children.find(isList) ?? suffix?.children.find(isList);
    if (argsNode) {
      let callee = this.source.slice(call.startIndex, argsNode.startIndex).replace(/\s+/g, '');
      if (this.lang.qualifiedNames) callee = callee.replace(PACKAGE_PREFIX, '$1');
      const wrappers = this.lang.argumentWrappers ?? [];
      const args = argsNode.children
        .filter((c) => c.named && !/comment/.test(c.type))
        .map((a) => {
          if (a.type === 'argument' && a.children.length === 1) return a.children[0] as SyntaxNode;
          if (wrappers.includes(a.type)) return select(a, 'value') ?? select(a, '*last') ?? a;
          return a;
        });
      return { callee, args, argsNode };
    }
    const first = call.children[0];
    // `x.html_safe`: a method call without arguments (Ruby) is its receiver and method.
    if (call.children.some((c) => c.field === 'method'))
      return { callee: this.text(call), args: [], argsNode: undefined };
    return {
      callee: first ? this.text(first) : '',
      args: call.children.slice(1).filter((c) => c.named && !/comment/.test(c.type)),
      argsNode: undefined,
    };
  }

  private evaluateCall(call: SyntaxNode): Val {
    const { callee, args, argsNode } = this.shape(call);
    const flow = this.flow;
    const receiverNode = flow?.receiver(call);
    const methodNode = flow?.method(call);
    // The callee's own parts (the receiver, a member path) are read before the arguments.
    let calleeTaint: Taint | undefined;
    let receiver: Val = CLEAN;
    if (receiverNode) {
      receiver = this.evaluate(receiverNode);
      calleeTaint = receiver.taint;
    } else if (!argsNode) {
      const receiverChild = call.children.find((c) => c.field === 'receiver');
      if (receiverChild) calleeTaint = this.evaluate(receiverChild).taint;
    } else {
      for (const c of call.children) {
        if (c === argsNode || !c.named || c === methodNode || c.startIndex >= argsNode.startIndex) continue;
        if (c.type === 'call_suffix') continue;
        calleeTaint = unionTaint(calleeTaint, this.evaluate(c).taint);
      }
    }
    const vals = args.map((a) => this.evaluate(a));
    // Keyword arguments (`shell=True`) are evaluated as their value.
    const method = methodNode
      ? this.text(methodNode)
      : (callee.split('.').pop() ?? callee).replace(/^new/, '');
    const typed = this.typedCallee(receiverNode, method);
    const matches = (re: RegExp) => re.test(callee) || (typed !== undefined && re.test(typed));

    for (const s of this.lang.sourceArguments ?? []) {
      if (!s.callee.test(callee)) continue;
      if (s.when && !s.when.test(this.source.slice(call.startIndex, call.endIndex))) continue;
      const targets = s.into === 'all' ? args : args.slice(s.into, s.into + 1);
      const taint = this.newTaint(call, callee);
      for (const target of targets) this.assignTo(target, { taint }, call);
    }
    for (const p of this.lang.propagators ?? []) {
      const target = args[p.into];
      if (!target || !p.callee.test(callee)) continue;
      const taint = built(vals.find((v, i) => i !== p.into && v.taint)?.taint);
      if (taint) this.assignTo(target, { taint: unionTaint(this.evaluate(target).taint, taint) }, call);
    }
    this.checkSinks(call, callee, typed, args, vals, calleeTaint);
    this.ctx.checkValues(this, call, callee, typed, vals);

    if (this.lang.sanitizers.some(matches)) return CLEAN;
    const argTaint = vals.reduce<Taint | undefined>((t, v) => unionTaint(t, v.taint), undefined);
    for (const s of this.lang.kindSanitizers ?? []) {
      if (!matches(s.callee)) continue;
      const t = markSafe(unionTaint(argTaint, calleeTaint), s.kinds);
      return t ? { taint: withStep(t, this.step(call, `sanitised by ${callee}`)) } : CLEAN;
    }
    if (this.lang.sourceCalls.some(matches) || this.lang.sources.some((re) => re.test(callee)))
      return { taint: this.newTaint(call, this.text(call)) };

    // Without a flow adapter there is no receiver node: `repo.find` names its receiver in the callee's text.
    const prefix = callee.includes('.') ? callee.slice(0, callee.lastIndexOf('.')) : undefined;
    const receiverType = receiverNode
      ? this.typeOf(receiverNode)
      : prefix && (this.env.types.get(prefix) ?? this.ctx.fieldTypes.get(prefix));
    const summary = this.ctx.summaryFor(callee, method, args.length, receiverNode, receiverType);
    if (summary) {
      // An argument the function passes on to a sink inside it: the sink is reached from here.
      for (const through of summary.sinks) {
        const v = vals[through.arg]?.taint;
        if (!v || v.safe?.includes(through.kind)) continue;
        // A parameter of unknown origin counts only where the helper builds it into the query or command.
        if (v.weak && !through.built) continue;
        const passed = withStep(v, this.step(call, `call to ${method}()`)) as Taint;
        const steps = [...passed.steps, ...through.steps];
        this.flag(
          through.kind,
          call,
          through.sink,
          { ...passed, built: true, steps: steps.slice(0, 16) },
          through.sinkStep,
        );
      }
      let taint: Taint | undefined = summary.returnsSource;
      summary.flows.forEach((flows, i) => {
        if (flows) taint = unionTaint(taint, vals[i]?.taint);
      });
      if (taint && summary.safe.length > 0) taint = markSafe(taint, summary.safe);
      const out: Val = {};
      if (taint) out.taint = withStep(taint, this.step(call, `through ${method}()`));
      if (summary.constant) out.constant = summary.constant;
      return out;
    }
    if (flow?.newCollection.test(callee))
      return { collection: { keys: new Map(), items: [], other: argTaint } };

    const receiverName =
      receiverNode && (NAME_LIKE.test(receiverNode.type) || /field_access|attribute/.test(receiverNode.type))
        ? this.text(receiverNode)
        : undefined;
    const modelled = receiverName ? this.collectionCall(receiverName, method, vals, call) : undefined;
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
    // `s.replace("'", "&apos;")`: the characters replaced away can no longer break out of a quoted context.
    const [from, to] = vals.map((v) => v.constant?.value);
    if (
      /^replace(All)?$/.test(method) &&
      typeof from === 'string' &&
      typeof to === 'string' &&
      !to.includes(from)
    ) {
      const taint = markSafe(receiver.taint, kindsRejecting(from));
      return taint ? { taint } : CLEAN;
    }
    // `props.getProperty(key, "default")` of Properties never loaded here can only be the default.
    if (method === 'getProperty' && vals[1]?.constant && receiverName && !this.loads(receiverName))
      return { constant: vals[1].constant };
    if (receiverName && MUTATORS.has(method) && argTaint && !this.isClassName(receiverName)) {
      this.env.vars.set(receiverName, unionTaint(this.env.vars.get(receiverName), argTaint) as Taint);
      return { taint: unionTaint(receiver.taint, argTaint) };
    }
    let taint = unionTaint(calleeTaint, argTaint);
    if (FORMATTERS.test(method)) taint = built(taint);
    return taint ? { taint } : CLEAN;
  }

  /** `repo = Repo()`, `const repo = new Repo()` of a type the project declares: `repo.find()` is `Repo.find`. */
  private rememberConstructedType(target: SyntaxNode, value: SyntaxNode): void {
    const project = this.ctx.project;
    if (!project || !NAME_LIKE.test(target.type) || !/call|invocation|new_expression/.test(value.type))
      return;
    const type = project.constructedType(this.shape(value).callee);
    if (type) this.env.types.set(this.text(target), type);
  }

  private loads(receiver: string): boolean {
    return this.source
      .slice(this.unit.startIndex, this.unit.endIndex)
      .replace(/\s+/g, '')
      .includes(`${receiver}.load`);
  }

  private isClassName(name: string): boolean {
    return /^[A-Z]/.test(name) && !this.env.has(name);
  }

  /** `Type.method` for a receiver whose declared type is known (`xp.evaluate` → `XPath.evaluate`). */
  private typedCallee(receiver: SyntaxNode | undefined, method: string): string | undefined {
    const type = receiver ? this.typeOf(receiver) : undefined;
    return type ? `${type}.${method}` : undefined;
  }

  private typeOf(receiver: SyntaxNode): string | undefined {
    return this.env.types.get(this.text(receiver)) ?? this.ctx.fieldTypes.get(this.text(receiver));
  }

  /** Collection writes and reads by constant key or index; undefined when the receiver is not modelled. */
  private collectionCall(name: string, method: string, vals: Val[], call: SyntaxNode): Val | undefined {
    const collection = this.env.collections.get(name);
    if (!collection) return undefined;
    const key = vals[0]?.constant?.value;
    // Keys of several parts (ConfigParser's section and option) are joined into one.
    const joinedKey = (parts: Val[]) =>
      parts.every((v) => v.constant) ? parts.map((v) => String(v.constant?.value)).join('\u0000') : undefined;
    if (method === 'set' && collection.items && vals.length === 2 && typeof key === 'number') {
      this.putEntry(name, key, vals[1]?.taint, call, true);
      return CLEAN;
    }
    if (COLLECTION_PUT.has(method) && vals.length >= 2) {
      this.putEntry(name, joinedKey(vals.slice(0, -1)), vals[vals.length - 1]?.taint, call, false);
      return CLEAN;
    }
    const whole = vals.length > 1 ? joinedKey(vals) : undefined;
    if (method === 'get' && whole !== undefined && collection.keys.has(whole))
      return readEntry({ collection, taint: undefined }, whole);
    if (COLLECTION_ADD.has(method) && vals.length === 1) {
      const copy = copyCollection(collection);
      if (copy.items) {
        copy.items.push(withStep(vals[0]?.taint, this.step(call, `${name}.${method}(…)`)));
        const text = vals[0]?.constant?.value;
        copy.texts = [...(copy.texts ?? [])];
        copy.texts[copy.items.length - 1] = typeof text === 'string' ? text : undefined;
      } else copy.other = unionTaint(copy.other, vals[0]?.taint);
      this.env.collections.set(name, copy);
      return CLEAN;
    }
    if ((COLLECTION_INSERT.has(method) || method === 'add') && vals.length === 2) {
      const copy = copyCollection(collection);
      copy.texts = undefined;
      if (copy.items && typeof key === 'number' && key >= 0 && key <= copy.items.length)
        copy.items.splice(key, 0, vals[1]?.taint);
      else {
        copy.other = unionTaint(copy.other, vals[1]?.taint);
        copy.items = undefined;
      }
      this.env.collections.set(name, copy);
      return CLEAN;
    }
    if (COLLECTION_CLEAR.has(method)) {
      this.env.collections.set(name, {
        keys: new Map(),
        items: collection.items ? [] : undefined,
        other: undefined,
      });
      return CLEAN;
    }
    if (COLLECTION_GET.has(method)) {
      const removes = method === 'pop' || method.startsWith('remove');
      const isIndex = collection.items !== undefined && collection.keys.size === 0;
      let index: Const | undefined = vals[0]?.constant ? key : undefined;
      if (method === 'pop' && vals.length === 0 && collection.items) index = collection.items.length - 1;
      const fallback = vals[1];
      const out = readEntry({ collection, taint: undefined }, index, isIndex);
      if (removes) {
        const copy = copyCollection(collection);
        if (isIndex && typeof index === 'number' && copy.items && index >= 0 && index < copy.items.length) {
          copy.items.splice(index, 1);
          copy.texts?.splice(index, 1);
        } else if (!isIndex && index !== undefined) copy.keys.delete(String(index));
        this.env.collections.set(name, copy);
      }
      if (fallback && !out.taint && index !== undefined && !collection.keys.has(String(index)) && !isIndex)
        return { taint: fallback.taint };
      return out;
    }
    return undefined;
  }

  // ---- sinks ----

  private checkSinks(
    call: SyntaxNode,
    callee: string,
    typed: string | undefined,
    args: SyntaxNode[],
    vals: Val[],
    calleeTaint: Taint | undefined,
  ): void {
    for (const sink of this.lang.sinks) {
      if (!(sink.callee.test(callee) || (typed !== undefined && sink.callee.test(typed)))) continue;
      if (!this.conditionsHold(sink, call)) continue;
      if (sink.arg === 'receiver') {
        if (calleeTaint) this.flag(sink.kind, call, callee, calleeTaint);
        continue;
      }
      const positions = sink.arg === 'any' ? args.map((_, i) => i) : [sink.arg];
      for (const i of positions) {
        const arg = args[i];
        const v = vals[i];
        if (!arg || !v?.taint) continue;
        if (sink.argTypes && !sink.argTypes.test(arg.type)) continue;
        if (sink.shellList && !isShellCommandLine(v.collection?.texts)) continue;
        if (v.taint.safe?.includes(sink.kind)) continue;
        if (v.taint.weak && !(v.taint.built && WEAK_KINDS.includes(sink.kind))) continue;
        this.flag(sink.kind, call, callee, v.taint);
        return;
      }
    }
  }

  private conditionsHold(sink: TaintLanguage['sinks'][number], call: SyntaxNode): boolean {
    if (
      sink.whenInFunction &&
      !sink.whenInFunction.test(this.source.slice(this.unit.startIndex, this.unit.endIndex))
    )
      return false;
    if (sink.unlessParent && call.parent && sink.unlessParent.test(this.text(call.parent))) return false;
    if (!sink.when && !sink.unless) return true;
    const text = this.source.slice(call.startIndex, call.endIndex);
    return (!sink.when || sink.when.test(text)) && !sink.unless?.test(text);
  }

  private checkMember(node: SyntaxNode, sink: NonNullable<TaintLanguage['memberSinks']>[number]): void {
    const member = node.children.find((c) => c.field === sink.member);
    const receiver = node.children.find((c) => c.field === sink.receiver);
    if (!member || !receiver || !sink.name.test(this.text(member))) return;
    const v = this.evaluate(receiver);
    if (v.taint) this.flag(sink.kind, node, this.text(node), v.taint);
  }

  flag(kind: TaintKind, at: SyntaxNode, sink: string, taint: Taint, sinkStep?: TraceStep): void {
    if (taint.safe?.includes(kind)) return;
    if (taint.weak && !(taint.built && WEAK_KINDS.includes(kind))) return;
    const step = sinkStep ?? this.step(at, `sink: ${sink}`);
    if (this.reporting) this.ctx.report(kind, at, sink, taint, step);
    else if (this.sinkHits.length < MAX_SINK_HITS) this.sinkHits.push({ kind, sink, taint, sinkStep: step });
  }
}

function joinVals(a: Val, b: Val): Val {
  const out: Val = {};
  const taint = unionTaint(a.taint, b.taint);
  if (taint) out.taint = taint;
  if (a.constant && b.constant && a.constant.value === b.constant.value) out.constant = a.constant;
  return out;
}

/** Reads one entry of a modelled collection; an unknown key reads everything that may be there. */
function readEntry(v: Val, key: Const | undefined, isIndex = false): Val {
  const c = v.collection;
  if (!c) return { taint: v.taint };
  if (key === undefined || key === null) {
    let t = c.other;
    for (const x of c.keys.values()) t = unionTaint(t, x);
    for (const x of c.items ?? []) t = unionTaint(t, x);
    return t ? { taint: t } : CLEAN;
  }
  if ((isIndex || c.keys.size === 0) && typeof key === 'number' && c.items) {
    const i = key < 0 ? c.items.length + key : key;
    const t = unionTaint(c.items[i], c.other);
    return t ? { taint: t } : CLEAN;
  }
  const k = String(key);
  const t = c.keys.has(k) ? unionTaint(c.keys.get(k), c.other) : c.other;
  return t ? { taint: t } : CLEAN;
}

/** `["sh", "-c", cmd]`, `["cmd.exe", "/c", cmd]`: an argument list that hands a shell its command line. */
function isShellCommandLine(texts: (string | undefined)[] | undefined): boolean {
  const [program, flag] = texts ?? [];
  return (
    /^(-c|\/c|\/C)$/.test(flag ?? '') &&
    (program === undefined ||
      /(^|[/\\])(sh|bash|zsh|dash|ksh|ash|cmd|cmd\.exe|powershell|pwsh)$/i.test(program))
  );
}
