import { describe, expect, it } from 'vitest';
import { listedNames } from './simulator-tools';

describe('listedNames', () => {
  it('finds the names a request lists, multi-word ones whole', () => {
    expect(listedNames('What is the weather in Paris and Tokyo?')).toEqual(['Paris', 'Tokyo']);
    expect(listedNames('weather in Paris, São Paulo, and New York please')).toEqual([
      'Paris',
      'São Paulo',
      'New York',
    ]);
    expect(listedNames('Is it colder in Oslo or Rome')).toEqual(['Oslo', 'Rome']);
  });

  it("leaves out a sentence's capitalised first word, and finds nothing where nothing is listed", () => {
    expect(listedNames('Compare Paris and Tokyo')).toEqual(['Paris', 'Tokyo']);
    expect(listedNames('Hi. Compare Lyon and Nice.')).toEqual(['Lyon', 'Nice']);
    expect(listedNames('Weather in Paris?')).toEqual([]);
    expect(listedNames('salt and pepper')).toEqual([]);
  });

  it('keeps to four names, once each, and reads only the start of a long request', () => {
    expect(listedNames('A, B, C, D, E and F')).toHaveLength(4);
    expect(listedNames('Paris and Paris')).toEqual(['Paris']);
    const started = performance.now();
    expect(listedNames(`${'Word '.repeat(100_000)}x`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
