import type { FindingSeverity } from '@tessera/shared';

/** Where a value flowing to a sink must not come from unsanitised. */
export interface SinkSpec {
  /** The vulnerability, e.g. `sql-injection` (the rule id is `security/<kind>`). */
  kind: TaintKind;
  /** Normalised callee text (whitespace removed), e.g. `cursor.execute` or `os.system`. */
  callee: RegExp;
  /** Which argument carries the dangerous value: an index, or any argument. */
  arg: number | 'any';
  /** Only when the whole call's text also matches (`shell=True`, no SafeLoader). */
  when?: RegExp;
  unless?: RegExp;
  /** Only arguments of these node types carry the danger (Ruby: a hash of conditions is bound, a string is not). */
  argTypes?: RegExp;
}

export type TaintKind =
  | 'sql-injection'
  | 'command-injection'
  | 'code-injection'
  | 'xss'
  | 'unsafe-deserialization'
  | 'path-traversal'
  | 'ssrf'
  | 'open-redirect';

export interface TaintLanguage {
  /** Assignment-like nodes: the target and value fields (`*last`: the last named child). */
  assignments: { type: string; target: string; value: string }[];
  /** Call-like node types; the callee is the text before the arguments. */
  calls: string[];
  /** Property assignments that are sinks (`el.innerHTML = x`). */
  propertySinks?: { target: RegExp; kind: TaintKind }[];
  /** Expressions (member paths, identifiers) that are untrusted, matched on normalised text. */
  sources: RegExp[];
  /** Calls whose result is untrusted (`input()`, `os.getenv`). */
  sourceCalls: RegExp[];
  /** Calls whose result is safe whatever goes in. */
  sanitizers: RegExp[];
  sinks: SinkSpec[];
  /** Calls that write their other arguments into one of them (C's sprintf/strcpy): taint flows into that one. */
  propagators?: { callee: RegExp; into: number }[];
}

export interface TaintRuleMeta {
  cwe: string;
  severity: FindingSeverity;
  title: string;
  fix: string;
}
