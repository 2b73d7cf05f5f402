import { CONFIDENCE_LEVELS } from '@tessera/shared';
import type { SyntaxNode } from '../../parsing/tree';
import { foldMethod, unescapeLiteral } from '../constants';
import { kindsRejecting } from '../guards';
import { isLookupTable } from '../lookup-tables';
import { CLEAN_METHODS, MUTATORS } from '../models';
import { NAME_LIKE } from '../syntax';
import type { SinkSpec, TaintKind, TaintLanguage } from '../types';
import {
  AUDIT_ANY_VALUE_KINDS,
  atParameterSink,
  auditTaint,
  built,
  CLEAN,
  type Const,
  confidenceAt,
  markSafe,
  type Taint,
  unionTaint,
  type Val,
  withStep,
} from '../values';
import { collectionCall } from './collections';
import { checkSizes, numberFromCall } from './numbers';
import {
  ARGUMENT_LISTS,
  type CallShape,
  FORMATTERS,
  field,
  isShellCommandLine,
  namedChildren,
  numericFormatSafeFor,
  PACKAGE_PREFIX,
  select,
} from './shared';
import { WalkState } from './state';

/** A string builder's methods that add text to it (Java, Kotlin, C#). */
const BUILDER_APPENDS = /^(append|insert|Append|AppendFormat|AppendLine|Insert)$/;

