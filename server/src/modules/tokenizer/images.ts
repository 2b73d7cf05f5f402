/**
 * The prompt tokens of an image part, by OpenAI's documented accounting for vision models (gpt-4o family):
 * `detail: "low"` costs 85 tokens; otherwise the image is scaled to fit 2048×2048, then so that its shorter side
 * is at most 768 pixels, and costs 85 tokens plus 170 per 512-pixel tile.
 */
const BASE_TOKENS = 85;
const TILE_TOKENS = 170;
/** An image whose size cannot be read without fetching it (an http(s) URL, an unknown format): 1024×1024. */
export const UNKNOWN_IMAGE_TOKENS = BASE_TOKENS + TILE_TOKENS * 4;
/** How much of a base64 image is decoded to find its size: JPEG's size follows its metadata (up to 64 KiB each). */
const HEADER_BASE64_CHARS = 256 * 1024;

export interface ImageSize {
  width: number;
  height: number;
}

/** The tokens of an image of this size at this detail. */
export function imageTokensOf(size: ImageSize | undefined, detail: unknown): number {
  if (detail === 'low') return BASE_TOKENS;
  if (!size) return UNKNOWN_IMAGE_TOKENS;
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shorter = Math.min(width, height);
  if (shorter > 768) {
    width = (width * 768) / shorter;
    height = (height * 768) / shorter;
  }
  return BASE_TOKENS + TILE_TOKENS * Math.ceil(width / 512) * Math.ceil(height / 512);
}

/** The tokens of a content part of type `image_url`. */
export function imagePartTokens(part: Record<string, unknown>): number {
  const image = part.image_url as { url?: unknown; detail?: unknown } | string | undefined;
  const url = typeof image === 'string' ? image : image?.url;
  const detail = typeof image === 'object' ? image?.detail : undefined;
  if (detail === 'low') return BASE_TOKENS;
  return imageTokensOf(typeof url === 'string' ? dataUrlImageSize(url) : undefined, detail);
}

/** The size of an image given inline as a base64 `data:` URL (PNG, JPEG, GIF or WebP); undefined otherwise. */
export function dataUrlImageSize(url: string): ImageSize | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma === -1 || !url.slice(0, comma).endsWith(';base64')) return undefined;
  const end = Math.min(url.length, comma + 1 + HEADER_BASE64_CHARS);
  return imageSize(Buffer.from(url.slice(comma + 1, end), 'base64'));
}

/** Reads an image's size from its header. */
export function imageSize(bytes: Buffer): ImageSize | undefined {
  if (
    bytes.length >= 24 &&
    bytes.readUInt32BE(0) === 0x89504e47 &&
    bytes.toString('latin1', 12, 16) === 'IHDR'
  ) {
    return sized(bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  }
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF') {
    return sized(bytes.readUInt16LE(6), bytes.readUInt16LE(8));
  }
  if (
    bytes.length >= 30 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return webpSize(bytes);
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  return undefined;
}

function sized(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function webpSize(bytes: Buffer): ImageSize | undefined {
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return sized(1 + bytes.readUIntLE(24, 3), 1 + bytes.readUIntLE(27, 3));
  if (chunk === 'VP8 ') return sized(bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L' && bytes.length >= 25) {
    const bits = bytes.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  return undefined;
}

/** Walks JPEG's segments to the first start-of-frame marker, which holds the size. */
function jpegSize(bytes: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Start-of-frame markers: C0–CF except C4 (Huffman tables), C8 (reserved) and CC (arithmetic coding).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return sized(bytes.readUInt16BE(at + 7), bytes.readUInt16BE(at + 5));
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}
