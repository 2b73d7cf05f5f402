import { describe, expect, it } from 'vitest';
import { SIMULATOR_FINGERPRINT } from './simulator';
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

  it('answers prompts whose words hold regex syntax (a hyphen, brackets, a backslash) instead of throwing', () => {
    // A hyphen escaped outside a class is a syntax error in a /u regex: the chat call was a 500.
    for (const prompt of ['一-一ø', 'state-of-the-art (v2) [draft] a\\b', 'x-y+z*w? {1} ^$ | .']) {
      expect(simulatedReply(prompt, 'm//0')).toMatch(/[.!?]$/);
    }
    expect(simulatedReply('Tell me about state-of-the-art caching', 'm//0')).toMatch(/state-of-the-art/);
  });

  it('is deterministic for the same prompt and variant, and differs across variants', () => {
    const prompt = 'Explain recursion in Python with an example';
    expect(simulatedReply(prompt, 'm/1/0')).toBe(simulatedReply(prompt, 'm/1/0'));
    const variants = new Set(Array.from({ length: 8 }, (_, i) => simulatedReply(prompt, `m/${i}/0`)));
    expect(variants.size).toBeGreaterThan(1);
  });

  it('answers as its fingerprint says: a changed answer needs a new SIMULATOR_FINGERPRINT revision', () => {
    // OpenAI's clients take the same fingerprint and seed to mean the same answers. When this answer changes on
    // purpose, bump the revision in simulator.ts and pin the new answer here beside it.
    expect(SIMULATOR_FINGERPRINT).toBe('tessera-sim-1');
    expect(simulatedReply('Name three rivers in Europe', 'tessera-fast-4k//0')).toBe(
      "Let's look at name. A common mistake is to treat rivers in isolation from the main idea. It helps to " +
        'write down what you expect from Europe before changing anything. Keep three in mind as well, since it ' +
        'often affects name. The key point is that name usually depends on rivers. Let me know if you want more ' +
        'detail on name.',
    );
  });
});
