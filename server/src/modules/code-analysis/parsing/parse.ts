import type { CodeLanguage } from '@tessera/shared';
import type { Tree } from 'web-tree-sitter';
import { parserFor } from './grammars';
import { type CopiedTree, copyTree } from './tree';

export interface ParsedSource extends CopiedTree {
  language: CodeLanguage;
  source: string;
  /** The tree-sitter tree, for queries; valid until dispose(). */
  tree: Tree;
  /** Frees the tree: WASM memory is not garbage collected. */
  dispose(): void;
}

/** Parses with tree-sitter; code that does not fully parse still yields a tree (with ERROR nodes). */
export async function parseSource(source: string, language: CodeLanguage): Promise<ParsedSource> {
  const parser = await parserFor(language);
  const tree = parser.parse(source);
  if (!tree) throw new Error(`tree-sitter returned no tree for ${language}`);
  try {
    return { ...copyTree(tree, source), language, source, tree, dispose: () => tree.delete() };
  } catch (err) {
    tree.delete();
    throw err;
  }
}
