import { afterAll, describe, expect, it } from 'vitest';
import { countLoopTurns } from '../../../test/helpers/loop';
import { variedText } from '../../../test/helpers/text';
import { countTokens } from './encoder';
import { countingThread, countTokensAside } from './thread';

afterAll(async () => {
  await countingThread.stop();
});

async function threadReady(): Promise<void> {
  // The first count starts the thread (and is counted in turns meanwhile).
  await countTokensAside(['start']);
  for (let i = 0; i < 600 && !countingThread.running; i++) await new Promise((r) => setTimeout(r, 50));
  expect(countingThread.running).toBe(true);
}

describe('the counting thread', () => {
  it('counts off the event loop, as countTokens counts', async () => {
    await threadReady();
    const texts = [variedText(300_000, 21), 'user', variedText(5_000, 22)];
    const expected = texts.reduce((sum, t) => sum + countTokens(t), 0);
    // The loop stays free while the thread counts: callbacks keep running until the count arrives.
    const loop = countLoopTurns();
    const answered = countingThread.answered;
    expect(await countTokensAside(texts)).toEqual({ tokens: expected, complete: true });
    const ticks = loop.stop();
    // Counted by the thread, not in turns on the loop.
    expect(countingThread.answered).toBe(answered + 1);
    expect(ticks).toBeGreaterThan(20);
  });

  it('a thread that dies mid-count loses nothing: its texts are counted on the loop, and a new thread starts', async () => {
    await threadReady();
    const texts = [variedText(600_000, 31)];
    const expected = countTokens(texts[0] as string);
    const counting = Promise.all([countTokensAside(texts), countTokensAside(['a', 'b c'])]);
    const lost: unknown[] = [];
    const stopListening = countingThread.onLost((reason) => lost.push(reason));
    // Every listener is told (one per chat service), but not one that stopped listening; one that throws
    // costs neither the others nor the counts.
    const stopThrowing = countingThread.onLost(() => {
      throw new Error('a listener failed');
    });
    const others: unknown[] = [];
    const stopOther = countingThread.onLost((reason) => others.push(reason));
    const stopGone = countingThread.onLost((reason) => others.push(['gone', reason]));
    stopGone();
    // Killed from outside, as a crash or an out-of-memory would end it.
    await countingThread.worker?.terminate();
    expect(await counting).toEqual([
      { tokens: expected, complete: true },
      { tokens: countTokens('a') + countTokens('b c'), complete: true },
    ]);
    expect(countingThread.running).toBe(false);
    expect(lost).toHaveLength(1);
    expect(others).toEqual(lost);
    stopOther();
    stopThrowing();
    await threadReady();
    expect((await countTokensAside(texts)).tokens).toBe(expected);
    // Stopped on purpose: nothing to report.
    await countingThread.stop();
    expect(lost).toHaveLength(1);
    stopListening();
  });
});