/** Calls: sources, sanitisers, sinks, the file's and the project's function summaries, builder models. */
export abstract class CallWalker extends WalkState {
  /** `std::ifstream in(path);`: the declared type's constructor runs on the arguments, which may reach a sink. */
  protected constructorDeclaration(node: SyntaxNode): void {
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

  protected evaluateCall(call: SyntaxNode): Val {
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
      if (receiver.constant?.value === null && (this.reporting || this.probe))
        this.ctx.reportNullDereference(call, receiverNode, this.unit, this.probe);
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
    // Ruby's `items.each do |item| … end`: the block runs where the call is, seeing its names.
    const block = field(call, 'block');
    if (block && !args.includes(block)) this.evaluate(block);
    // Keyword arguments (`shell=True`) are evaluated as their value.
    const method = methodNode
      ? this.text(methodNode)
      : (callee.split('.').pop() ?? callee).replace(/^new/, '');
    const typed = this.typedCallee(receiverNode, method);
    const matches = (re: RegExp) => re.test(callee) || (typed !== undefined && re.test(typed));

    for (const s of this.lang.sourceArguments ?? []) {
      if (!matches(s.callee)) continue;
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
    checkSizes(this, call, matches, args, vals);
    this.ctx.checkValues(this, call, callee, typed, vals);
    this.ctx.checkCleartext(this, call, callee, vals);
    // `def fetch(url="http://…"): requests.get(url)`: the function's own default, used when a caller passes none.
    const defaults = args.map((arg, i) =>
      !vals[i]?.constant && (!vals[i]?.taint || vals[i]?.taint?.weak) && NAME_LIKE.test(arg.type)
        ? this.parameterDefault(this.text(arg))
        : undefined,
    );
    if (defaults.some((d) => d !== undefined))
      this.ctx.checkCleartext(
        this,
        call,
        callee,
        defaults.map((d) => (d === undefined ? CLEAN : { constant: { value: d } })),
        'medium',
      );

    const argTaint = vals.reduce<Taint | undefined>((t, v) => unionTaint(t, v.taint), undefined);
    const number = numberFromCall(this, call, matches, vals, unionTaint(argTaint, calleeTaint));
    if (number) return number;
    if (this.lang.sanitizers.some(matches)) return CLEAN;
    const template = this.templateTaint(matches, args, vals);
    if (template) return template;
    for (const s of this.lang.kindSanitizers ?? []) {
      if (!matches(s.callee) || (s.when && !s.when.test(this.text(call)))) continue;
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
      summary.owner.noteCall(
        summary.fn,
        vals.map((v) => v.taint),
        this.ctx,
        this.unit,
      );
      // A constant passed in (null, a literal password) may be what the function dereferences or checks.
      if (this.reporting || this.probe)
        vals.forEach((v, i) => {
          if (!v.constant || v.taint) return;
          for (const hit of summary.owner.probe(summary.fn, i, { constant: v.constant }))
            this.ctx.reportThrough(hit, call, method, this.probe);
        });
      // An argument the function passes on to a sink inside it: the sink is reached from here.
      for (const through of summary.sinks) {
        const v = vals[through.arg]?.taint;
        if (!v || v.safe?.includes(through.kind)) continue;
        // A parameter of unknown origin counts only where the helper builds it into the query or command.
        if (v.weak && !v.audit && !through.built) continue;
        let passed = withStep(v, this.step(call, `call to ${method}()`)) as Taint;
        // Text the helper parses into a number before the numeric sink: the number is the caller's input.
        if (through.numeric && !passed.numeric) passed = { ...passed, numeric: through.numeric };
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
    // A value looked up in a table of constants is one of them, or the default given.
    const tableName =
      receiverName ?? (receiverNode?.type === 'constant' ? this.text(receiverNode) : undefined);
    if (tableName && /^(get|getOrDefault|fetch)$/.test(method) && isLookupTable(this.ctx.parsed, tableName)) {
      const fallback = vals[1]?.taint;
      return fallback ? { taint: fallback } : CLEAN;
    }
    const modelled = receiverName ? collectionCall(this, receiverName, method, vals, call) : undefined;
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
    if (process.env.DBG) console.error('REPLACE', method, JSON.stringify(from), JSON.stringify(to));
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
    if (method === 'getProperty' && vals[1]?.constant && receiverName && !this.loads(receiverName))
      return { constant: vals[1].constant };
    // A string builder's `append`/`AppendFormat`: the argument becomes part of text being assembled, as with `+`.
    if (
      receiverName &&
      argTaint &&
      BUILDER_APPENDS.test(method) &&
      /^(StringBuilder|StringBuffer)$/.test(this.env.types.get(receiverName) ?? '')
    ) {
      const text = built(unionTaint(this.env.vars.get(receiverName), argTaint)) as Taint;
      this.env.vars.set(receiverName, text);
      return { taint: unionTaint(receiver.taint, text) };
    }
    if (receiverName && MUTATORS.has(method) && argTaint && !this.isClassName(receiverName)) {
      this.env.vars.set(receiverName, unionTaint(this.env.vars.get(receiverName), argTaint) as Taint);
      return { taint: unionTaint(receiver.taint, argTaint) };
    }
    let taint = unionTaint(calleeTaint, argTaint);
    // What an unknown function makes of a number (`Math.sqrt(n)`, `Math.min(n, 10)`, `String.valueOf(n)`) is not n.
    if (taint?.numeric) taint = undefined;
    if (FORMATTERS.test(method)) {
      // The receiver is part of the text only when it is the template (`"{}".format(x)`) or carries data: a
      // package (`fmt.Sprintf("…")`) is not a value of unknown origin.
      const parts = receiver.constant || receiver.taint ? [receiver, ...vals] : vals;
      taint = built(taint) ?? this.auditOf(call, parts);
      const format = [receiver, ...vals].find((v) => typeof v.constant?.value === 'string')?.constant?.value;
      if (typeof format === 'string') taint = markSafe(taint, numericFormatSafeFor(format));
    }
    return taint ? { taint } : CLEAN;
  }

  /**
   * `repo = Repo()`, `const repo = new Repo()` of a type the project declares: `repo.find()` is `Repo.find`; with
   * `Base b = new Impl()` too, the object is an `Impl` and its overrides are what run.
   */
  protected rememberConstructedType(target: SyntaxNode, value: SyntaxNode): void {
    const project = this.ctx.project;
    if (!NAME_LIKE.test(target.type) || !/call|invocation|new_expression|object_creation/.test(value.type))
      return;
    const callee = this.shape(value).callee;
    // `var sb = new StringBuilder(…)`: what is appended to it is text being built (see `evaluateCall`).
    const builder = /^(new)?(StringBuilder|StringBuffer)$/.exec(callee)?.[2];
    if (builder) this.env.types.set(this.text(target), builder);
    if (!project) return;
    const type = project.constructedType(callee);
    if (type) this.env.types.set(this.text(target), type);
  }

  protected loads(receiver: string): boolean {
    return this.source
      .slice(this.unit.startIndex, this.unit.endIndex)
      .replace(/\s+/g, '')
      .includes(`${receiver}.load`);
  }

  protected isClassName(name: string): boolean {
    return /^[A-Z]/.test(name) && !this.env.has(name);
  }

  /** `Type.method` for a receiver whose declared type is known (`xp.evaluate` → `XPath.evaluate`). */
  protected typedCallee(receiver: SyntaxNode | undefined, method: string): string | undefined {
    const type = receiver ? this.typeOf(receiver) : undefined;
    return type ? `${type}.${method}` : undefined;
  }

  protected typeOf(receiver: SyntaxNode): string | undefined {
    return this.env.types.get(this.text(receiver)) ?? this.ctx.fieldTypes.get(this.text(receiver));
  }

  protected checkSinks(
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
    for (const sink of this.lang.sinks) {
      if (flagged.has(sink.kind)) continue;
      if (!(sink.callee.test(callee) || (typed !== undefined && sink.callee.test(typed)))) continue;
      if (!this.conditionsHold(sink, call)) continue;
      if (sink.arg === 'receiver') {
        if (calleeTaint) this.flag(sink.kind, call, callee, calleeTaint);
        continue;
      }
      if (sink.arg === 'key') {
        const key = this.calleeKey(call);
        const taint = key && this.evaluate(key).taint;
        if (taint) this.flag(sink.kind, call, callee, taint);
        continue;
      }
      const positions = sink.arg === 'any' ? args.map((_, i) => i) : sink.arg === 'options' ? [] : [sink.arg];
      const candidates: [SyntaxNode, Val][] = [];
      for (const i of positions) {
        const arg = args[i];
        const v = vals[i];
        if (arg && v) candidates.push(this.listHeadOf(sink, arg, v));
      }
      if (sink.keys) candidates.push(...this.keyedValues(sink, args));
      // The argument the finding is surest of: known input over a parameter over an audit.
      let strongest: { taint: Taint; rank: number } | undefined;
      for (const [arg, v] of candidates) {
        if (sink.argTypes && !sink.argTypes.test(arg.type)) continue;
        // `exec(compile(code, …))`: the inner call is this flow's sink of the same kind, reported there once.
        if (this.isSinkCall(arg, sink.kind)) continue;
        if (sink.shellList && !isShellCommandLine(v.collection?.texts)) continue;
        if (sink.wholeValue && v.collection) continue;
        const taint = atParameterSink(
          sink.entry !== undefined
            ? v.collection?.keys.get(sink.entry)
            : (v.taint ?? (sink.audit === false ? undefined : this.unknownValue(arg, v, sink.kind))),
          sink.parameters,
        );
        const confidence = taint && confidenceAt(taint, sink.kind, this.lang.everyInput === true);
        if (!taint || !confidence) continue;
        // A fixed scheme and host before the input: the request goes where the code says, whatever is appended.
        if ((sink.kind === 'ssrf' || sink.kind === 'open-redirect') && this.fixedDestinationOf(arg)) continue;
        const rank = CONFIDENCE_LEVELS.indexOf(confidence);
        if (!strongest || rank > strongest.rank) strongest = { taint, rank };
      }
      if (strongest) {
        this.flag(sink.kind, call, callee, strongest.taint);
        flagged.add(sink.kind);
      }
    }
  }

  /**
   * `sanitize_sql_array(["name = ?", name])`: the bound values are made safe for the sanitiser's kinds; what the
   * template itself carries (`["name = '#{name}'"]`) stays.
   */
  private templateTaint(matches: (re: RegExp) => boolean, args: SyntaxNode[], vals: Val[]): Val | undefined {
    const spec = this.lang.templateSanitizers?.find((s) => matches(s.callee));
    const first = args[0];
    if (!spec || !first) return undefined;
    const head = spec.list.test(first.type) ? namedChildren(first)[0] : first;
    const template = head === first ? vals[0] : head ? this.evaluate(head) : CLEAN;
    const bound = vals.reduce<Taint | undefined>((t, v) => unionTaint(t, v.taint), undefined);
    const taint = unionTaint(template?.taint, head === first ? undefined : markSafe(bound, spec.kinds));
    return taint ? { taint } : CLEAN;
  }

  /** `["name = ? AND x = #{y}", value]` where the sink reads a list by its head: the template, without the bound values. */
  private listHeadOf(sink: SinkSpec, arg: SyntaxNode, v: Val): [SyntaxNode, Val] {
    if (!sink.listHead?.test(arg.type)) return [arg, v];
    const head = namedChildren(arg)[0];
    return head ? this.listHeadOf(sink, head, this.evaluate(head)) : [arg, CLEAN];
  }

  /**
   * The values of keyword or hash-option arguments whose key the sink names (`:order => x`, `order: x`, and the
   * pairs of a trailing hash literal `{ :order => x }`); each read as a list's head where the sink says so.
   */
  private keyedValues(sink: SinkSpec, args: SyntaxNode[]): [SyntaxNode, Val][] {
    const out: [SyntaxNode, Val][] = [];
    const pairs = args.flatMap((a) => (a.type === 'hash' ? namedChildren(a) : [a]));
    for (const pair of pairs) {
      const key = field(pair, 'key') ?? field(pair, 'name');
      const value = field(pair, 'value');
      if (!key || !value) continue;
      const name = this.text(key).replace(/^:|:$|^["']|["']$/g, '');
      if (!sink.keys?.test(name)) continue;
      const [node, v] = this.listHeadOf(sink, value, this.evaluate(value));
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
  private unknownValue(arg: SyntaxNode, v: Val, kind: TaintKind): Taint | undefined {
    if (v.constant || v.collection || !AUDIT_ANY_VALUE_KINDS.includes(kind)) return undefined;
    const text = this.text(arg);
    return auditTaint(
      { text: text.slice(0, 60), line: arg.startRow + 1 },
      this.step(arg, `a value of unknown origin: ${text}`),
    );
  }

  /**
   * A fixed scheme and host (or a relative path) heads the URL: written in the call, or in what was last assigned to
   * the local passed (`url := "https://api.example.com/v1?q=" + q` … `http.Get(url)`).
   */
  protected fixedDestinationOf(arg: SyntaxNode): boolean {
    if (fixedDestination(this.text(arg))) return true;
    if (this.headChosenByCode(arg)) return true;
    if (!NAME_LIKE.test(arg.type)) return false;
    const name = this.text(arg);
    let last: string | undefined;
    const visit = (n: SyntaxNode): void => {
      if (n.startIndex >= arg.startIndex) return;
      const spec = this.lang.assignments.find((a) => a.type === n.type);
      const target = spec && n.children.find((c) => c.field === spec.target);
      const value = spec && n.children.find((c) => c.field === spec.value);
      if (target && value && this.text(target) === name) last = this.text(value);
      for (const c of n.children) visit(c);
    };
    visit(this.unit);
    return last !== undefined && fixedDestination(last);
  }

  /**
   * The URL is text joined at the sink (`config.base + req.query.path`, `` `${base}${path}` ``, `$base . $path`)
   * whose head is a name or member the code set and no input reached (neither constant nor tainted): the input is
   * appended to a destination the code chose (configuration, a base URL), as Semgrep's express-open-redirect and
   * CodeQL's URL-prefix sanitisers read it. A head that is input, a parameter, or literal text is not this.
   */
  private headChosenByCode(arg: SyntaxNode): boolean {
    const literals = this.flow?.literals;
    let node = arg;
    for (let depth = 0; depth < 16; depth++) {
      const first = node.children.find((c) => c.named);
      if (!first) break;
      const joins =
        /binary|concat|additive|infix/.test(node.type) &&
        node.children.some((c) => !c.named && (c.type === '+' || c.type === '.'));
      if (joins && node.children.filter((c) => c.named).length === 2) {
        node = first;
        continue;
      }
      if (literals?.strings.includes(node.type)) {
        // The string's first part must be an interpolation, not text (`"https://" + …` keeps the host open).
        const part = node.children.find((c) => c.named || literals.interpolations.includes(c.type));
        if (!part || !literals.interpolations.includes(part.type)) return false;
        const inner = part.children.find((c) => c.named);
        if (!inner) return false;
        node = inner;
        continue;
      }
      break;
    }
    if (node === arg) return false;
    if (
      !NAME_LIKE.test(node.type) &&
      !/member_expression|field_access|attribute|selector_expression/.test(node.type)
    )
      return false;
    const v = this.evaluate(node);
    return !v.taint && !v.constant;
  }

  /**
   * The string literal a parameter of the function being walked defaults to (`url="http://…"`, `url = 'http://…'`,
   * `$url = "…"`), when the parameter list declares one; a parameter is found by its name's node and the literal
   * beside it, whatever the grammar calls the pair.
   */
  private parameterDefault(name: string): string | undefined {
    const params = this.unit.children.find((c) => /parameters|parameter_list|formal_parameters/.test(c.type));
    if (!params) return undefined;
    const literals = this.flow?.literals.strings ?? [];
    for (const p of params.children) {
      if (!p.named) continue;
      const parts = p.children.filter((c) => c.named);
      const head = parts[0];
      const last = parts[parts.length - 1];
      if (
        !head ||
        !last ||
        parts.length < 2 ||
        this.text(head).replace(/^\$/, '') !== name.replace(/^\$/, '')
      )
        continue;
      if (!literals.includes(last.type)) return undefined;
      const value = this.evaluate(last).constant?.value;
      return typeof value === 'string' ? value : undefined;
    }
    return undefined;
  }

  private isSinkCall(node: SyntaxNode, kind: TaintKind): boolean {
    if (!this.lang.calls.includes(node.type)) return false;
    const { callee } = this.shape(node);
    // Gin's `c.Query("sort")` reads the request: a source whose name a sink shares is not a sink reported there.
    if (this.lang.sourceCalls.some((re) => re.test(callee))) return false;
    return this.lang.sinks.some(
      (s) => s.kind === kind && s.callee.test(callee) && this.conditionsHold(s, node),
    );
  }

  /**
   * What picks the function a call runs: the key of a subscript (`name` in `handlers[name](…)`,
   * `handlers[name].call(…)`, `new globalThis[name]()`) or a variable holding its name (PHP). A literal key is the
   * code's own choice.
   */
  private calleeKey(call: SyntaxNode): SyntaxNode | undefined {
    const flow = this.flow;
    if (!flow) return undefined;
    // PHP's variable functions and methods: `$fn()`, `$obj->$method()`, `$class::$method()`.
    const name = field(call, 'name') ?? field(call, 'function');
    if (name?.type === 'variable_name') return name;
    let fn = field(call, 'function') ?? field(call, 'constructor');
    while (fn && flow.parens.includes(fn.type)) fn = namedChildren(fn)[0];
    // `handlers[name].call(thisArg, …)`: the function is still the one the key picks.
    if (fn?.type === 'member_expression' && /^(call|apply)$/.test(this.text(field(fn, 'property') ?? fn)))
      fn = field(fn, 'object');
    const spec = fn && flow.subscripts[fn.type];
    const key = spec && fn ? field(fn, spec.index) : undefined;
    return key && !flow.literals?.strings.includes(key.type) ? key : undefined;
  }

  protected conditionsHold(sink: TaintLanguage['sinks'][number], call: SyntaxNode): boolean {
    if (
      sink.whenInFunction &&
      !sink.whenInFunction.test(this.source.slice(this.unit.startIndex, this.unit.endIndex))
    )
      return false;
    if (sink.unlessInFunction?.test(this.source.slice(this.unit.startIndex, this.unit.endIndex)))
      return false;
    if (sink.unlessInFile?.test(this.source)) return false;
    if (sink.whenInFile && !sink.whenInFile.test(this.source)) return false;
    if (sink.unlessParent && call.parent && sink.unlessParent.test(this.text(call.parent))) return false;
    if (sink.minArgs !== undefined && this.shape(call).args.length < sink.minArgs) return false;
    if (!sink.when && !sink.unless) return true;
    const text = this.source.slice(call.startIndex, call.endIndex);
    return (!sink.when || sink.when.test(text)) && !sink.unless?.test(text);
  }

  protected checkMember(node: SyntaxNode, sink: NonNullable<TaintLanguage['memberSinks']>[number]): void {
    const member = node.children.find((c) => c.field === sink.member);
    const receiver = node.children.find((c) => c.field === sink.receiver);
    if (!member || !receiver || !sink.name.test(this.text(member))) return;
    if (sink.unless?.test(this.text(receiver))) return;
    const v = this.evaluate(receiver);
    if (v.taint) this.flag(sink.kind, node, this.text(node), v.taint);
  }
}

/**
 * A URL whose destination the code fixes before any input joins it: a literal scheme and host followed by a path
 * (`"https://api.corp.com/users/" + id`, `f"https://api.corp.com/u/{id}"`), or a local path that cannot become
 * protocol-relative (`"/home/" + id`, not `"/" + id`). The input then chooses a path on that host, not the host.
 */
export function fixedDestination(argument: string): boolean {
  // `new URL('/login', request.url)`: a rooted path resolved against a base stays on the base's host.
  const m = /^[A-Za-z@$]{0,2}("""|'''|["'`])([^"'`]*)/.exec(
    argument.replace(/^\(+/, '').replace(/^new\s*URL\(\s*/, ''),
  );
  const head = m?.[2] ?? '';
  return /^(https?|wss?|ftp):\/\/[^/?#\s{}$%+@\\]+[/?#]/i.test(head) || /^\/[^/\\{$%]/.test(head);
}
