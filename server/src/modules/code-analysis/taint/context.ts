import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { isRouteHandler, parameterNames, parametersOf } from './parameters';
import { TAINT_RULES } from './rules';
import { NAME_LIKE, norm } from './syntax';
import type { TaintKind, TaintLanguage } from './types';
import type { Const, Taint, TraceStep, Val } from './values';
import { FlowWalker } from './walker';

/** What a function of the file does with its arguments: which reach its return value, and what it returns. */
export interface Summary {
  flows: boolean[];
  /** Kinds a sanitiser inside made the returned value safe for. */
  safe: TaintKind[];
  /** Untrusted data the function reads itself and returns. */
  returnsSource: Taint | undefined;
  constant: { value: Const } | undefined;
  /** Sinks a parameter reaches inside the function unsanitised, with the steps from the parameter to the sink. */
  sinks: {
    parameter: number;
    kind: TaintKind;
    at: SyntaxNode;
    sink: string;
    steps: TraceStep[];
    /** The parameter was built into a string on its way (which a parameter of unknown origin needs). */
    built: boolean;
  }[];
}

/** Profile kinds of anonymous functions, which run in the scope they are written in. */
const CLOSURE_KINDS = new Set(['closure', 'lambda', 'arrow', 'block']);

const MAX_FINDINGS = 200;

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

  constructor(
    readonly parsed: ParsedSource,
    readonly lang: TaintLanguage,
  ) {
    this.functionTypes = PROFILES[parsed.language].functions;
    this.units.push(parsed.root);
    const collect = (node: SyntaxNode): void => {
      for (const child of node.children) {
        if (child.named && this.functionTypes[child.type]) {
          this.units.push(child);
          const name = child.children.find((c) => c.field === 'name');
          if (name) {
            const key = norm(parsed.source, name);
            this.functions.set(key, [...(this.functions.get(key) ?? []), child]);
          }
        }
        collect(child);
      }
    };
    collect(parsed.root);
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
  ): Summary | undefined {
    const candidates = this.functions.get(method);
    if (!candidates) return undefined;
    if (receiver && !this.ownReceiver(receiver, callee)) return undefined;
    const fn = candidates.find((f) => {
      const params = this.parameters(f).filter((p) => !/^(self|cls)$/.test(p));
      return params.length === arity;
    });
    return fn ? this.summaryOf(fn) : undefined;
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
      safe: [],
      returnsSource: base.returned?.taint,
      constant: base.returned?.constant,
      sinks: [],
    };
    let safe: TaintKind[] | undefined;
    names.forEach((name, i) => {
      if (/^(self|cls)$/.test(name)) return;
      const marker: Taint = { origin: { text: `#${i}`, line: 0 }, steps: [] };
      const walker = new FlowWalker(this, fn, false);
      walker.run([[name, marker]]);
      const t = walker.returned?.taint;
      const flows = t?.origin.text === `#${i}`;
      summary.flows.push(flows);
      for (const hit of walker.sinkHits) {
        if (hit.taint.origin.text !== `#${i}`) continue;
        summary.sinks.push({
          parameter: summary.flows.length - 1,
          kind: hit.kind,
          at: hit.at,
          sink: hit.sink,
          steps: hit.taint.steps,
          built: hit.taint.built === true,
        });
      }
      if (flows) safe = safe ? safe.filter((k) => t?.safe?.includes(k)) : [...(t?.safe ?? [])];
    });
    summary.safe = safe ?? [];
    this.computing.delete(fn);
    this.summaries.set(fn, summary);
    return summary;
  }

  onReturn(walker: FlowWalker, unit: SyntaxNode, value: SyntaxNode, v: Val): void {
    const sink = this.lang.returnSink;
    if (!sink || !v.taint || !walker.reporting) return;
    if (!isRouteHandler(this.parsed, this.lang, unit)) return;
    if (sink.value && !sink.value.test(walker.nodeText(value))) return;
    if (sink.unless && /call|invocation/.test(value.type) && sink.unless.test(walker.shape(value).callee))
      return;
    walker.flag(sink.kind, value, 'the response body', v.taint);
  }

  checkValues(
    walker: FlowWalker,
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

  report(kind: TaintKind, at: SyntaxNode, sink: string, taint: Taint, sinkStep: TraceStep): void {
    const rule = TAINT_RULES[kind];
    const through = taint.steps
      .filter((s) => !s.note.startsWith('source:'))
      .map((s) => `${s.note.replace(/ = …$/, '')} (line ${s.line})`)
      .slice(0, 4);
    const via = through.length > 0 ? ` through ${through.join(', ')}` : '';
    this.push(
      {
        rule_id: `security/${kind}`,
        category: 'security',
        severity: rule.severity,
        // A parameter of unknown origin built into a query or command: the caller may pass anything.
        confidence: taint.weak ? 'medium' : 'high',
        message: `${rule.title}: ${taint.weak ? 'a parameter' : 'untrusted input'} \`${taint.origin.text}\` (line ${taint.origin.line}) flows${via} into \`${sink.slice(0, 60)}\` without sanitizing; ${rule.fix}.`,
        ...locate(this.parsed, at),
        cwe: rule.cwe,
        trace: [...taint.steps, sinkStep],
      },
      `${kind}:${at.startIndex}`,
    );
  }

  private push(finding: Finding, key: string): void {
    if (this.reported.has(key) || this.findings.length >= MAX_FINDINGS) return;
    this.reported.add(key);
    this.findings.push(finding);
  }
}
