import { createHash } from 'node:crypto';

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

const GREETING =
  /^\s*(hi|hello|hey|good (morning|afternoon|evening)|greetings)\b[\s!.,]*(there|tessera)?[\s!.]*$/i;

const GREETINGS = ['Hello!', 'Hi there!', 'Hello, and welcome.'];
/** What the answer is: said plainly, so that nobody mistakes it for a model's. */
const STAND_IN = [
  'This is a simulated answer: no model was called.',
  "No model saw your message; Tessera's built-in simulator wrote this reply.",
  "This reply comes from Tessera's simulator, not from a model.",
];
/** How to get a real one. */
const HOW_TO = [
  'Test keys always get the simulator; a live key gets a real model once its provider is configured (OPENAI_API_KEY or ANTHROPIC_API_KEY).',
  'For a real answer, use a live key on a model whose provider is configured, for example with OPENAI_API_KEY or ANTHROPIC_API_KEY.',
  'Configure a provider (OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY) and call with a live key to reach a real model.',
];
/** The longest restatement of what was asked; longer questions are cut at a word. */
const ASKED_CHARS = 120;

/** The question as asked: its last non-empty line, spaces collapsed, cut at a word past ASKED_CHARS. */
function restated(asked: string): string {
  const lines = sourceOf(asked).split('\n');
  let line = '';
  for (let i = lines.length - 1; i >= 0 && !line; i--) line = (lines[i] ?? '').replace(/\s+/g, ' ').trim();
  if (line.length <= ASKED_CHARS) return line;
  const cut = line.slice(0, ASKED_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > ASKED_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/**
 * The simulator's answer: short, grammatical and plainly a stand-in. It restates what was asked (`asked`, the
 * last user message; after a tool's result, the result, said as such), says that no model was called and how to configure
 * one. The same prompt, seed and choice always get the same
 * answer; other choices word it differently.
 */
export function simulatedReply(
  prompt: string,
  variant: string,
  { asked = prompt, toolResult = false }: { asked?: string; toolResult?: boolean } = {},
): string {
  const random = randomFrom(`${variant}\u0000${prompt}`);
  const question = restated(asked);
  const sentences: string[] = [];
  if (GREETING.test(question)) {
    sentences.push(pick(GREETINGS, random));
  } else if (question) {
    const closed = /[.!?…]$/.test(question) ? `“${question}”` : `“${question}”.`;
    sentences.push(`${toolResult ? 'The tool returned' : 'You asked'}: ${closed}`);
  }
  sentences.push(pick(STAND_IN, random), pick(HOW_TO, random));
  return sentences.join(' ');
}
