/**
 * Prompt token counting: Tessera's countTokens against js-tiktoken's own encode (the baseline, same ranks) on
 * real text, cold (a fresh process's first count) and warm (the same text again), checking they agree.
 *   cd server && npx tsx ../bench/tokenizer/count.ts
 * The texts are this repository's own documents and a source file; every count runs on the event loop before
 * a chat call is made, so its time is added to that call's latency.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countTokens, libraryEncoder } from '../../server/src/modules/tokenizer/encoder';

// The library's own encoder on the same o200k ranks.
const library = libraryEncoder();
const files = ['README.md', 'ARCHITECTURE.md', 'BENCHMARKS.md', 'server/src/app.ts'];

function timed(run: () => number): { ms: number; tokens: number } {
  const started = performance.now();
  const tokens = run();
  return { ms: performance.now() - started, tokens };
}

// Both warmed up on other text first, so that "cold" is about the text, not the JIT.
countTokens('Warm up the counter with a sentence of ordinary words.');
library.encode('Warm up the library with a sentence of ordinary words.', [], []);

console.log(
  '| text | characters | tokens | library encode (ms) | countTokens cold (ms) | countTokens warm (ms) |',
);
console.log('|---|---|---|---|---|---|');
for (const file of files) {
  const text = readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');
  const base = timed(() => library.encode(text, [], []).length);
  const cold = timed(() => countTokens(text));
  const warm = timed(() => countTokens(text));
  if (cold.tokens !== base.tokens || warm.tokens !== base.tokens) {
    throw new Error(`${file}: counted ${cold.tokens}/${warm.tokens}, the library says ${base.tokens}`);
  }
  console.log(
    `| ${file} | ${text.length} | ${base.tokens} | ${base.ms.toFixed(1)} | ${cold.ms.toFixed(1)} | ${warm.ms.toFixed(1)} |`,
  );
}
