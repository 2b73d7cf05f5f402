import { decodeTokens } from '../tokenizer';

/**
 * Splits text into the strings a model would emit token by token. A token can end inside a multi-byte character;
 * such tokens are held back and emitted with the next, so every piece is valid text.
 */
export function tokenPieces(tokens: number[]): string[] {
  const pieces: string[] = [];
  let pending: number[] = [];
  for (const token of tokens) {
    pending.push(token);
    const text = decodeTokens(pending);
    if (text.endsWith('\uFFFD')) continue;
    pieces.push(text);
    pending = [];
  }
  if (pending.length > 0) pieces.push(decodeTokens(pending));
  return pieces;
}
