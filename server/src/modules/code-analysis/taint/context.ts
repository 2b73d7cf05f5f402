import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { ClassFields } from './fields';
import { parameterNames, parametersOf } from './parameters';
import { FileFindings } from './reports';
import { NAME_LIKE, norm } from './syntax';
import type { TaintKind, TaintLanguage } from './types';
import type { Const, Taint, TraceStep, Val } from './values';
import type { Summary, SummaryOwner, WalkHost } from './walk/host';
import { newWalk } from './walker';

export type { SinkThrough, Summary } from './walk/host';

/**
 * What a file asks of the project it is part of: a function of another file a call can only mean, and the type a
 * constructor call makes (project.ts).
 */
export interface ProjectLookup {
  summaryAcross(
    from: FileContext,
    method: string,
    arity: number,
    receiverText: string | undefined,
    receiverType: string | undefined,
  ): Summary | undefined;
  constructedType(callee: string): string | undefined;
}

/** A function's parameter, by position (`self` and `cls` aside), in its file's context. */
export interface ParameterRef {
  ctx: FileContext;
  fn: SyntaxNode;
  index: number;
}

/** Profile kinds of anonymous functions, which run in the scope they are written in. */
const CLOSURE_KINDS = new Set(['closure', 'lambda', 'arrow', 'block']);

const MAX_PROBES = 100;

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

/**
 * The file-wide part of the dataflow: its functions, their summaries and what calls pass them, the fields its classes
 * share (fields.ts) and its findings (reports.ts). Walks of its functions (walker.ts) see it as their `WalkHost`.
 */
export class FileContext implements WalkHost, SummaryOwner {
  readonly units: SyntaxNode[] = [];
  readonly fields: ClassFields;
  readonly log: FileFindings;
  readonly fieldTypes = new Map<string, string>();
  private readonly functions = new Map<string, SyntaxNode[]>();
  private readonly summaries = new Map<SyntaxNode, Summary | undefined>();
  private readonly computing = new Set<SyntaxNode>();
  private readonly functionTypes: Record<string, string>;

  /** `path` and `project`: the file's place in a project analysis, whose other files' functions calls may reach. */
  constructor(
    readonly parsed: ParsedSource,
    readonly lang: TaintLanguage,
    readonly path?: string,
    readonly project?: ProjectLookup,
  ) {
    this.functionTypes = PROFILES[parsed.language].functions;
    this.fields = new ClassFields(parsed, this.functionTypes);
    this.log = new FileFindings(parsed, lang, path, this.fields);
    this.units.push(parsed.root);
    const collect = (node: SyntaxNode): void => {
      for (const child of node.children) {
        if (child.named && this.functionTypes[child.type]) {
          this.units.push(child);
          // Kotlin's grammar names a function by its `simple_identifier` child, in no field.
          const name =
            child.children.find((c) => c.field === 'name') ??
            child.children.find((c) => c.type === 'simple_identifier') ??
            boundName(child);
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

  get findings(): Finding[] {
    return this.log.findings;
  }

  storeField(unit: SyntaxNode, field: string, taint: Taint): void {
    this.fields.storeField(unit, field, taint);
  }

  readField(unit: SyntaxNode, field: string): Taint | undefined {
    return this.fields.readField(unit, field);
  }

  fieldConstant(unit: SyntaxNode, field: string): { value: Const } | undefined {
    return this.fields.fieldConstant(unit, field);
  }

  /** Units that read a field before another method was seen storing input in it: to be walked again. */
  staleFieldReaders(): SyntaxNode[] {
    return this.fields.staleFieldReaders();
  }

  push(finding: Finding, key: string, probe?: Finding[]): void {
    this.log.push(finding, key, probe);
  }

  report(
    kind: TaintKind,
    at: SyntaxNode,
    sink: string,
    taint: Taint,
    sinkStep: TraceStep,
    unit?: SyntaxNode,
  ): void {
    const site = taint.weak && unit ? this.parameterOf(unit, taint) : undefined;
    if (site) {
      const { line, column } = locate(this.parsed, at);
      this.weakSites.set(`security/${kind}:${line}:${column}`, site);
    }
    this.log.report(kind, at, sink, taint, sinkStep);
  }

  reportConstantCondition(condition: SyntaxNode, truth: boolean, unit: SyntaxNode): void {
    this.log.reportConstantCondition(condition, truth, unit);
  }

  reportNullDereference(at: SyntaxNode, object: SyntaxNode, unit: SyntaxNode, probe?: Finding[]): void {
    this.log.reportNullDereference(at, object, unit, probe);
  }

  reportThrough(hit: Finding, call: SyntaxNode, method: string, probe?: Finding[]): void {
    this.log.reportThrough(hit, call, method, probe);
  }

  /**
   * Without a project, a finding from a parameter every call passes a constant goes (`fromConstantCallers`); then a
   * helper's finding a call proves reached by known input shadows the helper's own (reports.ts).
   */
  dropShadowed(): void {
    if (!this.project) this.log.filter((f) => !this.fromConstantCallers(f));
    this.log.dropShadowed();
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
    // Go's `func f(base, path string)` declares two parameters in one node (two `name` fields): each is a position
    // of its own. A destructuring pattern (`{ id, body }`) is one position, named by its first name.
    return params.flatMap((p) =>
      p.children.filter((c) => c.field === 'name').length > 1
        ? parameterNames(this.parsed.source, p)
        : [parameterNames(this.parsed.source, p)[0] ?? ''],
    );
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
}
