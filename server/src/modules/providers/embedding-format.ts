import type { EncodingFormat } from '@tessera/shared';

/**
 * An embedding in the format the client asked for, whatever form it came in: `base64` is the base64 of the
 * vector's float32s, little-endian (what OpenAI sends and its SDKs decode), floats are plain numbers. Upstreams
 * that ignore `encoding_format` (some local servers answer floats only) are converted here, so that a client
 * asking for base64, as the openai SDKs do by default, never receives floats it would misread.
 */
export function inFormat(
  vector: Float32Array | number[] | string,
  format: EncodingFormat,
): number[] | string {
  if (typeof vector === 'string') return format === 'base64' ? vector : Array.from(float32sOf(vector));
  if (format === 'float') return Array.isArray(vector) ? vector : Array.from(vector);
  const floats = vector instanceof Float32Array ? vector : Float32Array.from(vector);
  const bytes = Buffer.alloc(floats.length * 4);
  for (let i = 0; i < floats.length; i++) bytes.writeFloatLE(floats[i] as number, i * 4);
  return bytes.toString('base64');
}

/** The float32s of a base64 embedding (little-endian). */
export function float32sOf(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const floats = new Float32Array(Math.floor(bytes.length / 4));
  for (let i = 0; i < floats.length; i++) floats[i] = bytes.readFloatLE(i * 4);
  return floats;
}

/** How many components an embedding in either form has (a base64 one: its bytes over 4, rounded down). */
export function lengthOf(vector: number[] | string): number {
  return typeof vector === 'string' ? Math.floor(Buffer.byteLength(vector, 'base64') / 4) : vector.length;
}
