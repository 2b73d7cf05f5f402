/** Helpers the handlers of the dataflow walk share: child selectors, value joins, collection reads. */
import type { SyntaxNode } from '../../parsing/tree';
import type { TaintKind } from '../types';
import { CLEAN, type Const, type Taint, type TraceStep, unionTaint, type Val } from '../values';

export const PATH_LIKE =
  /identifier|member|attribute|subscript|field_access|field_expression|selector|variable_name|element_reference|scoped|call|invocation|index|^name$/;
export const ARGUMENT_LISTS = /^(arguments|argument_list|value_arguments)$/;
export const IS_CALL = /call|invocation/;
/** Nodes that build a string from their parts: concatenation, interpolation, templates, format macros. */
export const STRING_BUILDING =
  /binary|concatenat|interpolat|template|string|encapsed|macro_invocation|token_tree|heredoc|f_string|format/;
/** Operators that join text: `+`, Python's `%` formatting, PHP's `.`, Lua's `..`, C++ and Ruby's `<<`. */
export const CONCATENATING = /^(\+|%|\.|\.\.|<<)$/;
/**
 * What a format string whose every conversion is numeric (`%d`, `%5.2f`, `%x`; not `%s`, `%v`, `%c`) makes safe:
 * a number cannot close a quote or start a command, whatever value the caller passes (a string fails to format).
 */
export function numericFormatSafeFor(format: string): readonly TaintKind[] {
  const specs = [...format.matchAll(/%(%|[-+ #0]*(\d+|\*)?(\.(\d+|\*))?[hlLqjzt]*([a-zA-Z]))/g)].filter(
    (m) => m[1] !== '%',
  );
  if (specs.length === 0 || !specs.every((m) => /^[dioxXeEfFgGbu]$/.test(m[5] ?? ''))) return [];
  return ['sql-injection', 'command-injection', 'code-injection', 'ldap-injection', 'xpath-injection', 'xss'];
}

/** Calls that build a string from their arguments. */
export const FORMATTERS =
  /^(format|Format|sprintf|Sprintf|Sprint|Sprintln|snprintf|join|Join|concat|Concat|f)$/;
export const URL_PARSERS =
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
export function selectAll(node: SyntaxNode, selector: string): SyntaxNode[] {
  if (/^(\*|type:|after:)/.test(selector)) {
    const one = select(node, selector);
    return one ? [one] : [];
  }
  return node.children.filter((c) => c.field === selector);
}

export const field = (node: SyntaxNode, name: string) => node.children.find((c) => c.field === name);
export const namedChildren = (node: SyntaxNode) =>
  node.children.filter((c) => c.named && !/comment/.test(c.type));

/** Java's package prefixes (`java.io.File` → `File`, `org.x.ESAPI.encoder()` → `ESAPI.encoder()`). */
export const PACKAGE_PREFIX = /^(new)?(?:[a-z_][a-z0-9_]*\.)+(?=[A-Z])/;

/** A sink reached while summarising a function: the summary keeps those its parameters reach (context.ts). */
export interface SinkHit {
  kind: TaintKind;
  sink: string;
  taint: Taint;
  sinkStep: TraceStep;
}

export const MAX_SINK_HITS = 32;

export interface CallShape {
  callee: string;
  args: SyntaxNode[];
  argsNode: SyntaxNode | undefined;
}

export function joinVals(a: Val, b: Val): Val {
  const out: Val = {};
  const taint = unionTaint(a.taint, b.taint);
  if (taint) out.taint = taint;
  if (a.constant && b.constant && a.constant.value === b.constant.value) out.constant = a.constant;
  return out;
}

/** Reads one entry of a modelled collection; an unknown key reads everything that may be there. */
export function readEntry(v: Val, key: Const | undefined, isIndex = false): Val {
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
export function isShellCommandLine(texts: (string | undefined)[] | undefined): boolean {
  const [program, flag] = texts ?? [];
  return (
    /^(-c|\/c|\/C)$/.test(flag ?? '') &&
    (program === undefined ||
      /(^|[/\\])(sh|bash|zsh|dash|ksh|ash|cmd|cmd\.exe|powershell|pwsh)$/i.test(program))
  );
}
