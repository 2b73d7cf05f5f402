import { describe, expect, it } from 'vitest';
import { simulatedReply } from './simulator-text';

describe('simulatedReply', () => {
  it('answers a greeting as a greeting', () => {
    for (const prompt of ['Hello!', 'hi', 'Hey there', 'Good morning.']) {
      expect(simulatedReply(prompt, 'm//0')).toMatch(/^(Hello|Hi)\b.*\?$/);
    }
  });

  it("speaks of the prompt's own words in whole sentences, spelt as typed, never of function words", () => {
    const reply = simulatedReply('What is the weather in Paris tomorrow?', 'm//0');
    expect(reply).toMatch(/\bweather\b/);
    expect(reply).toMatch(/\bParis\b/);
    expect(reply).not.toMatch(/\b(what|is the)\b about/i);
    for (const sentence of reply.split(/(?<=[.!?])\s+/)) expect(sentence).toMatch(/^[A-Z].*[.!?]$/);
    const rotate = simulatedReply(
      'How can I rotate an API key without breaking the services that use it',
      'm//0',
    );
    expect(rotate).not.toMatch(/\b(without|that)\b (are|is|in|and|changes)/);
  });

  it('is deterministic for the same prompt and variant, and differs across variants', () => {
    const prompt = 'Explain recursion in Python with an example';
    expect(simulatedReply(prompt, 'm/1/0')).toBe(simulatedReply(prompt, 'm/1/0'));
    const variants = new Set(Array.from({ length: 8 }, (_, i) => simulatedReply(prompt, `m/${i}/0`)));
    expect(variants.size).toBeGreaterThan(1);
  });
});
