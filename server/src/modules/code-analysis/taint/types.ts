import type { FindingSeverity } from '@tessera/shared';
import type { FlowSyntax } from './flow/types';

/** Where a value flowing to a sink must not come from unsanitised. */
export interface SinkSpec {
  /** The vulnerability, e.g. `sql-injection` (the rule id is `security/<kind>`). */
  kind: TaintKind;
  /** Normalised callee text (whitespace removed), e.g. `cursor.execute` or `os.system`. */
  callee: RegExp;
  /**
   * Which argument carries the dangerous value: an index, any argument, the receiver (`s.html_safe`), or the key
   * that picks the function called (`handlers[name](…)`, `new globalThis[name]()`: the input chooses what runs),
   * or only the keyword or hash-option arguments `keys` names (`options`).
   */
  arg: number | 'any' | 'receiver' | 'key' | 'options';
  /** Only when the whole call's text also matches (`shell=True`, no SafeLoader). */
  when?: RegExp;
  unless?: RegExp;
  /**
   * Only an argument list that runs a shell command line: its second item is `-c` (`/c`), as in `["sh", "-c", cmd]`;
   * `program`: the list follows the program, a call's first argument (`spawn("sh", ["-c", cmd])`), however the list
   * was filled (a literal, or `args.push(…)` item by item).
   */
  shellList?: boolean | 'program';
  /** Only when the enclosing function's text matches (a parser configured to resolve external entities). */
  whenInFunction?: RegExp;
  /** Not when the enclosing function's text matches (a response whose content type it sets to plain text). */
  unlessInFunction?: RegExp;
  /** Not when the file's text matches (a deserializer hardened where it is built, often a field or a constructor). */
  unlessInFile?: RegExp;
  /** Only when the file's text matches (a `find` is a MongoDB query only in a file that uses MongoDB). */
  whenInFile?: RegExp;
  /** Not when the call's parent expression matches (Kotlin's `File(x).name` reads only the file name). */
  unlessParent?: RegExp;
  /** Only arguments of these node types carry the danger (Ruby: a hash of conditions is bound, a string is not). */
  argTypes?: RegExp;
  /** Only this entry of a dict or map argument carries the danger (MongoDB's `{"$where": code}`). */
  entry?: string;
  /**
   * Keyword or hash-option arguments whose key matches carry the danger too, whatever `arg` says (Rails 2 finders:
   * `find(:all, :order => params[:sort])`, `calculate(:sum, :total, conditions: "…")`); other keys are bound values.
   */
  keys?: RegExp;
  /**
   * List arguments of these node types count by their first item only: the SQL template of `["name = ?", value]`,
   * whose other items are bound (`where([…])`, `find_by_sql([…])`, `:conditions => […]`).
   */
  listHead?: RegExp;
  /**
   * `false`: a value of unknown origin here is no audit finding, only input is (a program path in a variable,
   * `os.execv(path, args)`, is how such calls are written; Bandit rates it low, B606).
   */
  audit?: false;
  /** Only calls with at least this many arguments (a format string matters when values follow it). */
  minArgs?: number;
  /**
   * Only a value that is input as a whole: an object or list the code wrote (a collection model), some of whose
   * entries are input, binds those as values (a DynamoDB request with `ExpressionAttributeValues` from input).
   */
  wholeValue?: true;
  /** A function's parameter of unknown origin reaching this sink is reported too, at medium (`parameterSink`). */
  parameters?: true;
}

export type TaintKind =
  | 'sql-injection'
  | 'command-injection'
  | 'code-injection'
  | 'xss'
  | 'unsafe-deserialization'
  | 'path-traversal'
  | 'ssrf'
  | 'open-redirect'
  | 'ldap-injection'
  | 'xpath-injection'
  | 'trust-boundary'
  | 'xxe'
  | 'header-injection'
  | 'format-string'
  | 'log-injection'
  | 'smtp-injection'
  | 'reflection'
  | 'config-setting'
  | 'regex-injection'
  | 'nosql-injection'
  | 'prototype-pollution'
  | 'template-injection'
  | NumericKind;

