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

// Words that carry no topic: a reply about "would" or "could" reads as nonsense.
const FUNCTION_WORDS = new Set(
  (
    'also been being both could does doing done each even ever every give going into just know like make many ' +
    'more most much must need only other over same should some such than them then these they thing things ' +
    "those very want well were what when where while whom whose will would your yours you're can't don't " +
    "i'm it's explain describe show write help tell list hello thanks thank with without about from that " +
    'this there which their have has had here how why who into onto upon using used'
  ).split(' '),
);
const GREETING =
  /^\s*(hi|hello|hey|good (morning|afternoon|evening)|greetings)\b[\s!.,]*(there|tessera)?[\s!.]*$/i;

const GREETINGS = [
  'Hello! How can I help you today?',
  'Hi there! What would you like to talk about?',
  'Hello! Ask me anything, and I will do my best to answer.',
];
const OPENERS = [
  'Here is a short answer about {a}.',
  'Good question about {a}.',
  "Let's look at {a}.",
  'Happy to help with {a}.',
];
const BODY = [
  'The key point is that {a} usually depends on {b}.',
  'Start by checking how {a} is set up, then look at {b}.',
  'In most cases, {a} and {b} are best handled together.',
  'If {a} changes, expect {b} to change with it.',
  'A common mistake is to treat {a} in isolation from {b}.',
  'It helps to write down what you expect from {a} before changing anything.',
  'Keep {b} in mind as well, since it often affects {a}.',
  'A small example of {a} usually makes the rest clear.',
];
const CLOSERS = [
  'I hope this helps.',
  'Let me know if you want more detail on {a}.',
  'That should be enough to get started.',
  'Ask again if anything about {b} is unclear.',
];
const GENERIC_TOPICS = ['the context', 'the goal', 'the main idea', 'the next step'];

function fill(template: string, a: string, b: string): string {
  return template.replace('{a}', a).replace('{b}', b);
}

/** A proper noun or acronym keeps the prompt's spelling (Python, API) unless it only opens a sentence. */
function spelling(prompt: string, word: string): string {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(^|[^\\p{L}\\p{N}])(${escaped})(?![\\p{L}\\p{N}])`, 'iu').exec(prompt);
  const found = match?.[2];
  if (!found || found === word) return word;
  const before = prompt.slice(0, match.index + (match[1]?.length ?? 0)).trimEnd();
  const opensSentence = before === '' || /[.!?:]$/.test(before);
  return opensSentence && found.slice(1) === word.slice(1) ? word : found;
}

/**
 * The simulator's answer: plain English sentences about the prompt's own words, so that different prompts get
 * different answers and the same prompt (with the same seed and choice) always gets the same one. A greeting is
 * answered as one.
 */
export function simulatedReply(prompt: string, variant: string): string {
  const random = randomFrom(`${variant}\u0000${prompt}`);
  if (GREETING.test(prompt.split('\n').at(-1) ?? prompt)) return pick(GREETINGS, random);
  const topics = keywordsOf(prompt)
    .filter((w) => !FUNCTION_WORDS.has(w))
    .map((w) => spelling(prompt, w));
  const pool = topics.length > 0 ? topics : GENERIC_TOPICS;
  const main = pool[0] ?? 'your question';
  const other = () => {
    const rest = pool.filter((w) => w !== main);
    return rest.length > 0 ? pick(rest, random) : pick(GENERIC_TOPICS, random);
  };
  const sentences = [fill(pick(OPENERS, random), main, other())];
  const body = [...BODY];
  const count = 2 + Math.floor(random() * 3);
  for (let i = 0; i < count && body.length > 0; i++) {
    const at = Math.floor(random() * body.length);
    const [template] = body.splice(at, 1);
    const a = random() < 0.5 ? main : pick(pool, random);
    let b = other();
    if (b === a) b = pick(GENERIC_TOPICS, random);
    sentences.push(fill(template ?? '', a, b));
  }
  sentences.push(fill(pick(CLOSERS, random), main, other()));
  return sentences.map((t) => t.charAt(0).toUpperCase() + t.slice(1)).join(' ');
}
