import { MAX_DEPTH, type SyntaxNode, walk } from './parsing/tree';

/**
 * What an analysis may be given, checked on the parsed tree before any metric or rule runs: the rules' tree-sitter
 * queries cost far more than linear time on some shapes, and the cost lands on a worker every account shares.
 *
 * - Nesting: a tree deeper than MAX_DEPTH (600 levels) was cut when copied (parsing/tree.ts), and the queries,
 *   which run on the whole tree, take seconds on such nesting (2,000 nested `if` blocks: 11 s).
 * - Code that does not parse: the queries' cost grows with the square of the nodes one ERROR node holds (20,000
 *   `(` in a row: 8.6 s, 200 KB of them: past any limit). Ordinary code with a few mistakes has a few small
 *   ERROR nodes; MAX_UNPARSED_NODES is far beyond them and costs the rules some 100-300 ms.
 */
export const MAX_UNPARSED_NODES = 5_000;

/** An input over the bounds: the worker reports it as the client's 400 `analysis_too_complex` (pool.ts). */
export class AnalysisTooComplex extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnalysisTooComplex';
  }
}

/** The nodes inside ERROR nodes: what the parser could not make sense of. */
function unparsedNodes(root: SyntaxNode): number {
  let count = 0;
  walk(root, (node) => {
    if (node.type !== 'ERROR') return true;
    walk(node, () => {
      count += 1;
      return true;
    });
    return false;
  });
  return count;
}

/** Throws AnalysisTooComplex when the tree is over the bounds above. */
export function checkAnalysable(
  tree: { root: SyntaxNode; truncated: boolean },
  language: string,
  what = '`code`',
): void {
  if (tree.truncated) {
    throw new AnalysisTooComplex(
      `${what} nests deeper than ${MAX_DEPTH} levels of syntax, the most an analysis takes; analyse the deeply nested part on its own, or simplify it.`,
    );
  }
  const unparsed = unparsedNodes(tree.root);
  if (unparsed > MAX_UNPARSED_NODES) {
    throw new AnalysisTooComplex(
      `${what} does not parse as ${language}: ${unparsed} of its syntax nodes are in syntax errors, more than the ${MAX_UNPARSED_NODES} an analysis takes. Check \`language\`, or send code that parses.`,
    );
  }
}
