import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long strings of a body parsed on the parsing thread travel back as UTF-8 bytes, handed over without a copy,
 * and are decoded on the event loop a slice a turn. As part of the structured clone, one 19 MB string took
 * 25–40 ms of the event loop to rebuild on a 2-vCPU machine (its allocation and copy in one piece): every other
 * request of the process waited that long, several times longer on a loaded machine. A slice of 256 KB takes a
 * millisecond or two; the slices are joined by `+`, which V8 keeps as a rope until something reads the whole.
 */

/** Strings at least this long travel as bytes. */
export const LARGE_TEXT_CHARS = 256 * 1024;
/** Bytes decoded in one turn of the event loop. */
const SLICE_BYTES = 256 * 1024;

/** Where a long string was in the parsed value (keys and indexes from the top), and its UTF-8 bytes. */
export interface LargeText {
  path: (string | number)[];
  bytes: Uint8Array;
}

const utf8 = new TextEncoder();

/**
 * Takes the long strings out of a parsed value (each left as '' where it was) and returns them as bytes: on the
 * parsing thread, before the reply. The walk visits each value once; the body's bounds already limit how many.
 */
export function takeLargeTexts(value: unknown): LargeText[] {
  const taken: LargeText[] = [];
  const stack: { item: unknown; path: (string | number)[] }[] = [{ item: value, path: [] }];
  while (stack.length > 0) {
    const { item, path } = stack.pop() as { item: unknown; path: (string | number)[] };
    if (typeof item !== 'object' || item === null) continue;
    const entries: [string | number, unknown][] = Array.isArray(item)
      ? item.map((v, i) => [i, v])
      : Object.entries(item);
    for (const [key, child] of entries) {
      if (typeof child === 'string' && child.length >= LARGE_TEXT_CHARS) {
        taken.push({ path: [...path, key], bytes: utf8.encode(child) });
        setOwn(item, key, '');
      } else if (typeof child === 'object' && child !== null) {
        stack.push({ item: child, path: [...path, key] });
      }
    }
  }
  return taken;
}

/** The buffers of `texts`, to hand over with the message that carries them. */
export function transferList(texts: LargeText[]): ArrayBuffer[] {
  return texts.map((t) => t.bytes.buffer as ArrayBuffer);
}

/** Puts the long strings back where they were, decoding each a slice a turn (on the event loop). */
export async function restoreLargeTexts(value: unknown, texts: LargeText[]): Promise<void> {
  for (const { path, bytes } of texts) {
    const text = await decodeInSlices(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    let parent = value as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    setOwn(parent, path.at(-1) as string | number, text);
  }
}

async function decodeInSlices(bytes: Buffer): Promise<string> {
  let text = '';
  let at = 0;
  while (at < bytes.length) {
    let end = Math.min(bytes.length, at + SLICE_BYTES);
    // A slice ends before a UTF-8 sequence's continuation bytes, never inside a character.
    while (end < bytes.length && end > at && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
    text += bytes.toString('utf8', at, end);
    at = end;
    if (at < bytes.length) await nextTurn();
  }
  return text;
}

/** Sets an own data property: a key such as `__proto__`, which JSON.parse makes an own property, stays one. */
function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
