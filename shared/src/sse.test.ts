import { describe, expect, it } from 'vitest';
import { MAX_SSE_LINE, type SseEvent, SseParser } from './sse';

async function* reads(...parts: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  for (const part of parts) yield part;
}

async function collect(body: AsyncIterable<string | Uint8Array>) {
  const events: SseEvent[] = [];
  const parser = new SseParser((m) => new Error(`upstream: ${m}`));
  for await (const bytes of body) events.push(...parser.push(bytes));
  events.push(...parser.end());
  return events;
}

describe('SseParser', () => {
  it('reads events split anywhere across reads, CRLF or LF, multi-line data and event names', async () => {
    const text =
      'event: delta\r\ndata: {"a":1}\r\n\r\ndata: line one\ndata: line two\n\n: comment\n\ndata: last\n\n';
    const bytes = new TextEncoder().encode(text);
    // Every split point, including inside the CRLF pairs.
    for (let cut = 1; cut < bytes.length; cut++) {
      const events = await collect(reads(bytes.subarray(0, cut), bytes.subarray(cut)));
      expect(events).toEqual([
        { event: 'delta', data: '{"a":1}' },
        { event: undefined, data: 'line one\nline two' },
        { event: undefined, data: 'last' },
      ]);
    }
  });

  it('a multi-byte character split between reads arrives whole', async () => {
    const bytes = new TextEncoder().encode('data: héllo 日本\n\n');
    const events = await collect(reads(bytes.subarray(0, 9), bytes.subarray(9, 15), bytes.subarray(15)));
    expect(events).toEqual([{ event: undefined, data: 'héllo 日本' }]);
  });

  it('a line with no end is an error once it passes the bound, not a buffer that grows forever', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    async function* endless() {
      yield 'data: ';
      for (let i = 0; i < (MAX_SSE_LINE / chunk.length) * 2; i++) yield chunk;
    }
    await expect(collect(endless())).rejects.toThrow(/upstream: a stream event was longer than/);
  });

  it('an event of endless data lines is an error too', async () => {
    const line = `data: ${'y'.repeat(1024 * 1024)}\n`;
    async function* endless() {
      for (let i = 0; i < 20; i++) yield line;
    }
    await expect(collect(endless())).rejects.toThrow(/upstream: a stream event was longer than/);
  });

  it('an event the body ends in after a line end but without its blank line is delivered; a cut line is not', async () => {
    expect(await collect(reads('data: a\n\nevent: done\ndata: b\n'))).toEqual([
      { event: undefined, data: 'a' },
      { event: 'done', data: 'b' },
    ]);
    expect(await collect(reads('data: a\n\ndata: {"cut'))).toEqual([{ event: undefined, data: 'a' }]);
    expect(await collect(reads('data: d\r'))).toEqual([]);
    expect(await collect(reads(': only a comment\n'))).toEqual([]);
  });

  it('a long line arriving in many reads costs time linear in its length, not a rescan per read', async () => {
    // 4 MiB in 1 KiB reads: a parser that searches the whole buffer on every read took ~15 s here, this one ~40 ms.
    const piece = new TextEncoder().encode('z'.repeat(1024));
    async function* long() {
      yield 'data: ';
      for (let i = 0; i < 4 * 1024; i++) yield piece;
      yield '\n\n';
    }
    const started = performance.now();
    const events = await collect(long());
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.length).toBe(4 * 1024 * 1024);
  });
});
