import { describe, expect, it } from 'vitest';
import { countLoopTurns } from '../../../test/helpers/loop';
import { variedText } from '../../../test/helpers/text';
import { countTokenSpan, countTokens } from './encoder';
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
      '',
    ];
    for (const text of texts) {
      const whole = countTokens(text);
      for (const chars of [1, 7, 64, 1_000, 100_000]) {
        let tokens = 0;
        let at = 0;
        let spans = 0;
        do {
          const span = countTokenSpan(text, at, chars);
          expect(span.end).toBeGreaterThan(text.length === 0 ? -1 : at);
          tokens += span.tokens;
          at = span.end;
          spans += 1;
        } while (at < text.length);
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
    expect(await countLongPromptTokens(messages)).toBe(countPromptTokens(messages));
  });

  it('lets the event loop run between turns: other callbacks run while a long text is counted', async () => {
    const text = varied(400_000);
    const expected = countTokens(text);
    const loop = countLoopTurns();
    const tokens = await countTokensInTurns([text]);
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
        countTokensInTurns([t, 'and', t]).then((n) => {
          finished.push(i);
          return n;
        }),
      ),
    );
    expect(counts).toEqual(texts.map((t) => 2 * countTokens(t) + countTokens('and')));
    expect(finished).toEqual(texts.map((_, i) => i));
    expect(await countTokensInTurns([])).toBe(0);
    expect(await countTokensInTurns(['', ''])).toBe(0);
  });
});
