import type { LinesOfCode } from '@tessera/shared';
import type { SyntaxNode } from '../parsing/tree';
import { indexOf, type LanguageProfile } from './profile';

/** Per line of the file: whether it holds code and whether it holds a comment. */
export interface LineMap {
  code: Uint8Array;
  comment: Uint8Array;
  lines: number;
}

export function lineMap(root: SyntaxNode, profile: LanguageProfile, source: string): LineMap {
  let lines = 1;
  for (let i = 0; i < source.length; i += 1) if (source.charCodeAt(i) === 10) lines += 1;
  if (source.endsWith('\n')) lines -= 1;
  const code = new Uint8Array(lines + 1);
  const comment = new Uint8Array(lines + 1);
  const comments = indexOf(profile).comments;
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as SyntaxNode;
    if (comments.has(node.type)) {
      for (let r = node.startRow; r <= node.endRow && r < lines; r += 1) comment[r] = 1;
      continue;
    }
    if (node.children.length === 0) {
      if (node.endIndex > node.startIndex) {
        // A multi-line token (a string) makes each of its lines a line of code.
        for (let r = node.startRow; r <= node.endRow && r < lines; r += 1) code[r] = 1;
      }
      continue;
    }
    for (const child of node.children) stack.push(child);
  }
  return { code, comment, lines };
}

/** Lines of code between two 0-based rows, inclusive. Comment lines are lines holding a comment. */
export function countLines(map: LineMap, from: number, to: number): LinesOfCode {
  let sourceLines = 0;
  let commentLines = 0;
  let blank = 0;
  const last = Math.min(to, map.lines - 1);
  for (let r = from; r <= last; r += 1) {
    if (map.code[r]) sourceLines += 1;
    if (map.comment[r]) commentLines += 1;
    if (!map.code[r] && !map.comment[r]) blank += 1;
  }
  return { total: Math.max(0, last - from + 1), source: sourceLines, comment: commentLines, blank };
}
