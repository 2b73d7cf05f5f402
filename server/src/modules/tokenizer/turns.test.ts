import { describe, expect, it } from 'vitest';
import { countLoopTurns } from '../../../test/helpers/loop';
import { variedText } from '../../../test/helpers/text';
import { countTokenSpan, countTokens, newCursor, PIECE_WINDOW } from './encoder';
import { countLongPromptTokens, countPromptTokens, promptLength } from './messages';
import { countTokensInTurns } from './turns';

const varied = (length: number) => variedText(length);

describe('counting a text span by span', () => {
  it('gives exactly the whole count, whatever the span size (spans end between pieces)', () => {
    const texts = [
      varied(5_000),
      ' hello'.repeat(900),
      'x'.repeat(3_000),
      `${'ab'.repeat(700)}  \n  end`,
      // Long pieces, counted window by window: a span may end inside one.
      `say ${'q'.repeat(PIECE_WINDOW * 3 + 17)} then ${' '.repeat(PIECE_WINDOW * 2 + 5)}${'!'.repeat(PIECE_WINDOW + 1)} end`,
      `${'🙂'.repeat(PIECE_WINDOW)} and ${variedText(3_000).replaceAll(' ', '')}`,
      '',
    ];
    for (const text of texts) {
      const whole = countTokens(text);
      for (const chars of [1, 7, 64, 1_000, 100_000]) {
        let tokens = 0;
        const cursor = newCursor();
        let spans = 0;
        do {
          const at = cursor.at;
          tokens += countTokenSpan(text, cursor, chars);
          expect(cursor.at).toBeGreaterThan(text.length === 0 ? -1 : at);
          spans += 1;
        } while (cursor.at < text.length);
        expect(tokens, `${text.slice(0, 20)}… in spans of ${chars}`).toBe(whole);
        if (chars === 64 && text === texts[0]) expect(spans).toBeGreaterThan(10);
      }
    }
  });
});

describe('counting in turns of the event loop', () => {
  it('counts a prompt as countPromptTokens does', async () => {
    const messages = [
      { role: 'system' as const, content: varied(20_000) },
      { role: 'user' as const, content: [{ type: 'text' as const, text: varied(3_000) }], name: 'ann' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function' as const,
            function: { name: 'lookup', arguments: JSON.stringify({ q: varied(500) }) },
          },
        ],
      },
      { role: 'tool' as const, content: varied(1_000), tool_call_id: 'c1' },
    ];
    // Long enough for the chat service to count it off the loop (LONG_PROMPT_CHARS).
    expect(promptLength(messages)).toBeGreaterThan(20_000);
    expect(await countLongPromptTokens(messages)).toEqual({
      tokens: countPromptTokens(messages),
      complete: true,
    });
  });

  it('lets the event loop run between turns: other callbacks run while a long text is counted', async () => {
    const text = varied(400_000);
    const expected = countTokens(text);
    const loop = countLoopTurns();
    const { tokens } = await countTokensInTurns([text]);
    const ticks = loop.stop();
    expect(tokens).toBe(expected);
    // At most 1 ms of counting per turn: 400,000 characters take many turns, each with the other callback.
    expect(ticks).toBeGreaterThan(5);
  });

  it('counts many texts at once, each to its own total, first come first counted', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => varied(3_000 + i * 2_000));
    const finished: number[] = [];
    const counts = await Promise.all(
      texts.map((t, i) =>
        countTokensInTurns([t, 'and', t]).then(({ tokens: n }) => {
          finished.push(i);
          return n;
        }),
      ),
    );
    expect(counts).toEqual(texts.map((t) => 2 * countTokens(t) + countTokens('and')));
    expect(finished).toEqual(texts.map((_, i) => i));
    expect(await countTokensInTurns([])).toEqual({ tokens: 0, complete: true });
    expect(await countTokensInTurns(['', ''])).toEqual({ tokens: 0, complete: true });
  });
});

describe('counting up to a limit', () => {
  it('stops once the texts reach the limit, in turns and on the thread alike', async () => {
    // 8 MB of one letter: a million tokens, one piece. Only the first few windows past the limit are counted.
    const huge = 'x'.repeat(8 << 20);
    const inTurns = await countTokensInTurns(['hello', huge, 'never read'], 5_000);
    expect(inTurns.complete).toBe(false);
    expect(inTurns.tokens).toBeGreaterThanOrEqual(5_000);
    expect(inTurns.tokens).toBeLessThan(5_000 + 3 * PIECE_WINDOW);
    // Reaching the limit with the last text counted is a complete count.
    const exact = countTokens(varied(2_000));
    expect(await countTokensInTurns([varied(2_000)], exact)).toEqual({ tokens: exact, complete: true });
    const messages = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: huge },
    ];
    // Past the limit by its length alone: refused with the fewest tokens it can be, nothing counted.
    const byLength = await countLongPromptTokens(messages, undefined, 'owner', 4_096);
    expect(byLength.complete).toBe(false);
    expect(byLength.tokens).toBeGreaterThanOrEqual(4_096);
    expect(byLength.tokens).toBeLessThanOrEqual(countPromptTokens(messages));
    // Short enough that it might fit (100,000 letters, 12,500 tokens): counted on the thread, which looks at the
    // limit between spans of 16,384 characters (2,048 tokens of this word).
    const word = [{ role: 'user' as const, content: 'x'.repeat(100_000) }];
    const count = await countLongPromptTokens(word, undefined, 'owner', 4_096);
    expect(count.complete).toBe(false);
    expect(count.tokens).toBeGreaterThanOrEqual(4_096);
    expect(count.tokens).toBeLessThan(4_096 + 2_048 + 300);
    // Under the limit the count is exact.
    const small = [{ role: 'user' as const, content: varied(30_000) }];
    expect(await countLongPromptTokens(small, undefined, 'owner', 100_000)).toEqual({
      tokens: countPromptTokens(small),
      complete: true,
    });
    // Framing alone past the limit: nothing is counted.
    const many = Array.from({ length: 2_000 }, () => ({ role: 'user' as const, content: 'hi' }));
    expect((await countLongPromptTokens(many, undefined, 'owner', 4_096)).complete).toBe(false);
  });
});
