import type { ParseError } from '@tessera/shared';
import type { Language, Tree } from 'web-tree-sitter';

/**
 * A plain copy of the tree-sitter tree. Walking web-tree-sitter nodes allocates a wrapper per access, so metrics,
 * rules and taint share this one copy made with a single cursor walk.
 */
export interface SyntaxNode {
  type: string;
  named: boolean;
  field: string | null;
  startIndex: number;
  endIndex: number;
  startRow: number;
  startCol: number;
  endRow: number;
  endCol: number;
  parent: SyntaxNode | null;
  children: SyntaxNode[];
}

/** Trees deeper than this are cut: the rest is reported as a parse error rather than risking the stack. */
export const MAX_DEPTH = 600;
const MAX_PARSE_ERRORS = 50;

export interface CopiedTree {
  root: SyntaxNode;
  parseErrors: ParseError[];
  truncated: boolean;
}

/** Offsets (UTF-16 units, as tree-sitter reports them for JS strings) where each line starts. */
function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function rowOf(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Type names, namedness and field names by numeric id, per language: numbers cross the WASM boundary cheaply. */
interface Symbols {
  types: Map<number, { type: string; named: boolean }>;
  fields: Map<number, string | null>;
}
const symbolsByLanguage = new WeakMap<Language, Symbols>();

function symbolsOf(language: Language): Symbols {
  let symbols = symbolsByLanguage.get(language);
  if (!symbols) {
    symbols = { types: new Map(), fields: new Map() };
    symbolsByLanguage.set(language, symbols);
  }
  return symbols;
}

export function copyTree(tree: Tree, source: string): CopiedTree {
  const cursor = tree.walk();
  const language = tree.language;
  const symbols = symbolsOf(language);
  const typeOf = (id: number): { type: string; named: boolean } => {
    let t = symbols.types.get(id);
    if (!t) {
      // Error and missing nodes share ids with ordinary ones only through these getters.
      t = { type: cursor.nodeType, named: cursor.nodeIsNamed };
      symbols.types.set(id, t);
    }
    return t;
  };
  const fieldOf = (id: number): string | null => {
    if (id === 0) return null;
    let f = symbols.fields.get(id);
    if (f === undefined) {
      f = language.fieldNameForId(id);
      symbols.fields.set(id, f);
    }
    return f;
  };
  const parseErrors: ParseError[] = [];
  const starts = lineStarts(source);
  let truncated = false;
  // Rows and columns come from the offsets: each cursor getter is a call into WASM, positions two more objects.
  const make = (parent: SyntaxNode | null): SyntaxNode => {
    const startIndex = cursor.startIndex;
    const endIndex = cursor.endIndex;
    const startRow = rowOf(starts, startIndex);
    const endRow = endIndex === startIndex ? startRow : rowOf(starts, endIndex);
    const { type, named } = typeOf(cursor.nodeTypeId);
    const node: SyntaxNode = {
      type,
      named,
      field: fieldOf(cursor.currentFieldId),
      startIndex,
      endIndex,
      startRow,
      startCol: startIndex - (starts[startRow] as number),
      endRow,
      endCol: endIndex - (starts[endRow] as number),
      parent,
      children: [],
    };
    if (parseErrors.length < MAX_PARSE_ERRORS) {
      if (node.type === 'ERROR') {
        parseErrors.push(errorAt(node, 'Syntax error: unexpected code'));
      } else if (startIndex === endIndex && cursor.nodeIsMissing) {
        parseErrors.push(errorAt(node, `Syntax error: missing ${node.type}`));
      }
    }
    return node;
  };
  const root = make(null);
  let current = root;
  let depth = 0;
  // Iterative pre-order walk: recursion would overflow on pathological nesting.
  for (;;) {
    if (depth < MAX_DEPTH && cursor.gotoFirstChild()) {
      depth += 1;
      const child = make(current);
      current.children.push(child);
      current = child;
      continue;
    }
    if (depth >= MAX_DEPTH && cursor.gotoFirstChild()) {
      cursor.gotoParent();
      if (!truncated)
        parseErrors.push(errorAt(current, `Code nested deeper than ${MAX_DEPTH} levels was not analysed`));
      truncated = true;
    }
    let moved = false;
    while (!moved) {
      if (cursor.gotoNextSibling()) {
        const parent = current.parent;
        const sibling = make(parent);
        parent?.children.push(sibling);
        current = sibling;
        moved = true;
      } else if (cursor.gotoParent()) {
        depth -= 1;
        current = current.parent ?? root;
      } else {
        cursor.delete();
        return { root, parseErrors, truncated };
      }
    }
  }
}

function errorAt(node: SyntaxNode, message: string): ParseError {
  return {
    message,
    line: node.startRow + 1,
    column: node.startCol + 1,
    end_line: node.endRow + 1,
    end_column: node.endCol + 1,
  };
}

/** Pre-order traversal without recursion. `enter` returning false skips the node's children. */
export function walk(root: SyntaxNode, enter: (node: SyntaxNode) => boolean | undefined): void {
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as SyntaxNode;
    if (enter(node) === false) continue;
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as SyntaxNode);
  }
}

export function childByField(node: SyntaxNode, field: string): SyntaxNode | undefined {
  return node.children.find((c) => c.field === field);
}
