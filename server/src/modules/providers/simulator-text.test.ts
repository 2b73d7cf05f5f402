import { describe, expect, it } from 'vitest';
import { SIMULATOR_FINGERPRINT } from './simulator';
import { simulatedReply } from './simulator-text';

describe('simulatedReply', () => {
  const sentencesOf = (reply: string) => reply.split(/(?<=[.!?…]”?\.?)\s+/);

  it('answers a greeting as one, and says it is a stand-in', () => {
    for (const prompt of ['Hello!', 'hi', 'Hey there', 'Good morning.']) {
      const reply = simulatedReply(prompt, 'm//0');
      expect(reply).toMatch(/^(Hello|Hi)\b/);
      expect(reply).toMatch(/no model|not from a model/i);
    }
  });

  it('restates the question, says no model was called and how to configure one, in whole sentences', () => {
    const reply = simulatedReply('What is the capital of France?', 'm//0');
    expect(reply.startsWith('You asked: “What is the capital of France?”')).toBe(true);
    expect(reply).toMatch(/no model|not from a model/i);
    expect(reply).toMatch(/OPENAI_API_KEY/);
    // No made-up advice about the prompt's words ("capital and France are best handled together").
    expect(reply).not.toMatch(/best handled|depends on|common mistake/);
    for (const sentence of sentencesOf(reply)) expect(sentence).toMatch(/^[A-Z“].*[.!?”]$/);
    expect(reply.length).toBeLessThan(400);
  });

  it('restates the last line of a long question, cut at a word', () => {
    const long = `Context first.\n${'please summarise the attached quarterly report '.repeat(10)}`;
    const reply = simulatedReply(long, 'm//0');
    const asked = /You asked: “([^”]*)”/.exec(reply)?.[1] ?? '';
    expect(asked.endsWith('…')).toBe(true);
    expect(asked.length).toBeLessThanOrEqual(121);
    expect(asked.startsWith('please summarise')).toBe(true);
  });

  it("after a tool's result, restates the result as the tool's", () => {
    const reply = simulatedReply('{"temperature": 21}', 'm//0', {
      asked: '{"temperature": 21}',
      toolResult: true,
    });
    expect(reply.startsWith('The tool returned: “{"temperature": 21}”.')).toBe(true);
  });

  it('answers prompts whose words hold regex syntax (a hyphen, brackets, a backslash) instead of throwing', () => {
    // A hyphen escaped outside a class is a syntax error in a /u regex: the chat call was a 500.
    for (const prompt of ['一-一ø', 'state-of-the-art (v2) [draft] a\\b', 'x-y+z*w? {1} ^$ | .']) {
      expect(simulatedReply(prompt, 'm//0')).toMatch(/[.!?)]$/);
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
    expect(SIMULATOR_FINGERPRINT).toBe('tessera-sim-2');
    expect(simulatedReply('Name three rivers in Europe', 'tessera-fast-4k//0')).toBe(
      "You asked: “Name three rivers in Europe”. No model saw your message; Tessera's built-in simulator wrote " +
        'this reply. For a real answer, use a live key on a model whose provider is configured, for example with ' +
        'OPENAI_API_KEY or ANTHROPIC_API_KEY.',
    );
  });
});
