/**
 * The walk's handler table, as an ordered list of rules. Each rule looks at a node type of a language (its
 * catalogue and flow syntax) and, where it applies, gives that type's handler: a function of (state, node) that
 * returns the node's value, or undefined to let the next rule's handler (and finally the name read or the children)
 * run. The order is the precedence: of the rules that claim a type, the first whose handler answers gives the value
 * (a declaration records its types and is then walked as an assignment). A language walks a new node kind by data its
 * flow syntax already reads, or by a rule added here; no class to extend.
 */
import type { SyntaxNode } from '../../parsing/tree';
import type { FlowSyntax } from '../flow/types';
import type { TaintLanguage } from '../types';
import { CLEAN, type Val } from '../values';
import { assignStatement, streamExtraction } from './assign';
import { branch, ternaryExpression } from './branches';
import { evaluateCall } from './calls';
import { dictLiteral, listLiteral, subscriptRead } from './containers';
import { constructorDeclaration, declareTypes } from './declarations';
import { exitStatement, returnStatement, throwStatement } from './jumps';
import { booleanLiteral, charLiteral, leafString, numberLiteral, stringLiteral } from './literals';
import { foreachStatement, loopStatement } from './loops';
import { macroInvocation, tokenTree } from './macros';
import { binaryOperation, castExpression, comparisonChain, unaryOperation } from './operators';
import { namedChildren, select } from './shared';
import { checkKeySink, checkMemberSink } from './sinks';
import type { WalkState } from './state';
import { switchOn } from './switches';
import { tryStatement } from './tries';

/** A node kind's handler: the node's value, or undefined to pass the node on. */
export type NodeHandler = (s: WalkState, node: SyntaxNode) => Val | undefined;

/** A rule of the table: the handler it gives nodes of `type` in this language, or none. */
export type HandlerRule = (
  type: string,
  lang: TaintLanguage,
  flow: FlowSyntax | undefined,
) => NodeHandler | undefined;

/** A rule that reads the language's flow syntax (languages without one have none of these node kinds). */
const withFlow =
  (rule: (type: string, flow: FlowSyntax, lang: TaintLanguage) => NodeHandler | undefined): HandlerRule =>
  (type, lang, flow) =>
    flow ? rule(type, flow, lang) : undefined;

/** A constant value whatever the node holds. */
const constant = (value: boolean | null): NodeHandler => {
  const v: Val = { constant: { value } };
  return () => v;
};

/** The one named child's value (a parenthesised expression, a tuple of one). */
const inner: NodeHandler = (s, node) => {
  const only = namedChildren(node)[0];
  return only ? s.evaluate(only) : CLEAN;
};

