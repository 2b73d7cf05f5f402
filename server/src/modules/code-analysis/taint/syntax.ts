import type { SyntaxNode } from '../parsing/tree';

/** Where a tainted value came from, as a finding reports it. */
export interface Origin {
  text: string;
  line: number;
}

/** Node types that are a plain name. */
export const NAME_LIKE =
  /^(identifier|variable_name|name|simple_identifier|shorthand_property_identifier_pattern)$/;

/** A node's source text without whitespace: how names, paths and callees are compared. */
export const norm = (source: string, node: SyntaxNode): string =>
  source.slice(node.startIndex, node.endIndex).replace(/\s+/g, '');
