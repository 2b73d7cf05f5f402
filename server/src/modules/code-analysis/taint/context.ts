import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { cleartextRequest } from '../rules/cleartext-urls';
import { isRouteHandler, parameterNames, parametersOf } from './parameters';
import type { TaintProject } from './project';
import { TAINT_RULES } from './rules';
import { NAME_LIKE, norm } from './syntax';
import type { TaintKind, TaintLanguage } from './types';
import { type Const, type Taint, type TraceStep, unionTaint, type Val } from './values';
import type { WalkerBase } from './walk/base';
import { FlowWalker } from './walker';

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
}

/** Profile kinds of anonymous functions, which run in the scope they are written in. */
const CLOSURE_KINDS = new Set(['closure', 'lambda', 'arrow', 'block']);

const MAX_FINDINGS = 200;

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
  private readonly reported = new Set<string>();
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

  /** The class (or else the file) whose instances own `this.x` in a unit, and the field: the key of its taint. */
  private fieldKey(unit: SyntaxNode, field: string): string {
    let node: SyntaxNode | null = unit;
    while (node && !/class|object_declaration/.test(node.type)) node = node.parent;
    return `${node?.startIndex ?? -1}:${field.replace(/^(this|self)\.|^\$this->|^@/, '')}`;
  }

  /** `this.q = …` (`self.q`, `$this->q`, `@q`) with known input: every method of the class may read it. */
  storeField(unit: SyntaxNode, field: string, taint: Taint): void {
    if (!OWN_FIELD.test(field) || taint.weak) return;
    const key = this.fieldKey(unit, field);
    this.fieldTaint.set(key, unionTaint(this.fieldTaint.get(key), taint) as Taint);
  }

  /** What an own field read in a method may hold: what any method of the class stored in it. */
  readField(unit: SyntaxNode, field: string): Taint | undefined {
    if (!OWN_FIELD.test(field)) return undefined;
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
    if (/^new[A-Z]\w*\(/.test(callee) || /object_creation/.test(receiver.type)) return true;
    return (
      NAME_LIKE.test(receiver.type) && /^[A-Z]/.test(text) && this.parsed.source.includes(`class ${text}`)
    );
  }

  summaryOf(fn: SyntaxNode): Summary | undefined {
    if (this.summaries.has(fn)) return this.summaries.get(fn);
    if (this.computing.has(fn)) return undefined;
    this.computing.add(fn);
    const names = this.parameters(fn);
    const base = new FlowWalker(this, fn, false);
    base.run([]);
    const summary: Summary = {
      flows: [],
      sinks: [],
      safe: [],
      returnsSource: base.returned?.taint,
      constant: base.returned?.constant,
    };
    let safe: TaintKind[] | undefined;
    names.forEach((name, i) => {
      if (/^(self|cls)$/.test(name)) return;
      const marker: Taint = { origin: { text: `#${i}`, line: 0 }, steps: [] };
      const walker = new FlowWalker(this, fn, false);
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

  onReturn(walker: WalkerBase, unit: SyntaxNode, value: SyntaxNode, v: Val): void {
    const sink = this.lang.returnSink;
    if (!sink || !v.taint || !walker.reporting) return;
    if (!isRouteHandler(this.parsed, this.lang, unit)) return;
    if (sink.value && !sink.value.test(walker.nodeText(value))) return;
    if (sink.unless && /call|invocation/.test(value.type) && sink.unless.test(walker.shape(value).callee))
      return;
    walker.flag(sink.kind, value, 'the response body', v.taint);
  }

  checkValues(
    walker: WalkerBase,
    call: SyntaxNode,
    callee: string,
    typed: string | undefined,
    vals: Val[],
  ): void {
    if (!walker.reporting) return;
    for (const check of this.lang.valueChecks ?? []) {
      if (!check.callee.test(callee) && !(typed && check.callee.test(typed))) continue;
      const v = vals[check.arg]?.constant?.value;
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
      );
    }
  }

  /**
   * A client called with a cleartext URL held in a variable (`url = "http://…"; requests.post(url)`); a literal
   * written in the call is the rule `security/cleartext-request`'s.
   */
  checkCleartext(walker: WalkerBase, call: SyntaxNode, callee: string, vals: Val[]): void {
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
          confidence: 'high',
          message: `\`${callee.slice(0, 60)}\` sends the request in clear (${url.slice(0, 80)}): anyone on the path can read and change it; use https:// (wss://, SFTP/FTPS).`,
          ...locate(this.parsed, call),
          cwe: 'CWE-319',
        },
        `cleartext:${call.startIndex}`,
      );
      return;
    }
  }

  report(kind: TaintKind, at: SyntaxNode, sink: string, taint: Taint, sinkStep: TraceStep): void {
    const rule = TAINT_RULES[kind];
    // Steps in another file of a project name it.
    const where = (s: TraceStep) => (s.path !== undefined && s.path !== this.path ? `${s.path} ` : '');
    const through = taint.steps
      .filter((s) => !s.note.startsWith('source:'))
      .map((s) => `${s.note.replace(/ = …$/, '')} (${where(s)}line ${s.line})`)
      .slice(0, 4);
    const via = through.length > 0 ? ` through ${through.join(', ')}` : '';
    const sinkFile = sinkStep.path !== undefined && sinkStep.path !== this.path ? ` (${sinkStep.path})` : '';
    this.push(
      {
        rule_id: `security/${kind}`,
        category: 'security',
        severity: rule.severity,
        // A parameter of unknown origin built into a query or command: the caller may pass anything.
        confidence: taint.weak ? 'medium' : 'high',
        message: `${rule.title}: ${taint.weak ? 'a parameter' : 'untrusted input'} \`${taint.origin.text}\` (line ${taint.origin.line}) flows${via} into \`${sink.slice(0, 60)}\`${sinkFile} without sanitizing; ${rule.fix}.`,
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
    const key = (rule: string, line: number, column: number) => `${rule}:${line}:${column}`;
    const proven = new Set<string>();
    for (const f of this.findings) {
      const last = f.trace?.[f.trace.length - 1];
      if (f.confidence !== 'high' || !last || (last.path ?? this.path) !== this.path) continue;
      proven.add(key(f.rule_id, last.line, last.column));
    }
    if (proven.size === 0) return;
    const kept = this.findings.filter(
      (f) => f.confidence !== 'medium' || !proven.has(key(f.rule_id, f.line, f.column)),
    );
    this.findings.splice(0, this.findings.length, ...kept);
  }

  private push(finding: Finding, key: string): void {
    if (this.reported.has(key) || this.findings.length >= MAX_FINDINGS) return;
    this.reported.add(key);
    this.findings.push(finding);
  }
}