export const HANDLER_RULES: readonly HandlerRule[] = [
  // Members the catalogue knows hold nothing from outside (`request.method`).
  (type, lang) =>
    lang.cleanMembers?.some((c) => c.types.includes(type))
      ? (s, node) => {
          for (const clean of s.lang.cleanMembers ?? [])
            if (clean.types.includes(node.type) && clean.pattern.test(s.text(node))) return CLEAN;
          return undefined;
        }
      : undefined,
  (type, lang) => {
    const extraction = lang.extractions?.find((e) => e.type === type);
    return extraction ? (s, node) => streamExtraction(s, node, extraction.source) : undefined;
  },
  // Control flow.
  withFlow((type, flow) => (flow.branches[type] ? (s, node) => branch(s, flow, node) : undefined)),
  withFlow((type, flow) => {
    const body = flow.elses?.[type];
    if (!body) return undefined;
    return (s, node) => {
      const b = select(node, body);
      return b ? s.evaluate(b) : CLEAN;
    };
  }),
  withFlow((type, flow) => {
    const spec = flow.ternaries[type];
    return spec ? (s, node) => ternaryExpression(s, node, spec) : undefined;
  }),
  withFlow((type, flow) => (flow.switches[type] ? (s, node) => switchOn(s, flow, node) : undefined)),
  withFlow((type, flow) => (flow.loops[type] ? (s, node) => loopStatement(s, flow, node) : undefined)),
  withFlow((type, flow) => (flow.foreach[type] ? (s, node) => foreachStatement(s, flow, node) : undefined)),
  withFlow((type, flow) => (flow.tries[type] ? (s, node) => tryStatement(s, flow, node) : undefined)),
  // A jump statement is a `throw` or a `return` by its keyword (Kotlin's `jump_expression`).
  withFlow((type, flow) =>
    flow.jumps?.includes(type)
      ? (s, node) => {
          const keyword = node.children[0]?.type;
          if (keyword === 'throw') return throwStatement(s, node);
          return keyword === 'return' ? returnStatement(s, node) : undefined;
        }
      : undefined,
  ),
  withFlow((type, flow) => (flow.returns.includes(type) ? returnStatement : undefined)),
  withFlow((type, flow) => (flow.exits.includes(type) ? exitStatement : undefined)),
  // Literals.
  withFlow((type, flow) =>
    flow.literals.strings.includes(type) ? (s, node) => stringLiteral(s, flow, node) : undefined,
  ),
  withFlow((type, flow) =>
    flow.literals.leafStrings?.includes(type)
      ? (s, node) => (node.children.length === 0 ? leafString(s, node) : undefined)
      : undefined,
  ),
  withFlow((type, flow) => (flow.literals.numbers.includes(type) ? numberLiteral : undefined)),
  withFlow((type, flow) => (flow.literals.chars.includes(type) ? charLiteral : undefined)),
  withFlow((type, flow) => (flow.literals.trues.includes(type) ? constant(true) : undefined)),
  withFlow((type, flow) => (flow.literals.booleans?.includes(type) ? booleanLiteral : undefined)),
  withFlow((type, flow) => (flow.literals.falses.includes(type) ? constant(false) : undefined)),
  withFlow((type, flow) => (flow.literals.nulls.includes(type) ? constant(null) : undefined)),
  // Operators.
  withFlow((type, flow) => (flow.binaries.includes(type) ? binaryOperation : undefined)),
  withFlow((type, flow) => (flow.comparisons.includes(type) ? comparisonChain : undefined)),
  withFlow((type, flow) => {
    const operand = flow.unaries[type];
    return operand !== undefined ? (s, node) => unaryOperation(s, node, operand) : undefined;
  }),
  withFlow((type, flow) =>
    flow.tuples?.includes(type)
      ? (s, node) => (namedChildren(node).length === 1 ? inner(s, node) : undefined)
      : undefined,
  ),
  withFlow((type, flow) => (flow.parens.includes(type) ? inner : undefined)),
  withFlow((type, flow) => {
    const value = flow.casts[type];
    return value ? (s, node) => castExpression(s, node, value) : undefined;
  }),
  // Collections.
  withFlow((type, flow) => {
    const spec = flow.subscripts[type];
    return spec ? (s, node) => subscriptRead(s, node, spec) : undefined;
  }),
  withFlow((type, flow) => (flow.lists.includes(type) ? listLiteral : undefined)),
  withFlow((type, flow) => {
    const spec = flow.dicts[type];
    return spec ? (s, node) => dictLiteral(s, node, spec) : undefined;
  }),
  // Declarations record the declared types, then the node is walked on.
  withFlow((type, flow) => {
    const spec = flow.typedDeclarations[type];
    if (!spec) return undefined;
    return (s, node) => {
      declareTypes(s, node, spec);
      return undefined;
    };
  }),
  // Calls and macros.
  (type, lang) => (lang.calls.includes(type) ? evaluateCall : undefined),
  (type, lang) => (type === 'token_tree' && lang.tokenTrees ? tokenTree : undefined),
  (type, lang) => (type === 'macro_invocation' && lang.tokenTrees ? macroInvocation : undefined),
  (type, lang) =>
    lang.constructorDeclarations?.includes(type)
      ? (s, node) => {
          constructorDeclaration(s, node);
          return undefined;
        }
      : undefined,
  // Sinks on a key or member, checked before the node is walked on.
  (type, lang) => {
    const sinks = lang.keySinks?.filter((k) => k.type === type) ?? [];
    if (sinks.length === 0) return undefined;
    return (s, node) => {
      for (const k of sinks) checkKeySink(s, node, k);
      return undefined;
    };
  },
  (type, lang) => {
    const spec = lang.assignments.find((a) => a.type === type);
    return spec ? (s, node) => assignStatement(s, node, spec) : undefined;
  },
  (type, lang) => {
    const sinks = lang.memberSinks?.filter((m) => m.type === type) ?? [];
    if (sinks.length === 0) return undefined;
    return (s, node) => {
      for (const m of sinks) checkMemberSink(s, node, m);
      return undefined;
    };
  },
];
