import { describe, expect, it } from 'vitest';
import { chatDeltas, readSseData } from './sse';

function streamOf(parts: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(enc.encode(p));
      controller.close();
    },
  });
}

async function collect<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;

describe('SSE parsing', () => {
  it('reassembles events split anywhere across chunks, with CRLF and multi-line data', async () => {
    const text = 'data: one\r\n\r\n: comment\n\ndata: a\ndata: b\n\nevent: x\ndata: three\n\n';
    const parts = [text.slice(0, 3), text.slice(3, 9), text.slice(9, 30), text.slice(30)];
    expect(await collect(readSseData(streamOf(parts)))).toEqual(['one', 'a\nb', 'three']);
  });

  it('yields the content deltas of a chat stream until [DONE]', async () => {
    const body = [
      chunk('Hel'),
      chunk('lo'),
      'data: {"choices":[{"delta":{}}]}\n\n',
      'data: [DONE]\n\n',
      chunk('late'),
    ].join('');
    const halves = [body.slice(0, 17), body.slice(17)];
    expect(await collect(chatDeltas(streamOf(halves)))).toEqual(['Hel', 'lo']);
  });

  it('turns an error event into an exception', async () => {
    await expect(
      collect(chatDeltas(streamOf(['data: {"error":{"message":"model_timeout"}}\n\n']))),
    ).rejects.toThrow('model_timeout');
  });
});
