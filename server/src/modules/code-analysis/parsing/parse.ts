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

/**
 * How much text the parser gets per read. web-tree-sitter's own string input hands over `source.slice(index)` and
 * copies up to 5,120 UTF-16 units into WASM memory on every read, and some grammars' lexers re-read at nearly every
 * token (Scala: ~8,900 reads for a 47 KB file, Swift ~1,000): that copying was most of their parse time (Scala
 * 135–230 ms → ~25 ms). Short reads cost the other grammars nothing measurable.
 */
export const READ_CHUNK = 256;

/** The parser's input callback: a short slice at `index`, never ending between the two halves of a surrogate pair. */
export function chunkReader(source: string): (index: number) => string {
  return (index) => {
    let end = index + READ_CHUNK;
    const last = source.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end += 1;
    return source.slice(index, end);
  };
}

/** Parses with tree-sitter; code that does not fully parse still yields a tree (with ERROR nodes). */
export async function parseSource(source: string, language: CodeLanguage): Promise<ParsedSource> {
  const parser = await parserFor(language);
  const tree = parser.parse(chunkReader(source));
  if (!tree) throw new Error(`tree-sitter returned no tree for ${language}`);
  try {
    return { ...copyTree(tree, source), language, source, tree, dispose: () => tree.delete() };
  } catch (err) {
    tree.delete();
    throw err;
  }
}
