import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { CodeLanguage } from '@tessera/shared';
import { Language, Parser } from 'web-tree-sitter';
import { serverPath } from '../../../lib/paths';
import { GRAMMAR_FILES } from '../languages';
import { patchWasm, WASM_PATCHES } from './wasm-patch';

const require = createRequire(import.meta.url);
let init: Promise<void> | undefined;
const languages = new Map<CodeLanguage, Promise<Language>>();
const loaded = new Map<CodeLanguage, Language>();
const parsers = new Map<CodeLanguage, Parser>();

/** Loads a grammar the first time it is needed; later calls reuse it (one per worker). */
export async function loadLanguage(lang: CodeLanguage): Promise<Language> {
  init ??= Parser.init();
  await init;
  let loading = languages.get(lang);
  if (!loading) {
    loading = grammarBytes(lang)
      .then((bytes) => Language.load(bytes))
      .then((language) => {
        loaded.set(lang, language);
        return language;
      });
    languages.set(lang, loading);
  }
  return loading;
}

export async function parserFor(lang: CodeLanguage): Promise<Parser> {
  const existing = parsers.get(lang);
  if (existing) return existing;
  const language = await loadLanguage(lang);
  const parser = new Parser();
  parser.setLanguage(language);
  parsers.set(lang, parser);
  return parser;
}

/** A grammar already loaded by loadLanguage (queries need the Language synchronously). */
export function loadedLanguage(lang: CodeLanguage): Language | undefined {
  return loaded.get(lang);
}

/** The path of a grammar's .wasm (languages.ts `GRAMMAR_FILES`): in the server package, or in its npm package. */
export function grammarFile(lang: CodeLanguage): string {
  const file = GRAMMAR_FILES[lang];
  return file.startsWith('grammars/') ? serverPath(file) : require.resolve(file);
}

/** The grammar's .wasm, with its fix applied where wasm-patch.ts has one. */
async function grammarBytes(lang: CodeLanguage): Promise<Uint8Array> {
  const bytes = new Uint8Array(await readFile(grammarFile(lang)));
  const patch = WASM_PATCHES[lang];
  return patch ? patchWasm(bytes, patch).bytes : bytes;
}
