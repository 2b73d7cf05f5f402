/**
 * What a walk needs of the file it walks in (context.ts's `FileContext` is it): the parsed file and its catalogue,
 * its functions and their summaries, the fields its classes share, and where findings go. The walk knows the file
 * only through this, so that the file can make walks of its functions (for their summaries) without an import
 * cycle between them.
 */
import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import type { Range } from '../numeric/ranges';
import type { TaintKind, TaintLanguage } from '../types';
import type { Const, Taint, TraceStep, Val } from '../values';

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

/** The file a summarised function belongs to: calls note what they pass it, and probe it with constants. */
export interface SummaryOwner {
  noteCall(fn: SyntaxNode, args: (Taint | undefined)[], caller: WalkHost, unit: SyntaxNode): void;
  probe(fn: SyntaxNode, index: number, value: Val): Finding[];
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
  owner: SummaryOwner;
}

export interface WalkHost {
  readonly parsed: ParsedSource;
  readonly lang: TaintLanguage;
  /** The file's path in a project analysis (trace steps name it). */
  readonly path?: string;
  readonly project?: { constructedType(callee: string): string | undefined };
  /** Declared types of the classes' fields (`this.x` and `x`). */
  readonly fieldTypes: Map<string, string>;
  readonly parameterContainers: string[];
  isFunction(node: SyntaxNode): boolean;
  isClosure(node: SyntaxNode): boolean;
  parameters(unit: SyntaxNode): string[];
  summaryFor(
    callee: string,
    method: string,
    arity: number,
    receiver: SyntaxNode | undefined,
    receiverType: string | undefined,
  ): Summary | undefined;
  storeField(unit: SyntaxNode, field: string, taint: Taint): void;
  readField(unit: SyntaxNode, field: string): Taint | undefined;
  fieldConstant(unit: SyntaxNode, field: string): { value: Const } | undefined;
  /** A finding of its own (a value check, a cleartext URL), once per key; into `probe` when probing. */
  push(finding: Finding, key: string, probe?: Finding[]): void;
  report(
    kind: TaintKind,
    at: SyntaxNode,
    sink: string,
    taint: Taint,
    sinkStep: TraceStep,
    unit?: SyntaxNode,
  ): void;
  reportConstantCondition(condition: SyntaxNode, truth: boolean, unit: SyntaxNode): void;
  reportNullDereference(at: SyntaxNode, object: SyntaxNode, unit: SyntaxNode, probe?: Finding[]): void;
  reportThrough(hit: Finding, call: SyntaxNode, method: string, probe?: Finding[]): void;
}
