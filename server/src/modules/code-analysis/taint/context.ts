import { CONFIDENCE_LEVELS, type Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { cleartextRequest } from '../rules/cleartext-urls';
import type { Range } from './numeric/ranges';
import { handlerAnnotations, isRouteHandler, parameterNames, parametersOf } from './parameters';
import type { TaintProject } from './project';
import { TAINT_RULES } from './rules';
import { NAME_LIKE, norm } from './syntax';
import type { TaintKind, TaintLanguage } from './types';
import { type Const, confidenceAt, type Taint, type TraceStep, unionTaint, type Val } from './values';
import { callShape } from './walk/shape';
import type { WalkState } from './walk/state';
import { newWalk } from './walker';

/** A sink an argument of a function reaches inside it (or inside the functions it calls). */
export interface SinkThrough {
  /** The argument's position at a call. */
  arg: number;
  kind: TaintKind;
  sink: string;
  /** The argument's path from the parameter to the sink, and the sink itself. */
  steps: TraceStep[];
  sinkStep: TraceStep;
  /** The parameter was built into a string on its way (which a parameter of unknown origin needs). */
  built: boolean;
  /** The parameter became a number on its way (`Integer.parseInt(p)`), in this range at the numeric sink. */
  numeric?: Range;
}

/**
 * What a function does with its arguments: which reach its return value, which reach a sink inside it, and what it
 * returns.
 */
export interface Summary {
  flows: boolean[];
  sinks: SinkThrough[];
  /** Kinds a sanitiser inside made the returned value safe for. */
  safe: TaintKind[];
  /** Untrusted data the function reads itself and returns. */
  returnsSource: Taint | undefined;
  constant: { value: Const } | undefined;
  /** The function summarised, in its file's context: calls note what they pass it (`noteCall`). */
  fn: SyntaxNode;
  owner: FileContext;
}

/** Assignments to a name (`n = …`, `n += …`, `this.n = …`, `n++`, `--n`), as a global pattern. */
function writesOf(name: string): RegExp {
  const n = name.replace(/\$/g, '\\$');
  return new RegExp(
    `(^|[^\\w.$]|this\\.|self\\.)${n}\\s*([-+*/%&|^]|<<|>>>?|\\?\\?)?=(?!=)|(\\+\\+|--)\\s*(this\\.)?${n}\\b|\\b${n}\\s*(\\+\\+|--)`,
    'g',
  );
}

/** A literal's value: a number, a plain string, a boolean. */
function literalValue(text: string): { value: Const } | undefined {
  if (/^-?\d+(\.\d+)?[LlFfDd]?$/.test(text)) return { value: Number.parseFloat(text) };
  if (/^"[^"\\]*"$/.test(text)) return { value: text.slice(1, -1) };
  if (text === 'true' || text === 'false') return { value: text === 'true' };
  return undefined;
}

/** A function's parameter, by position (`self` and `cls` aside), in its file's context. */
export interface ParameterRef {
  ctx: FileContext;
  fn: SyntaxNode;
  index: number;
}

/** Profile kinds of anonymous functions, which run in the scope they are written in. */
const CLOSURE_KINDS = new Set(['closure', 'lambda', 'arrow', 'block']);

const MAX_FINDINGS = 200;
const MAX_PROBES = 100;

/** An object's own field: `this.q`, `self.q`, `$this->q`, Ruby's `@q`. */
const OWN_FIELD = /^(this\.|self\.|\$this->|@)[A-Za-z_]\w*$/;

/**
 * The name an anonymous function is bound to where it is defined: `const q = (sql) => …`, `exports.q = function
 * (sql) {…}` (the last part of the target: `q`).
 */
function boundName(fn: SyntaxNode): SyntaxNode | undefined {
  const parent = fn.parent;
  if (!parent) return undefined;
  if (fn.field === 'value' && parent.type === 'variable_declarator')
    return parent.children.find((c) => c.field === 'name' && NAME_LIKE.test(c.type));
  if (fn.field === 'right' && parent.type === 'assignment_expression')
    return parent.children.find((c) => c.field === 'left' && /identifier|member_expression/.test(c.type));
  return undefined;
}

/** The file-wide part of the dataflow: its functions and their summaries, and the findings. */
export class FileContext {
  readonly units: SyntaxNode[] = [];
  readonly findings: Finding[] = [];
  readonly fieldTypes = new Map<string, string>();
  private readonly functions = new Map<string, SyntaxNode[]>();
  private readonly summaries = new Map<SyntaxNode, Summary | undefined>();
  private readonly computing = new Set<SyntaxNode>();
  /** Each reported sink's finding, by kind and position: a surer finding there replaces a less sure one. */
  private readonly reported = new Map<string, number>();
  private readonly functionTypes: Record<string, string>;
  /** Untrusted data a method stored into its object's own field (`this.q = req.query.q`), by class and field. */
  private readonly fieldTaint = new Map<string, Taint>();
  /** The units that read an own field while it held nothing known, by class and field. */
  private readonly fieldReads = new Map<string, Set<SyntaxNode>>();

  /** `path` and `project`: the file's place in a project analysis, whose other files' functions calls may reach. */
  constructor(
    readonly parsed: ParsedSource,
    readonly lang: TaintLanguage,
    readonly path?: string,
    readonly project?: TaintProject,
  ) {
    this.functionTypes = PROFILES[parsed.language].functions;
    this.units.push(parsed.root);
    const collect = (node: SyntaxNode): void => {
      for (const child of node.children) {
        if (child.named && this.functionTypes[child.type]) {
          this.units.push(child);
          const name = child.children.find((c) => c.field === 'name') ?? boundName(child);
          if (name) {
            const key = norm(parsed.source, name).split('.').pop() ?? '';
            this.functions.set(key, [...(this.functions.get(key) ?? []), child]);
          }
        }
        collect(child);
      }
    };
    collect(parsed.root);
  }

  private classOf(unit: SyntaxNode): SyntaxNode | null {
    let node: SyntaxNode | null = unit;
    while (node && !/class|object_declaration/.test(node.type)) node = node.parent;
    return node;
  }

  /** The class (or else the file) whose instances own `this.x` in a unit, and the field: the key of its taint. */
  private fieldKey(unit: SyntaxNode, field: string): string {
    return `${this.classOf(unit)?.startIndex ?? -1}:${field.replace(/^(this|self)\.|^\$this->|^@/, '')}`;
  }

  /**
   * `this.q`, `self.q`, `$this->q`, `@q`; or a bare `q` where the enclosing class declares a field `q` (Java, C#,
   * C++, Kotlin name their own fields without `this`). A local of that name hides it before this is asked.
   */
  private isOwnField(unit: SyntaxNode, field: string): boolean {
    if (OWN_FIELD.test(field)) return true;
    const cls = this.classOf(unit);
    return cls !== null && /^[A-Za-z_]\w*$/.test(field) && this.declaredFields(cls).has(field);
  }

  private readonly fieldNames = new Map<SyntaxNode, Set<string>>();

  /** The names a class declares as fields (`private String data;`), not those of classes nested in it. */
  private declaredFields(cls: SyntaxNode): Set<string> {
    const cached = this.fieldNames.get(cls);
    if (cached) return cached;
    const names = new Set<string>();
    const visit = (node: SyntaxNode, inField: boolean) => {
      for (const child of node.children) {
        if (/class|object_declaration/.test(child.type)) continue;
        if (this.functionTypes[child.type]) continue;
        const field = inField || /^(field_declaration|property_declaration)$/.test(child.type);
        if (field && /^(variable_declarator|variable_declaration)$/.test(child.type)) {
          const name = child.children.find((c) => c.field === 'name' || /identifier$/.test(c.type));
          if (name) names.add(norm(this.parsed.source, name));
        }
        if (field && child.type === 'field_identifier') names.add(norm(this.parsed.source, child));
        visit(child, field);
      }
    };
    visit(cls, false);
    this.fieldNames.set(cls, names);
    return names;
  }

  private readonly fieldConstants = new Map<SyntaxNode, Map<string, { value: Const }>>();

  /**
   * A field of the class that is private or final, initialised with a literal, and never assigned anywhere in the
   * class: its value is that literal wherever a method reads it (`private int limit = 5;`, `this.limit`).
   */
  fieldConstant(unit: SyntaxNode, field: string): { value: Const } | undefined {
    const cls = this.classOf(unit);
    if (!cls) return undefined;
    let constants = this.fieldConstants.get(cls);
    if (!constants) {
      constants = new Map();
      this.fieldConstants.set(cls, constants);
      const body = this.parsed.source.slice(cls.startIndex, cls.endIndex);
      for (const decl of [...cls.children, ...cls.children.flatMap((c) => c.children)]) {
        if (decl.type !== 'field_declaration') continue;
        const text = this.parsed.source.slice(decl.startIndex, decl.endIndex);
        if (!/\b(private|final|readonly|const)\b/.test(text)) continue;
        for (const d of decl.children.filter((c) => c.type === 'variable_declarator')) {
          const name = d.children.find((c) => c.field === 'name');
          const value = d.children.find((c) => c.field === 'value');
          const literal = value ? literalValue(norm(this.parsed.source, value)) : undefined;
          if (!name || !literal) continue;
          const n = norm(this.parsed.source, name);
          // The declaration's own initialiser is the one write allowed.
          if ((body.match(writesOf(n)) ?? []).length <= 1) constants.set(n, literal);
        }
      }
    }
    return constants.get(field.replace(/^this\./, ''));
  }

  /** `this.q = …` (`self.q`, `$this->q`, `@q`) with known input: every method of the class may read it. */
  storeField(unit: SyntaxNode, field: string, taint: Taint): void {
    if (taint.weak || !this.isOwnField(unit, field)) return;
    const key = this.fieldKey(unit, field);
    this.fieldTaint.set(key, unionTaint(this.fieldTaint.get(key), taint) as Taint);
  }

  /** What an own field read in a method may hold: what any method of the class stored in it. */
  readField(unit: SyntaxNode, field: string): Taint | undefined {
    if (!this.isOwnField(unit, field)) return undefined;
    const key = this.fieldKey(unit, field);
    const taint = this.fieldTaint.get(key);
    if (!taint) this.fieldReads.set(key, (this.fieldReads.get(key) ?? new Set()).add(unit));
    return taint;
  }

  /** Units that read a field before another method was seen storing input in it: to be walked again. */
  staleFieldReaders(): SyntaxNode[] {
    const out = new Set<SyntaxNode>();
    for (const [key, units] of this.fieldReads)
      if (this.fieldTaint.has(key)) for (const u of units) out.add(u);
    this.fieldReads.clear();
    return [...out];
  }

  /** The file's named functions by name. */
  get functionsByName(): ReadonlyMap<string, readonly SyntaxNode[]> {
    return this.functions;
  }

  isFunction(node: SyntaxNode): boolean {
    return this.functionTypes[node.type] !== undefined;
  }

  isClosure(node: SyntaxNode): boolean {
    const kind = this.functionTypes[node.type];
    return kind !== undefined && (CLOSURE_KINDS.has(kind) || /^function(_expression)?$/.test(node.type));
  }

  get parameterContainers(): string[] {
    return PROFILES[this.parsed.language].parameterContainers;
  }

  parameters(unit: SyntaxNode): string[] {
    const params = parametersOf(unit, this.lang, PROFILES[this.parsed.language].parameterContainers);
    return params.map((p) => parameterNames(this.parsed.source, p)[0] ?? '');
  }

  /** The summary of the file's function a call reaches, when the call can only mean that function. */
  summaryFor(
    callee: string,
    method: string,
    arity: number,
    receiver: SyntaxNode | undefined,
    receiverType: string | undefined,
  ): Summary | undefined {
    const fn =
      receiver && !this.ownReceiver(receiver, callee) ? undefined : this.functionNamed(method, arity);
    if (fn) return this.summaryOf(fn);
    // Languages without a flow syntax name no receiver node: `Db.Find` is read from the callee's text.
    const dot = callee.lastIndexOf('.');
    const receiverText = receiver
      ? norm(this.parsed.source, receiver)
      : dot > 0 && callee.slice(dot + 1) === method
        ? callee.slice(0, dot)
        : undefined;
    return this.project?.summaryAcross(this, method, arity, receiverText, receiverType);
  }

  /** The file's function of that name taking `arity` arguments (`self` and `cls` aside). */
  functionNamed(name: string, arity: number): SyntaxNode | undefined {
    return this.functions.get(name)?.find((f) => this.arity(f) === arity);
  }

  private arity(fn: SyntaxNode): number {
    return this.parameters(fn).filter((p) => !/^(self|cls)$/.test(p)).length;
  }

  /** `this.f()`, `self.f()`, `new Inner().f()`, `Outer.f()`: receivers that are the file's own code. */
  private ownReceiver(receiver: SyntaxNode, callee: string): boolean {
    const text = norm(this.parsed.source, receiver);
    if (/^(this|self|cls|super)$/.test(text)) return true;
    // `new Inner().f()` is this file's code only when the file declares `Inner`: `new Other().f()` from a
    // method `f` of its own is a call into another class, not recursion.
    const created = /^\(?new([A-Z]\w*)\(/.exec(callee)?.[1] ?? /^\(?new([A-Z]\w*)\(/.exec(text)?.[1];
    if (created) return this.declaresClass(created);
    if (/object_creation/.test(receiver.type)) return true;
    return NAME_LIKE.test(receiver.type) && /^[A-Z]/.test(text) && this.declaresClass(text);
  }

  private declaresClass(name: string): boolean {
    return new RegExp(`\\b(class|object|struct|record|enum|interface)\\s+${name}\\b`).test(
      this.parsed.source,
    );
  }

  summaryOf(fn: SyntaxNode): Summary | undefined {
    if (this.summaries.has(fn)) return this.summaries.get(fn);
    if (this.computing.has(fn)) return undefined;
    this.computing.add(fn);
    const names = this.parameters(fn);
    const base = newWalk(this, fn, false);
    base.run([]);
    const summary: Summary = {
      flows: [],
      sinks: [],
      safe: [],
      returnsSource: base.returned?.taint,
      constant: base.returned?.constant,
      fn,
      owner: this,
    };
    let safe: TaintKind[] | undefined;
    names.forEach((name, i) => {
      if (/^(self|cls)$/.test(name)) return;
      const marker: Taint = { origin: { text: `#${i}`, line: 0 }, steps: [] };
      const walker = newWalk(this, fn, false);
      walker.run([[name, marker]]);
      const t = walker.returned?.taint;
      const flows = t?.origin.text === `#${i}`;
      const arg = summary.flows.length;
      for (const hit of walker.sinkHits) {
        if (
          hit.taint.origin.text !== `#${i}` ||
          summary.sinks.some((s) => s.arg === arg && s.kind === hit.kind)
        )
          continue;
        summary.sinks.push({
          arg,
          kind: hit.kind,
          sink: hit.sink,
          steps: hit.taint.steps,
          sinkStep: hit.sinkStep,
          built: hit.taint.built === true,
          ...(hit.taint.numeric && { numeric: hit.taint.numeric }),
        });
      }
      summary.flows.push(flows);
      if (flows) safe = safe ? safe.filter((k) => t?.safe?.includes(k)) : [...(t?.safe ?? [])];
    });
    summary.safe = safe ?? [];
    this.computing.delete(fn);
    this.summaries.set(fn, summary);
    return summary;
  }

  onReturn(walker: WalkState, unit: SyntaxNode, value: SyntaxNode, v: Val): void {
    const sinks = this.lang.returnSink;
    if (!sinks || !v.taint || !walker.reporting) return;
    if (!isRouteHandler(this.parsed, this.lang, unit)) return;
    const text = walker.nodeText(value);
    for (const sink of Array.isArray(sinks) ? sinks : [sinks]) {
      if (sink.value && !sink.value.test(text)) continue;
      if (
        sink.unless &&
        /call|invocation/.test(value.type) &&
        sink.unless.test(callShape(walker, value).callee)
      )
        continue;
      if (sink.scope || sink.scopeUnless) {
        const declared = handlerAnnotations(this.parsed, unit);
        if (sink.scope && !sink.scope.test(`${declared} ${text}`)) continue;
        if (sink.scopeUnless?.test(declared)) continue;
      }
      walker.flag(sink.kind, value, 'the response body', v.taint);
      return;
    }
  }

  checkValues(
    walker: WalkState,
    call: SyntaxNode,
    callee: string,
    typed: string | undefined,
    vals: Val[],
  ): void {
    if (!walker.reporting && !walker.probe) return;
    for (const check of this.lang.valueChecks ?? []) {
      if (!check.callee.test(callee) && !(typed && check.callee.test(typed))) continue;
      const raw = vals[check.arg]?.constant?.value;
      const v = typeof raw === 'number' ? String(raw) : raw;
      if (typeof v !== 'string' || !check.value.test(v)) continue;
      this.push(
        {
          rule_id: check.rule,
          category: 'security',
          severity: check.severity,
          confidence: 'high',
          message: check.message.replace('{value}', v.slice(0, 60)),
          ...locate(this.parsed, call),
          cwe: check.cwe,
        },
        `${check.rule}:${call.startIndex}`,
        walker.probe,
      );
    }
  }

  /**
   * What the calls seen so far pass each function, by position: `input` where some call passes data that is not
   * constant, else the callers' own parameters it passes on (constant if their callers' are).
   */
  private readonly callers = new Map<SyntaxNode, { input: Set<number>; from: Map<number, ParameterRef[]> }>();
  /** Findings from a parameter of unknown origin: the function and the parameter's position. */
  private readonly weakSites = new Map<string, ParameterRef>();

  /** The position of the parameter a taint of unknown origin (or a summary's marker `#i`) comes from. */
  parameterOf(unit: SyntaxNode, taint: Taint): ParameterRef | undefined {
    const all = this.parameters(unit);
    const names = all.filter((p) => !/^(self|cls)$/.test(p));
    const marker = /^#(\d+)$/.exec(taint.origin.text);
    if (marker) {
      const name = all[Number(marker[1])];
      const index = name === undefined ? -1 : names.indexOf(name);
      return index >= 0 ? { ctx: this, fn: unit, index } : undefined;
    }
    if (!taint.weak) return undefined;
    const words = new Set(taint.origin.text.match(/[\w$]+/g) ?? []);
    const index = names.findIndex((n) => words.has(n));
    return index >= 0 ? { ctx: this, fn: unit, index } : undefined;
  }

  noteCall(fn: SyntaxNode, args: (Taint | undefined)[], caller: FileContext, unit: SyntaxNode): void {
    const entry = this.callers.get(fn) ?? { input: new Set<number>(), from: new Map() };
    this.callers.set(fn, entry);
    args.forEach((t, i) => {
      if (!t) return;
      const ref = caller.parameterOf(unit, t);
      if (!ref) entry.input.add(i);
      else entry.from.set(i, [...(entry.from.get(i) ?? []), ref]);
    });
  }

  /** Every call seen passes this parameter a constant, directly or through callers' parameters that are. */
  constantFed(fn: SyntaxNode, index: number, visiting = new Set<string>()): boolean {
    const entry = this.callers.get(fn);
    if (!entry || entry.input.has(index)) return false;
    const key = `${this.path ?? ''}:${fn.startIndex}:${index}`;
    if (visiting.has(key)) return true;
    visiting.add(key);
    return (entry.from.get(index) ?? []).every((r) => r.ctx.constantFed(r.fn, r.index, visiting));
  }

  /**
   * A finding from a parameter of unknown origin, in a function whose every call the analysed code shows passes a
   * constant there: the origin is known after all, and it is not input. Kept when nothing calls the function.
   */
  fromConstantCallers(f: Finding): boolean {
    if (f.confidence !== 'medium') return false;
    const site = this.weakSites.get(`${f.rule_id}:${f.line}:${f.column}`);
    return site?.ctx.constantFed(site.fn, site.index) ?? false;
  }

  /**
   * A client called with a cleartext URL held in a variable (`url = "http://…"; requests.post(url)`); a literal
   * written in the call is the rule `security/cleartext-request`'s.
   */
  checkCleartext(
    walker: WalkState,
    call: SyntaxNode,
    callee: string,
    vals: Val[],
    confidence: 'high' | 'medium' = 'high',
  ): void {
    if (!walker.reporting) return;
    const text = this.parsed.source.slice(call.startIndex, call.endIndex);
    for (const v of vals) {
      const url = v.constant?.value;
      if (typeof url !== 'string' || text.includes(url) || !cleartextRequest(callee, `"${url}"`)) continue;
      this.push(
        {
          rule_id: 'security/cleartext-request',
          category: 'security',
          severity: 'medium',
          confidence,
          message: `\`${callee.slice(0, 60)}\` sends the request in clear (${url.slice(0, 80)}): anyone on the path can read and change it; use https:// (wss://, SFTP/FTPS).`,
          ...locate(this.parsed, call),
          cwe: 'CWE-319',
        },
        `cleartext:${call.startIndex}`,
      );
      return;
    }
  }

  report(
    kind: TaintKind,
    at: SyntaxNode,
    sink: string,
    taint: Taint,
    sinkStep: TraceStep,
    unit?: SyntaxNode,
  ): void {
    const rule = TAINT_RULES[kind];
    const site = taint.weak && unit ? this.parameterOf(unit, taint) : undefined;
    if (site) {
      const { line, column } = locate(this.parsed, at);
      this.weakSites.set(`security/${kind}:${line}:${column}`, site);
    }
    // Steps in another file of a project name it.
    const where = (s: TraceStep) => (s.path !== undefined && s.path !== this.path ? `${s.path} ` : '');
    const through = taint.steps
      .filter((s) => !s.note.startsWith('source:'))
      .map((s) => `${s.note.replace(/ = …$/, '')} (${where(s)}line ${s.line})`)
      .slice(0, 4);
    const via = through.length > 0 ? ` through ${through.join(', ')}` : '';
    const sinkFile = sinkStep.path !== undefined && sinkStep.path !== this.path ? ` (${sinkStep.path})` : '';
    // A parameter of unknown origin built into a query or command (medium): the caller may pass anything. Text
    // built from values of unknown origin (low): an audit finding, worth a look, not proven.
    const confidence = confidenceAt(taint, kind, this.lang.everyInput === true) ?? 'low';
    const what = !taint.weak
      ? taint.uncontrolled
        ? 'an uncontrolled value'
        : 'untrusted input'
      : taint.audit || confidence === 'low'
        ? 'a value of unknown origin'
        : 'a parameter';
    this.push(
      {
        rule_id: `security/${kind}`,
        category: 'security',
        severity: rule.severity,
        confidence,
        message: `${rule.title}: ${what} \`${taint.origin.text}\` (line ${taint.origin.line}) flows${via} into \`${sink.slice(0, 60)}\`${sinkFile}${confidence === 'low' ? ' (audit: check where it comes from)' : taint.numeric ? ' without a range check' : ' without sanitizing'}; ${rule.fix}.`,
        ...locate(this.parsed, at),
        cwe: rule.cwe,
        trace: [...taint.steps, sinkStep],
      },
      `${kind}:${at.startIndex}`,
    );
  }

  /**
   * A helper's sink reported from its parameter of unknown origin (medium) that a call proves reached by known input
   * (high, its trace through the helper ending at that sink): one finding, the proven one, stays.
   */
  dropShadowed(): void {
    if (!this.project) {
      const kept = this.findings.filter((f) => !this.fromConstantCallers(f));
      this.findings.splice(0, this.findings.length, ...kept);
    }
    const key = (rule: string, line: number, column: number) => `${rule}:${line}:${column}`;
    const proven = new Set<string>();
    for (const f of this.findings) {
      const last = f.trace?.[f.trace.length - 1];
      if (f.confidence !== 'high' || !last || (last.path ?? this.path) !== this.path) continue;
      proven.add(key(f.rule_id, last.line, last.column));
    }
    if (proven.size === 0) return;
    const kept = this.findings.filter(
      (f) => f.confidence === 'high' || !proven.has(key(f.rule_id, f.line, f.column)),
    );
    this.findings.splice(0, this.findings.length, ...kept);
  }

  /**
   * An `if` whose condition the dataflow folds to a constant (`s.equals("x")` with `s` known, `n == n - 1` with `n`
   * known, a call to a function that always returns the same): one branch is dead. A bare name (`if (DEBUG)`) is
   * a deliberate switch and is left alone; a literal (`if (false)`) is not.
   */
  reportConstantCondition(condition: SyntaxNode, truth: boolean, unit: SyntaxNode): void {
    // Loops run once and compound assignments may not fold: a name written more than once in the function (`total
    // += item` in a loop) may hold other values than the one folded, so only names written once count.
    const body = this.parsed.source.slice(unit.startIndex, unit.endIndex);
    const names = new Set(
      this.parsed.source.slice(condition.startIndex, condition.endIndex).match(/[A-Za-z_$][\w$]*/g),
    );
    for (const n of names) if ((body.match(writesOf(n)) ?? []).length > 1) return;
    let inner = condition;
    while (
      /parenthesized|condition_clause/.test(inner.type) &&
      inner.children.filter((c) => c.named).length === 1
    )
      inner = inner.children.find((c) => c.named) ?? inner;
    const text = norm(this.parsed.source, inner);
    if (NAME_LIKE.test(inner.type) || (/^[\w.$]+$/.test(text) && !/^(true|false|True|False)$/.test(text)))
      return;
    this.push(
      {
        rule_id: 'bug/constant-condition',
        category: 'bug',
        severity: 'medium',
        confidence: 'high',
        message: `The condition \`${text.slice(0, 80)}\` is always ${truth}: the ${truth ? 'other branch never runs' : 'branch never runs'}; remove the dead branch or test what was meant.`,
        ...locate(this.parsed, condition),
        cwe: truth ? 'CWE-571' : 'CWE-570',
      },
      `constant-condition:${condition.startIndex}`,
    );
  }

  /**
   * A member of a value that is null on this path (`String s = null; … s.trim()`): the constant is folded, so a
   * check (`if (s != null)`) already leaves the dereference unwalked. Names written more than once in the function
   * are left alone unless null is all they are given: the walk may not see every way
   * they change (a loop runs once).
   */
  reportNullDereference(at: SyntaxNode, object: SyntaxNode, unit: SyntaxNode, probe?: Finding[]): void {
    const body = this.parsed.source.slice(unit.startIndex, unit.endIndex);
    const name = norm(this.parsed.source, object);
    // A field may be set by any method the walk does not follow (`init()`); a local only where this function says.
    if (!/^[A-Za-z_$][\w$]*$/.test(name) || this.isOwnField(unit, name)) return;
    const writes = (body.match(writesOf(name)) ?? []).length;
    const nulls = (
      body.match(new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\s*=\\s*(null|None|nil)\\b`, 'g')) ?? []
    ).length;
    // One assignment is precise (`s = helperReturningNull()`); several must all be null.
    if (writes > 1 && writes > nulls) return;
    // Assigned here but never a null literal: the null is what a call returned.
    const returned = nulls === 0 && writes > 0;
    this.push(
      {
        rule_id: 'bug/null-dereference',
        category: 'bug',
        severity: 'high',
        confidence: 'high',
        message: `\`${name}\` is null here${returned ? ' (a call returned it)' : ''}, so \`${norm(this.parsed.source, at).slice(0, 60)}\` throws; ${returned ? 'check the returned value' : 'assign it a value first, or test it'} for null before use.`,
        ...locate(this.parsed, at),
        // CWE-690 (a return value dereferenced unchecked) is a kind of 476; a called function's null, or one from
        // a field or a probe, cannot always be told apart, so the general weakness is named.
        cwe: 'CWE-476',
      },
      `null-dereference:${at.startIndex}`,
      probe,
    );
  }

  private readonly probes = new Map<string, Finding[]>();
  private readonly probing = new Set<string>();

  /**
   * What a function does with a constant in its parameter at `index` (`null`, a literal): the null dereferences
   * and value checks that constant meets inside it, and in what it calls with it. Walked once per function,
   * position and value.
   */
  probe(fn: SyntaxNode, index: number, value: Val): Finding[] {
    const key = `${fn.startIndex}:${index}:${JSON.stringify(value.constant?.value)}`;
    const cached = this.probes.get(key);
    if (cached) return cached;
    // A bound on the work: a file calling its own functions with many different literals probes the first ones.
    if (this.probing.has(key) || this.probes.size >= MAX_PROBES) return [];
    const name = this.parameters(fn).filter((p) => !/^(self|cls)$/.test(p))[index];
    if (!name) return [];
    this.probing.add(key);
    const walker = newWalk(this, fn, false);
    walker.probe = [];
    walker.runWith([[name, value]]);
    this.probing.delete(key);
    this.probes.set(key, walker.probe);
    return walker.probe;
  }

  /** A finding a constant meets inside a called function, reported at the call that passes it. */
  reportThrough(hit: Finding, call: SyntaxNode, method: string, probe?: Finding[]): void {
    const { path, ...rest } = hit;
    const where = path !== undefined && path !== this.path ? `${path} ` : '';
    this.push(
      {
        ...rest,
        message: `${hit.message} (passed to ${method}(), ${where}line ${hit.line})`,
        ...locate(this.parsed, call),
      },
      `${hit.rule_id}:through:${call.startIndex}`,
      probe,
    );
  }

  private push(finding: Finding, key: string, probe?: Finding[]): void {
    if (probe) {
      if (probe.length < MAX_FINDINGS)
        probe.push(this.path === undefined ? finding : { ...finding, path: this.path });
      return;
    }
    const at = this.reported.get(key);
    if (at !== undefined) {
      const before = this.findings[at];
      const rank = (f: Finding) => CONFIDENCE_LEVELS.indexOf(f.confidence);
      if (before && rank(finding) > rank(before)) this.findings[at] = finding;
      return;
    }
    if (this.findings.length >= MAX_FINDINGS) return;
    this.reported.set(key, this.findings.length);
    this.findings.push(finding);
  }
}
