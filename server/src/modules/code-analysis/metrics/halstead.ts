import type { Halstead } from '@tessera/shared';
import type { SyntaxNode } from '../parsing/tree';
import { indexOf, type LanguageProfile } from './profile';

const OPERAND =
  /identifier|literal|^number$|^integer$|^float$|^true$|^false$|^null$|^nil$|^none$|^undefined$|^this$|^self$|^constant$|^word$|^variable_name$|^name$|^char$|^rune$/;
const STRING = /string|template|heredoc|char_literal|raw_string/;
/** Closing halves of pairs and separators: the opening token already stands for the pair. */
const SKIPPED = new Set([')', ']', '}', ';', ',', 'end', 'fi', 'done', 'esac', '"', "'", '`']);

export interface HalsteadCounts {
  operators: Map<string, number>;
  operands: Map<string, number>;
}

/** Operators and operands of a subtree: operands are names and literals, operators every other token. */
/** Per node type: 1 skipped (comment, ERROR), 2 string, 4 operand when a named leaf, 8 skipped closing token. */
const kinds = new WeakMap<LanguageProfile, Map<string, number>>();

function kindOf(profile: LanguageProfile, type: string): number {
  let byType = kinds.get(profile);
  if (!byType) {
    byType = new Map();
    kinds.set(profile, byType);
  }
  let kind = byType.get(type);
  if (kind === undefined) {
    kind =
      (indexOf(profile).comments.has(type) || type === 'ERROR' ? 1 : 0) |
      (STRING.test(type) ? 2 : 0) |
      (OPERAND.test(type) ? 4 : 0) |
      (SKIPPED.has(type) ? 8 : 0);
    byType.set(type, kind);
  }
  return kind;
}

export function halsteadCounts(root: SyntaxNode, profile: LanguageProfile, source: string): HalsteadCounts {
  const operators = new Map<string, number>();
  const operands = new Map<string, number>();
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as SyntaxNode;
    const kind = kindOf(profile, node.type);
    if (kind & 1) continue;
    if (node.named && kind & 2) {
      const value = source.slice(node.startIndex, node.endIndex);
      operands.set(value, (operands.get(value) ?? 0) + 1);
      continue;
    }
    if (node.children.length === 0) {
      if (node.endIndex === node.startIndex) continue;
      const value = source.slice(node.startIndex, node.endIndex);
      if (node.named && kind & 4) operands.set(value, (operands.get(value) ?? 0) + 1);
      else if (!(kind & 8)) operators.set(node.type, (operators.get(node.type) ?? 0) + 1);
      continue;
    }
    for (const child of node.children) stack.push(child);
  }
  return { operators, operands };
}

const sum = (m: Map<string, number>): number => {
  let total = 0;
  for (const v of m.values()) total += v;
  return total;
};
const round = (v: number): number => Math.round(v * 100) / 100;

export function halstead(counts: HalsteadCounts): Halstead {
  const n1 = counts.operators.size;
  const n2 = counts.operands.size;
  const N1 = sum(counts.operators);
  const N2 = sum(counts.operands);
  const vocabulary = n1 + n2;
  const length = N1 + N2;
  const volume = vocabulary > 0 ? length * Math.log2(vocabulary) : 0;
  const difficulty = n2 > 0 ? (n1 / 2) * (N2 / n2) : 0;
  return {
    distinct_operators: n1,
    distinct_operands: n2,
    total_operators: N1,
    total_operands: N2,
    vocabulary,
    length,
    volume: round(volume),
    difficulty: round(difficulty),
    effort: round(difficulty * volume),
  };
}

/**
 * Maintainability index, normalised to 0–100 as Visual Studio reports it:
 * max(0, (171 − 5.2 ln V − 0.23 CC − 16.2 ln SLOC) × 100 / 171).
 */
export function maintainabilityIndex(volume: number, cyclomatic: number, sourceLines: number): number {
  const raw =
    171 - 5.2 * Math.log(Math.max(volume, 1)) - 0.23 * cyclomatic - 16.2 * Math.log(Math.max(sourceLines, 1));
  return round(Math.min(100, Math.max(0, (raw * 100) / 171)));
}