/** Sinks of numbers (taint/numeric/): operators, indexes, casts, sizes and counts a number from input reaches. */
export type NumericKind =
  | 'integer-overflow'
  | 'integer-underflow'
  | 'divide-by-zero'
  | 'array-index'
  | 'numeric-truncation'
  | 'numeric-conversion'
  | 'unchecked-loop-condition'
  | 'resource-exhaustion'
  | 'uncontrolled-allocation';

/** A call whose argument's constant value makes it unsafe (a weak algorithm name), whatever its origin. */
export interface ValueCheck {
  rule: string;
  cwe: string;
  severity: FindingSeverity;
  callee: RegExp;
  arg: number;
  /** The constant value that is unsafe (case-insensitive match left to the pattern); numbers as their digits. */
  value: RegExp;
  /** What is wrong and how to fix it; `{value}` is replaced by the value. */
  message: string;
}

/**
 * Where an assignment's target or value sits: a field name, `*first` / `*last` (the first / last named child), or
 * `type:<node type>` (the first child of that type), for grammars without field names (Kotlin).
 */
export type ChildSelector = string;

/** Parameters that carry untrusted data into a function. */
export interface ParameterSource {
  /** The parameter's name. */
  name?: RegExp;
  /** The parameter's whole text (annotations, type): `@RequestParam`, `web::Query<…>`. */
  text?: RegExp;
  /** Only in functions with this name (`main` for `args`). */
  function?: RegExp;
  /** Only in functions whose decorators or annotations match (`@mcp.tool()`: a tool a model calls). */
  decorator?: RegExp;
}

/** Functions that are HTTP handlers: all their parameters but the request object are untrusted (URL captures). */
export interface HandlerSpec {
  /** Text of the decorators or annotations before the function (`@app.route(...)`). */
  decorator?: RegExp;
  /** The first parameter's name marks a handler (Django views take `request` first). */
  firstParameter?: RegExp;
  /**
   * Methods of a class whose header (up to its body) matches `header` are handlers when their own header (up to the
   * parameters) matches `method`: ASP.NET MVC binds every parameter of a controller's public action.
   */
  enclosingClass?: { header: RegExp; method: RegExp };
  /**
   * A function whose body (its value, up to the first line break) matches is a handler wherever it is declared:
   * Play's `def show(id: String) = Action { … }` is a controller action, its parameters bound from the routes file.
   */
  body?: RegExp;
}

