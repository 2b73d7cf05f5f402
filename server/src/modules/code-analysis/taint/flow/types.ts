import type { SyntaxNode } from '../../parsing/tree';

/** One arm of a switch or match: its labels (constant expressions, patterns) or `default`, and its statements. */
export interface SwitchArm {
  labels: SyntaxNode[] | 'default';
  body: SyntaxNode[];
  /** The arm ends in `break` (or cannot fall through at all). */
  ends: boolean;
}

/**
 * An `if`: where its condition, consequence and alternative(s) are (selectors: a field, `*first`/`*last`,
 * `type:<node type>`, `after:<keyword>` for the first named child after a keyword); `negate`: `unless`.
 */
export interface BranchSpec {
  condition: string;
  consequence: string;
  alternative: string;
  negate?: boolean;
}

/**
 * How one language spells control flow, constants and collections: the adapter through which the shared dataflow
 * (walker.ts) reads a tree-sitter tree. Node types and field names; `*first`/`*last` and positional children where
 * a grammar has no fields.
 */
export interface FlowSyntax {
  /** `if` and `else if` nodes: their condition, consequence, and the field holding the alternative(s). */
  branches: Record<string, BranchSpec>;
  /** Else clauses holding a plain body (Python's `else_clause`). */
  elses?: Record<string, string>;
  /** Conditional expressions; `positional`: consequence, condition, alternative as named children (Python). */
  ternaries: Record<string, { condition: string; consequence: string; alternative: string } | 'positional'>;
  /** Switch/match statements: the subject's field and the arms. */
  switches: Record<string, { subject: string; arms: (node: SyntaxNode) => SwitchArm[] }>;
  /** Loops with a condition (absent for C-style `for`), and their body. */
  loops: Record<string, { condition?: string; body: string }>;
  /** For-each loops: the variable(s) take the iterable's elements. */
  foreach: Record<string, { target: string; iterable: string; body: string }>;
  /** Try statements: the body, the handler clauses (run from the body's state), the finally clause. */
  tries: Record<string, { body: string; handlers: string[]; finalizer: string }>;
  returns: string[];
  /** Jumps whose first keyword says which they are (Kotlin's `jump_expression`: `return x`, `throw e`). */
  jumps?: string[];
  /** Statements that end the path (throw, raise). */
  exits: string[];
  /** `break`: ends a switch arm (loops treat it as going on: the state it leaves meets the loop's exit). */
  breaks: string[];
  literals: {
    strings: string[];
    /** Children of a string literal that hold its text, and those that interpolate an expression. */
    stringParts: string[];
    interpolations: string[];
    /** String literals that are a single token (Scala): the text between the quotes. */
    leafStrings?: string[];
    /** Expressions that sit in a string as themselves (PHP's `"$id"`, Kotlin's `$id`). */
    interpolatedValues?: string[];
    numbers: string[];
    chars: string[];
    trues: string[];
    falses: string[];
    nulls: string[];
    /** Literals of either truth value, read from their text (`boolean_literal`). */
    booleans?: string[];
  };
  /** Binary operators with `left`, `operator`, `right` fields. */
  binaries: string[];
  /** Chained comparisons whose operators are in an `operators` field (Python). */
  comparisons: string[];
  /** Unary operators: the node type and the operand's field; `not`/`!` negate. */
  unaries: Record<string, string>;
  parens: string[];
  /** Lists on both sides of an assignment (Go's `a, b := x, y`): pairwise; a list of one is its item. */
  tuples?: string[];
  /** Casts, and the field holding the cast value. */
  casts: Record<string, string>;
  /** Subscripts: `a[i]`, with the object's and the index's fields. */
  subscripts: Record<string, { object: string; index: string }>;
  /** List/array/tuple literals (items by position) and dictionary literals (pairs with key and value fields). */
  lists: string[];
  dicts: Record<string, { pair: string; key: string; value: string }>;
  /** A dictionary literal is tainted by what it holds (JavaScript's options objects), not only its entries. */
  dictsCarry?: boolean;
  /**
   * Methods that return their receiver's text with the arguments' joined to it (`s.concat(x)`, Kotlin's
   * `s.plus(x)`, Swift's `s.appending(x)`); `inPlace`: they write into the receiver as well (Ruby's String#concat and
   * #prepend, Rust's `push_str`), where in JS, Java or Scala the receiver is left as it was.
   */
  concat: { methods: RegExp; inPlace: boolean };
  /** Callees that make an empty collection (`new HashMap<>()`, `dict()`). */
  newCollection: RegExp;
  /** Declarations with a declared type: the type's field and the declarators' name field (Java). */
  typedDeclarations: Record<string, { type: string; declarator: string; name: string }>;
  /** A call's receiver (the object of `a.b()`), for the models of collections, builders and typed callees. */
  receiver: (call: SyntaxNode) => SyntaxNode | undefined;
  /** The node naming a call's method or function (`getParameter` in `request.getParameter(…)`). */
  method: (call: SyntaxNode) => SyntaxNode | undefined;
}
