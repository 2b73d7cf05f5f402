import { describe, expect, it } from 'vitest';
import { countTokens, encoder } from './encoder';
import { countPromptTokens } from './messages';

describe('tokenizer', () => {
  it('counts BPE tokens, not characters', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    // A long run of one word merges into far fewer tokens than characters/4 would say.
    const text = 'tokenization '.repeat(100);
    expect(countTokens(text)).toBeLessThan(text.length / 4);
    expect(encoder().decode(encoder().encode('héllo 日本語'))).toBe('héllo 日本語');
  });

  it('counts chat framing as OpenAI does for gpt-4o', () => {
    // Known value: [{role:user, content:"hello world"}] is 3 + 1 + 2 + 3 = 9 prompt tokens on gpt-4o.
    expect(countPromptTokens([{ role: 'user', content: 'hello world' }])).toBe(9);
    expect(countPromptTokens([{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }])).toBe(9);
    expect(countPromptTokens([{ role: 'user', content: 'hello world', name: 'bob' }])).toBeGreaterThan(9);
  });
});
