import type { Finding } from '@tessera/shared';
import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax } from '../flow/types';
import { norm } from '../syntax';
import type { TaintKind, TaintLanguage } from '../types';
import {
  auditTaint,
  built,
  CLEAN,
  type Const,
  confidenceAt,
  Env,
  markSafe,
  type Taint,
  type TraceStep,
  unionTaint,
  type Val,
} from '../values';
import type { WalkHost } from './host';
import { MAX_SINK_HITS, type SinkHit, STRING_BUILDING } from './shared';

/**
 * The explicit state of one function's walk, and what every node handler uses: the abstract state (`env`), what the
 * function returns, the sinks reached, positions and trace steps, reporting, and what guards read and mark. Handlers
 * are functions of (state, node); the state knows nothing of them.
 */
export class WalkState {
  env = new Env();
  /** What the function returns, joined over its return statements. */
  returned: Val | undefined;
  /** The value of the last node `explore` ran (an `if` expression's arm). */
  explored: Val = CLEAN;
  /** Sinks reached when not reporting. */
  readonly sinkHits: SinkHit[] = [];
  /**
   * Set when the walk probes a function for what a constant argument does in it (context.ts `probe`): findings
   * about constants (null dereferences, value checks) are collected here instead of reported.
   */
  probe: Finding[] | undefined;
  /** How many closures deep the walk is: a closure's `return` is not the function's. */
  closures = 0;
  readonly lang: TaintLanguage;
  readonly flow: FlowSyntax | undefined;
  readonly source: string;

  constructor(
    readonly ctx: WalkHost,
    readonly unit: SyntaxNode,
    readonly reporting: boolean,
    /** The walk's dispatch of a node to its kind's handlers (dispatch.ts), given by whoever starts the walk. */
    private readonly dispatch: (s: WalkState, node: SyntaxNode) => Val,
  ) {
    this.lang = ctx.lang;
    this.flow = ctx.lang.flow;
    this.source = ctx.parsed.source;
  }

  run(parameters: [string, Taint][]): void {
    for (const [name, taint] of parameters) this.env.vars.set(name, taint);
    this.walkUnit();
  }

  /** Walks the function with these parameters holding these values (a constant a call passes). */
  runWith(parameters: [string, Val][]): void {
    for (const [name, val] of parameters) this.env.set(name, val);
    this.walkUnit();
  }

  /**
   * The unit's children in order; a body that is an expression (`(a, b) => a + b`, Python's lambda, Kotlin's
   * `fun url(…) = "$base/$path"`) is what the function returns, as a `return` of it would be.
   */
  private walkUnit(): void {
    for (const child of this.unit.children) {
      const body = expressionBody(this.unit, child);
      const v = this.evaluate(body ?? child);
      if (body && this.returned === undefined) this.returned = v;
    }
  }

  text(node: SyntaxNode): string {
    return norm(this.source, node);
  }

  step(node: SyntaxNode, note: string): TraceStep {
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

  newTaint(node: SyntaxNode, text: string): Taint {
    const origin = { text: text.slice(0, 60), line: node.startRow + 1 };
    return { origin, steps: [this.step(node, `source: ${text}`)] };
  }

  evaluateChildren(node: SyntaxNode): Val {
    let taint: Taint | undefined;
    for (const child of node.children) {
      if (!child.named) continue;
      taint = unionTaint(taint, this.evaluate(child).taint);
    }
    if (taint && STRING_BUILDING.test(node.type)) taint = built(taint);
    return taint ? { taint } : CLEAN;
  }

  /**
   * Text built at `node` from parts of which some are of unknown origin (neither constant nor tainted) and some
   * constant text: the audit taint of a query or command assembled from values nobody proved safe or unsafe.
   */
  auditOf(node: SyntaxNode, parts: readonly Val[]): Taint | undefined {
    if (!parts.some((p) => typeof p.constant?.value === 'string')) return undefined;
    if (!parts.some((p) => (!p.taint || p.taint.numeric) && !p.constant)) return undefined;
    const text = this.text(node);
    return auditTaint(
      { text: text.slice(0, 60), line: node.startRow + 1 },
      this.step(node, `built from values of unknown origin: ${text}`),
    );
  }

  flag(kind: TaintKind, at: SyntaxNode, sink: string, taint: Taint, sinkStep?: TraceStep): void {
    if (!confidenceAt(taint, kind, this.lang.everyInput === true)) return;
    const step = sinkStep ?? this.step(at, `sink: ${sink}`);
    if (this.reporting) this.ctx.report(kind, at, sink, taint, step, this.unit);
    else if (this.sinkHits.length < MAX_SINK_HITS) this.sinkHits.push({ kind, sink, taint, sinkStep: step });
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

  /** The text of the function being walked. */
  unitText(): string {
    return this.source.slice(this.unit.startIndex, this.unit.endIndex);
  }

  nodeText(node: SyntaxNode): string {
    return this.text(node);
  }

  /** The name a parsed URL came from, for a guard on `url.netloc` / `url.getHost()`. */
  parsedSource(object: SyntaxNode): string | undefined {
    return this.env.parsedFrom.get(this.text(object));
  }

  /** Evaluates an expression or runs a statement, in order, updating the state; returns the value. */
  evaluate(node: SyntaxNode): Val {
    return this.dispatch(this, node);
  }
}

/** The expression a function's body is, when it is one (not a block of statements). */
function expressionBody(unit: SyntaxNode, child: SyntaxNode): SyntaxNode | undefined {
  if (unit.parent === null) return undefined;
  // Kotlin: `function_body` holding `= expression`.
  if (child.type === 'function_body')
    return child.children[0]?.type === '=' ? child.children.find((c) => c.named) : undefined;
  if (child.field !== 'body') return undefined;
  return /block|statement|compound|body|declaration_list|suite|^do$/.test(child.type) ? undefined : child;
}
