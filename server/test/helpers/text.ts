/**
 * Deterministic text that the tokenizer's piece memory cannot shortcut: made-up words, numbers, punctuation,
 * accented letters, CJK, emoji and runs of white space, `length` UTF-16 units long.
 */
export function variedText(length: number, seed = 11): string {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const others = ['é', 'ü', '日', '本', '語', '🙂'];
  const punctuation = ['.', ', ', '\n\n', '   ', '\t', '() => {', "'s"];
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const kind = random();
    let part: string;
    if (kind < 0.7) {
      part = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => letters[Math.floor(random() * 26)],
      ).join('');
    } else if (kind < 0.8) part = String(Math.floor(random() * 1e9));
    else if (kind < 0.9) part = others[Math.floor(random() * others.length)] ?? '';
    else part = punctuation[Math.floor(random() * punctuation.length)] ?? '';
    const space = random() < 0.8 ? ' ' : '';
    parts.push(part, space);
    size += part.length + space.length;
  }
  return parts.join('').slice(0, length);
}
