/**
 * The dispatch of a node to its kind's handlers (handlers.ts), through a table per language filled type by type.
 */
import type { SyntaxNode } from '../../parsing/tree';
import type { TaintLanguage } from '../types';
import { CLEAN, type Val } from '../values';
import { runClosure } from './closures';
import { HANDLER_RULES, type NodeHandler } from './handlers';
import { readName } from './names';
import { PATH_LIKE } from './shared';
import type { WalkState } from './state';

/** A node type's entry in a language's table: its handlers in precedence order, and whether it reads a name. */
export interface KindEntry {
  handlers: readonly NodeHandler[];
  namePath: boolean;
}

/** Each language's table, filled type by type as the walk meets them (the catalogue and flow syntax are data). */
const TABLES = new WeakMap<TaintLanguage, Map<string, KindEntry>>();

/** The entry of a node type in the language's table (made on first use). */
export function kindEntry(lang: TaintLanguage, type: string): KindEntry {
  let table = TABLES.get(lang);
  if (!table) {
    table = new Map();
    TABLES.set(lang, table);
  }
  let entry = table.get(type);
  if (!entry) {
    const handlers: NodeHandler[] = [];
    for (const rule of HANDLER_RULES) {
      const handler = rule(type, lang, lang.flow);
      if (handler) handlers.push(handler);
    }
    entry = { handlers, namePath: PATH_LIKE.test(type) || lang.sourceNodes?.includes(type) === true };
    table.set(type, entry);
  }
  return entry;
}

/**
 * Evaluates an expression or runs a statement, in order, updating the state; returns the value. A function nested
 * in the unit is its own unit (a closure also runs where it is written); any other node goes to its kind's handlers
 * (handlers.ts), then, where none gave a value, to the name read (a path or a leaf) and to its children.
 */
export function evaluateNode(s: WalkState, node: SyntaxNode): Val {
  if (s.env.dead) return CLEAN;
  if (node !== s.unit && node.named && s.ctx.isFunction(node))
    return s.ctx.isClosure(node) ? runClosure(s, node) : CLEAN;
  const entry = kindEntry(s.lang, node.type);
  for (const handler of entry.handlers) {
    const v = handler(s, node);
    if (v) return v;
  }
  if (entry.namePath || node.children.length === 0) {
    const v = readName(s, node);
    if (v) return v;
  }
  return s.evaluateChildren(node);
}
