import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

let shared: Tiktoken | undefined;

/**
 * The o200k_base BPE (GPT-4o's), from the ranks bundled with js-tiktoken: nothing is downloaded. Building it takes
 * about half a second, so it is built once per process and shared.
 */
export function encoder(): Tiktoken {
  shared ??= new Tiktoken(o200kBase);
  return shared;
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encoder().encode(text).length;
}
