import { describe, expect, it } from 'vitest';
import { COOKBOOK_WEATHER_TOOL } from '../../../test/fixtures/tools';
import { dataUrlImageSize, imagePartTokens, imageSize, imageTokensOf, UNKNOWN_IMAGE_TOKENS } from './images';
import { countPromptTokens } from './messages';

function png(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(33);
  bytes.writeUInt32BE(0x89504e47, 0);
  bytes.writeUInt32BE(0x0d0a1a0a, 4);
  bytes.writeUInt32BE(13, 8);
  bytes.write('IHDR', 12, 'latin1');
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes;
}

function jpeg(width: number, height: number): Buffer {
  // SOI, an APP0 segment of 16 bytes, a DQT-like segment, then SOF0 with the size.
  const app0 = Buffer.concat([Buffer.from([0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(14)]);
  const other = Buffer.concat([Buffer.from([0xff, 0xdb, 0x00, 0x05]), Buffer.alloc(3)]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    3,
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, other, sof, Buffer.alloc(12)]);
}

function gif(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(13);
  bytes.write('GIF89a', 0, 'latin1');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes;
}

function webp(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(30);
  bytes.write('RIFF', 0, 'latin1');
  bytes.write('WEBP', 8, 'latin1');
  bytes.write('VP8X', 12, 'latin1');
  bytes.writeUIntLE(width - 1, 24, 3);
  bytes.writeUIntLE(height - 1, 27, 3);
  return bytes;
}

const dataUrl = (type: string, bytes: Buffer) => `data:image/${type};base64,${bytes.toString('base64')}`;

describe('image tokens', () => {
  it("follows OpenAI's documented examples", () => {
    // 1024×1024, high: 4 tiles → 765; 2048×4096, high: 768×1536 → 6 tiles → 1105; low is always 85.
    expect(imageTokensOf({ width: 1024, height: 1024 }, 'high')).toBe(765);
    expect(imageTokensOf({ width: 2048, height: 4096 }, 'high')).toBe(1105);
    expect(imageTokensOf({ width: 4096, height: 8192 }, 'low')).toBe(85);
    expect(imageTokensOf({ width: 100, height: 100 }, 'auto')).toBe(255);
    expect(imageTokensOf(undefined, 'auto')).toBe(UNKNOWN_IMAGE_TOKENS);
  });

  it('reads the size of PNG, JPEG, GIF and WebP headers, and nothing else', () => {
    expect(imageSize(png(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageSize(jpeg(1920, 1080))).toEqual({ width: 1920, height: 1080 });
    expect(imageSize(gif(32, 16))).toEqual({ width: 32, height: 16 });
    expect(imageSize(webp(3000, 2000))).toEqual({ width: 3000, height: 2000 });
    expect(imageSize(Buffer.from('not an image at all'))).toBeUndefined();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff, 0, 0, 0, 0, 0]))).toBeUndefined();
    expect(dataUrlImageSize(dataUrl('png', png(640, 480)))).toEqual({ width: 640, height: 480 });
    expect(dataUrlImageSize('data:image/png,rawbytes')).toBeUndefined();
    expect(dataUrlImageSize('https://example.com/cat.png')).toBeUndefined();
  });

  it('counts image parts in the prompt by their size, not their base64 text', () => {
    const text = { type: 'text', text: 'hello world' };
    const big = { type: 'image_url', image_url: { url: dataUrl('jpeg', jpeg(2048, 4096)), detail: 'high' } };
    const low = { type: 'image_url', image_url: { url: dataUrl('png', png(4096, 4096)), detail: 'low' } };
    const remote = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
    expect(imagePartTokens(big)).toBe(1105);
    const base = countPromptTokens([{ role: 'user', content: [text] }]);
    expect(countPromptTokens([{ role: 'user', content: [text, big] }])).toBe(base + 1105);
    expect(countPromptTokens([{ role: 'user', content: [text, low, remote] }])).toBe(
      base + 85 + UNKNOWN_IMAGE_TOKENS,
    );
  });
});

describe('tool definition tokens', () => {
  const weather = COOKBOOK_WEATHER_TOOL;
  const messages = [
    {
      role: 'system' as const,
      content: 'You are a helpful assistant that can answer to questions about the weather.',
    },
    { role: 'user' as const, content: "What's the weather like in San Francisco?" },
  ];

  it("matches the OpenAI cookbook's example: 101 prompt tokens on gpt-4o", () => {
    expect(countPromptTokens(messages)).toBe(33);
    expect(countPromptTokens(messages, [weather])).toBe(101);
    expect(countPromptTokens(messages, [])).toBe(33);
  });

  it('counts nested parameter schemas and grows with each function', () => {
    const nested = {
      type: 'function',
      function: {
        name: 'book',
        parameters: {
          type: 'object',
          properties: {
            trip: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } },
          },
        },
      },
    };
    const one = countPromptTokens(messages, [weather]);
    const two = countPromptTokens(messages, [weather, nested]);
    expect(two).toBeGreaterThan(one + 7 + 3 + 3);
  });
});
