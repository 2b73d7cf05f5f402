import { CODE_LANGUAGE_ALIASES, CODE_LANGUAGES, type CodeLanguage } from '@tessera/shared';

/**
 * Where each grammar's .wasm comes from: a path inside its official package, or (`grammars/…`) a file of the
 * server package for Kotlin and Swift, whose packages ship none that web-tree-sitter 0.25 loads
 * (server/grammars/README.md). parsing/grammars.ts `grammarFile` resolves them.
 */
export const GRAMMAR_FILES: Record<CodeLanguage, string> = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  java: 'tree-sitter-java/tree-sitter-java.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
  c: 'tree-sitter-c/tree-sitter-c.wasm',
  cpp: 'tree-sitter-cpp/tree-sitter-cpp.wasm',
  csharp: 'tree-sitter-c-sharp/tree-sitter-c_sharp.wasm',
  ruby: 'tree-sitter-ruby/tree-sitter-ruby.wasm',
  php: 'tree-sitter-php/tree-sitter-php.wasm',
  rust: 'tree-sitter-rust/tree-sitter-rust.wasm',
  kotlin: 'grammars/tree-sitter-kotlin.wasm',
  swift: 'grammars/tree-sitter-swift.wasm',
  scala: 'tree-sitter-scala/tree-sitter-scala.wasm',
  bash: 'tree-sitter-bash/tree-sitter-bash.wasm',
};

export const FILE_EXTENSIONS: Record<string, CodeLanguage> = {
  py: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  java: 'java',
  go: 'go',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  rb: 'ruby',
  php: 'php',
  rs: 'rust',
  kt: 'kotlin',
  kts: 'kotlin',
  swift: 'swift',
  scala: 'scala',
  sh: 'bash',
  bash: 'bash',
};

/** A language name or alias, case-insensitive; undefined when unknown. */
export function resolveLanguage(name: string): CodeLanguage | undefined {
  const key = name.trim().toLowerCase();
  if ((CODE_LANGUAGES as readonly string[]).includes(key)) return key as CodeLanguage;
  return CODE_LANGUAGE_ALIASES[key];
}

/** The names accepted for `language`, for error messages. */
export function supportedLanguageNames(): string {
  const aliases = new Map<CodeLanguage, string[]>();
  for (const [alias, lang] of Object.entries(CODE_LANGUAGE_ALIASES)) {
    aliases.set(lang, [...(aliases.get(lang) ?? []), alias]);
  }
  return CODE_LANGUAGES.map((l) => {
    const a = aliases.get(l);
    return a ? `${l} (${a.join(', ')})` : l;
  }).join(', ');
}
