import { createHash } from 'node:crypto';

const OPENERS = [
  'Here is a short answer',
  'Let us look at this',
  'A quick summary follows',
  'Thinking it through',
];
const LINKS = ['relates to', 'depends on', 'is shaped by', 'goes together with', 'can be compared with'];
const FILLERS = [
  'the context',
  'the details',
  'the main idea',
  'the constraints',
  'the next step',
  'the result',
];
const CLOSERS = [
  'That is the gist of it.',
  'I hope this helps.',
  'Ask again for more detail.',
  'That covers it.',
];

/** A small deterministic generator (mulberry32) seeded from a hash of the inputs. */
export function randomFrom(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

// Words too common to say anything about the prompt.
const COMMON = new Set([
  'about',
  'tell',
  'what',
  'with',
  'that',
  'this',
  'please',
  'from',
  'have',
  'there',
  'which',
]);

const MAX_KEYWORD = 40;
/**
 * How much of a prompt the simulator reads for its words, names and numbers. The rest is counted but not read:
 * an answer takes a dozen keywords, which the prompt's opening gives, and reading a megabyte of prompt for each
 * choice and each tool call of an answer (8 choices, 4 calls each) held the event loop for half a second.
 */
export const SOURCE_CHARS = 16_384;

/** The opening of a text that the simulator reads (SOURCE_CHARS). */
export function sourceOf(text: string): string {
  return text.length > SOURCE_CHARS ? text.slice(0, SOURCE_CHARS) : text;
}

/**
 * A text as a seed: itself when short, otherwise its SHA-256 (hashed once, where every choice's and call's seed
 * would hash the whole prompt again), so the answers still depend on all of it.
 */
export function seedOf(text: string): string {
  return text.length > SOURCE_CHARS ? createHash('sha256').update(text).digest('base64') : text;
}

export function keywordsOf(prompt: string): string[] {
  const words = (sourceOf(prompt).match(/[\p{L}\p{N}][\p{L}\p{N}'-]{3,}/gu) ?? []).map((w) =>
    w.toLowerCase(),
  );
  // A "word" of thousands of letters is no keyword, and would make the answer as long as the prompt.
  return [...new Set(words.filter((w) => w.length <= MAX_KEYWORD && !COMMON.has(w)))].slice(0, 12);
}

/**
 * The simulator's answer: sentences built from the prompt's own words, so that different prompts get different
 * answers and the same prompt (with the same seed and choice) always gets the same one.
 */
export function simulatedReply(prompt: string, variant: string): string {
  const random = randomFrom(`${variant}\u0000${prompt}`);
  const keywords = keywordsOf(prompt);
  const word = () => (keywords.length > 0 && random() < 0.7 ? pick(keywords, random) : pick(FILLERS, random));
  const sentences = [`${pick(OPENERS, random)}: ${word()} ${pick(LINKS, random)} ${word()}.`];
  const count = 2 + Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    const first = word();
    sentences.push(`${first.charAt(0).toUpperCase()}${first.slice(1)} ${pick(LINKS, random)} ${word()}.`);
  }
  sentences.push(pick(CLOSERS, random));
  return sentences.join(' ');
}