export interface TaintLanguage {
  /** Set under the `all` threat model (taintCatalogue): every value the program did not choose is suspect. */
  everyInput?: boolean;
  /** Assignment-like nodes; `keeps`: compound assignments (`+=`) that never clear the target's taint. */
  assignments: { type: string; target: ChildSelector; value: ChildSelector; keeps?: boolean }[];
  /** Call-like node types; the callee is the text before the arguments. */
  calls: string[];
  /** Nodes wrapping one argument (`value_argument`): the argument is their `value` field or last named child. */
  argumentWrappers?: string[];
  /** A URL built with input as its host is reported where it is assigned (walk/url-host.ts). */
  urlHosts?: true;
  /** Property assignments that are sinks (`el.innerHTML = x`); `valueTypes`: only values of these node types. */
  /** `parameters`: a function's parameter of unknown origin reaching it is reported too (medium; `parameterSink`). */
  propertySinks?: { target: RegExp; kind: TaintKind; valueTypes?: RegExp; parameters?: true }[];
  /** Object properties whose value is a sink (JSX `{ __html: x }`): nodes of `type` with `key` and `value` fields. */
  keySinks?: { type: string; key: RegExp; kind: TaintKind }[];
  /** Operators that read input into their right operand (C++ `std::cin >> name`). */
  extractions?: { type: string; source: RegExp }[];
  /**
   * Declarations that construct an object from arguments (C++ `std::ifstream in(path);`, which the grammar may
   * read as a function declarator): node type, its type field; the type is the callee for `sinks`.
   */
  constructorDeclarations?: string[];
  /** Macro arguments are token trees (Rust): a sanitiser's parenthesised group in them is clean. */
  tokenTrees?: boolean;
  /** Expressions (member paths, identifiers) that are untrusted, matched on normalised text. */
  sources: RegExp[];
  /** Further node types whose text is matched against `sources` (Bash's `$1`, `${QUERY_STRING}`). */
  sourceNodes?: string[];
  /** Calls whose result is untrusted (`input()`, `os.getenv`). */
  sourceCalls: RegExp[];
  /**
   * Input that is untrusted only under the `all` threat model (files, sockets, database rows, properties, HTTP
   * client responses, and environment or command line where `sources` do not list them already).
   */
  localInput?: LocalInput;
  /** Calls whose result is safe whatever goes in. */
  sanitizers: RegExp[];
  sinks: SinkSpec[];
  /** Calls that write their other arguments into one of them (C's sprintf/strcpy): taint flows into that one. */
  propagators?: { callee: RegExp; into: number }[];
  /** Calls that store untrusted input into their arguments (Bash `read line`, Rust `read_line(&mut buf)`). */
  sourceArguments?: { callee: RegExp; into: number | 'all'; when?: RegExp }[];
  /**
   * Member accesses that run their receiver (Scala's `cmd.!`): a node of `type` whose `member` field matches, with
   * the receiver in the `receiver` field.
   */
  /** `unless`: receivers whose text makes the member harmless (an argument vector that starts with no shell). */
  memberSinks?: {
    type: string;
    member: string;
    receiver: string;
    name: RegExp;
    kind: TaintKind;
    unless?: RegExp;
  }[];
  /** Member accesses whose value is safe whatever the receiver (Scala's `s.toInt`), on the normalised text. */
  cleanMembers?: { types: string[]; pattern: RegExp }[];
  /** Node types of parameter declarations, inside the function's parameter list. */
  parameterTypes?: string[];
  parameterSources?: ParameterSource[];
  /**
   * Functions passed to a call whose callee matches are entry points: the listed parameters (by position) are
   * untrusted. An MCP server's tool handler (`server.tool("fetch", schema, async ({ url }) => …)`) is
   * given what a model asked for, which a prompt injection can choose.
   */
  callbackSources?: { callee: RegExp; parameters: number[] }[];
  /** Parameters whose declared type makes them harmless whatever their name (`id: int`, `@PathVariable long id`). */
  safeParameter?: RegExp;
  handler?: HandlerSpec;
  /** Control flow, constants and collections: with it, branches are joined and constant conditions decide. */
  flow?: FlowSyntax;
  /** Callees are compared without their package prefix (`java.io.File` reads `File`). */
  qualifiedNames?: boolean;
  /**
   * Sanitisers that make a value safe for some sinks only (an HTML encoder for XSS, not for SQL); `when` must match
   * the call's text (`str_replace(["\r", "\n"], …)` removes line breaks, not any `str_replace`).
   */
  kindSanitizers?: { callee: RegExp; kinds: TaintKind[]; when?: RegExp }[];
  valueChecks?: ValueCheck[];
  /**
   * Calls that bind values into a template (Rails `sanitize_sql_array(["name = ?", name])`): the result is safe for
   * `kinds` except for what the template carries, the first argument or, when it is a list of `list` node types,
   * that list's first item.
   */
  templateSanitizers?: { callee: RegExp; kinds: TaintKind[]; list: RegExp }[];
  /**
   * What a route handler returns is the response body: a sink unless the returned call is one of `unless`; with
   * `value`, only a returned expression whose text matches (Spring's `"redirect:" + url` view name).
   */
  returnSink?: ReturnSink | ReturnSink[];
}

export interface ReturnSink {
  kind: TaintKind;
  unless?: RegExp;
  value?: RegExp;
  /**
   * Only in handlers whose annotations (the function's and its class's) or returned expression match: Spring writes a
   * returned String as the body under `@ResponseBody`/`@RestController` or in a `ResponseEntity`, and otherwise reads
   * it as a view name.
   */
  scope?: RegExp;
  /** Not in handlers whose annotations match (`produces = "application/json"`). */
  scopeUnless?: RegExp;
}

/** The sources a threat model adds to a catalogue, in the shapes of the catalogue's own. */
export interface LocalInput {
  sources?: RegExp[];
  sourceCalls?: RegExp[];
  sourceArguments?: { callee: RegExp; into: number | 'all'; when?: RegExp }[];
}

export interface TaintRuleMeta {
  cwe: string;
  severity: FindingSeverity;
  title: string;
  fix: string;
}
