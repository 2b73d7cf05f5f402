import { createHash } from 'node:crypto';

/**
 * The simulator's embeddings: deterministic unit vectors, no weights. The same input and model give the same
 * vector, and different inputs give different ones; inputs that share words point in similar directions, so a
 * search built against a test key ranks as one would expect (not as a real model would).
 *
 * A vector is the sum of two parts, made unit length:
 * - the input's features hashed into the vector (feature hashing): each lowercase word, and each pair of
 *   adjacent words (order matters), adds ±1 (a pair ±0.5) at FEATURE_SLOTS positions its hash picks;
 * - a dense part drawn from a generator seeded by the SHA-256 of the whole input, so that inputs with the same
 *   words (or none: punctuation alone) still differ.
 * Token-id inputs use their ids as the words. The model's id salts every hash: each model has its own space.
 * `dimensions` below the model's takes the first components and makes them unit length again, as OpenAI's
 * text-embedding-3 models shorten theirs, so a shortened vector is a prefix of the full one, rescaled.
 */
const FEATURE_SLOTS = 4;
/** The dense part's share of the vector's length before normalisation: inputs with the same words stay close. */
const DENSE_WEIGHT = 0.35;

/** FNV-1a over a string's UTF-16 units, salted: a fast 32-bit hash for features. */
function fnv1a(text: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** One step of splitmix32: well-mixed 32-bit values from a 32-bit state. */
function mix(state: number): number {
  let z = (state + 0x9e3779b9) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

function wordsOf(input: string | number[]): string[] {
  if (typeof input !== 'string') return input.map(String);
  return input.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function addFeature(vector: Float64Array, feature: string, weight: number, salt: number): void {
  let h = fnv1a(feature, salt);
  for (let k = 0; k < FEATURE_SLOTS; k++) {
    h = mix(h);
    const at = h % vector.length;
    vector[at] = (vector[at] as number) + ((h & 0x80000000) === 0 ? weight : -weight);
  }
}

function scaleToUnit(vector: Float64Array, weight = 1): void {
  let sum = 0;
  for (const v of vector) sum += v * v;
  if (sum === 0) return;
  const scale = weight / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
}

/** The model's full-length vector for one input (length: the model's dimensions). */
function fullVector(input: string | number[], model: string, length: number): Float64Array {
  const salt = fnv1a(model, 0);
  const features = new Float64Array(length);
  const words = wordsOf(input);
  for (let i = 0; i < words.length; i++) {
    addFeature(features, words[i] as string, 1, salt);
    if (i > 0) addFeature(features, `${words[i - 1]}\u0000${words[i]}`, 0.5, salt);
  }
  const dense = new Float64Array(length);
  const digest = createHash('sha256')
    .update(model)
    .update('\u0000')
    .update(typeof input === 'string' ? `s${input}` : `t${input.join(',')}`)
    .digest();
  let state = digest.readUInt32LE(0) ^ digest.readUInt32LE(4);
  for (let i = 0; i < length; i++) {
    state = mix(state);
    dense[i] = state / 0x80000000 - 1;
  }
  scaleToUnit(features, 1);
  scaleToUnit(dense, words.length === 0 ? 1 : DENSE_WEIGHT);
  for (let i = 0; i < length; i++) features[i] = (features[i] as number) + (dense[i] as number);
  return features;
}

/**
 * The unit vector of `dimensions` components for one input, its components rounded to float32 (what a real
 * model's are, and what base64 carries), so that the float and base64 answers hold the same numbers.
 */
export function simulatedEmbedding(
  input: string | number[],
  model: string,
  modelDimensions: number,
  dimensions: number,
): Float32Array {
  const full = fullVector(input, model, modelDimensions);
  const vector = full.subarray(0, dimensions);
  scaleToUnit(vector);
  return Float32Array.from(vector);
}
