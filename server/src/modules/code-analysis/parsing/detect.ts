import type { CodeLanguage } from '@tessera/shared';
import { FILE_EXTENSIONS } from '../languages';
import { parseSource } from './parse';

/**
 * Telltale tokens per language. They only rank candidates; the final choice parses the code with the best few
 * grammars and keeps the one that leaves the least code in error.
 */
/** A function definition with a declared return type (`int f(int a) {`): C-family and Java. */
const TYPED_FUNCTION = /^\s*(?:[\w:<>,[\]*&.]+\s+)+\**\w+\s*\([^)]*\)\s*\{/m;

const SIGNALS: Record<CodeLanguage, RegExp[]> = {
  python: [
    /^\s*def \w+\(.*\)\s*(->[^:]+)?:\s*$/m,
    /^\s*(from [\w.]+ )?import [\w., ]+$/m,
    /\bself\b/,
    /^\s*elif\b/m,
    /^\s*class \w+(\(.*\))?:\s*$/m,
    /\bNone\b/,
  ],
  javascript: [
    /\bfunction\b/,
    /\bconst \w+ =/,
    /=>/,
    /\brequire\(/,
    /\bconsole\.log\(/,
    /\bmodule\.exports\b/,
    /\bexport (default |const |function )/,
  ],
  typescript: [
    /\binterface \w+\s*\{/,
    /:\s*(string|number|boolean|void|any|unknown)\b/,
    /\btype \w+ =/,
    /\bimport type\b/,
    /\bexport (const|function|class|type|interface)\b/,
  ],
  tsx: [/<\/[A-Za-z]+>/, /:\s*(string|number|boolean|React\.\w+)\b/, /\breturn \(\s*</],
  java: [
    TYPED_FUNCTION,
    /\bjava\.(util|io|lang)\./,
    /\bfor \(int /,
    /\bpublic (static )?(final )?class\b/,
    /\bSystem\.out\./,
    /^import java\./m,
    /\bpublic static void main\b/,
    /\bprivate (final )?\w+(<.*>)? \w+;/,
  ],
  go: [/^package \w+/m, /\bfunc (\(\w+ \*?\w+\) )?\w+\(/, /:=/, /\bfmt\.\w+\(/, /\berr != nil\b/],
  c: [
    TYPED_FUNCTION,
    /\bfor \(int /,
    /\bconst \w+ \*\w+/,
    /#include <(stdio|stdlib|string)\.h>/,
    /\bprintf\(/,
    /\bint main\(/,
    /\bmalloc\(/,
    /->\w+/,
  ],
  cpp: [
    TYPED_FUNCTION,
    /\bstd::/,
    /#include <(iostream|vector|string|memory)>/,
    /\btemplate\s*</,
    /\bcout\b/,
    /\bnamespace \w+\s*\{/,
    /::\w+\(/,
  ],
  csharp: [
    TYPED_FUNCTION,
    /\bforeach \(var /,
    /\bSystem\.Collections\./,
    /^using System/m,
    /\bnamespace [\w.]+/,
    /\bConsole\.Write/,
    /\bpublic (async )?(static )?(void|Task|string|int) \w+\(/,
    /\{ get; (set; )?\}/,
  ],
  ruby: [
    /^\s*def \w+[?!]?(\(.*\))?\s*$/m,
    /^\s*end\s*$/m,
    /\bputs\b/,
    /^\s*require ['"]/m,
    /\bdo \|\w+\|/,
    /\battr_(accessor|reader)\b/,
  ],
  php: [/<\?php/, /\$this->/, /\$\w+\s*=/, /\bfunction \w+\(\$/, /\becho\b/],
  rust: [/\bfn \w+/, /\blet mut\b/, /\bimpl\b/, /\bprintln!\(/, /\bpub fn\b/, /&self\b/, /\buse \w+::/],
  kotlin: [/\bfun \w+\(/, /\bval \w+/, /\bprintln\(/, /\bdata class\b/, /\bwhen\s*(\(|\{)/],
  swift: [
    /\bfunc \w+\(/,
    /\blet \w+\s*[:=]/,
    /^import (Foundation|UIKit|SwiftUI)/m,
    /\bguard\b/,
    /\bvar \w+: \w+/,
  ],
  scala: [
    /\bobject \w+/,
    /\bdef \w+(\[.*\])?\(.*\)\s*:/,
    /\bcase class\b/,
    /\bval \w+\s*[:=]/,
    /\bimport scala\./,
  ],
  bash: [/^#!.*\b(ba|z)?sh\b/, /^\s*(if|while) \[/m, /^\s*(fi|done|esac)\s*$/m, /\becho\b/, /\$\{?\w+\}?/],
};

const SHEBANGS: [RegExp, CodeLanguage][] = [
  [/python/, 'python'],
  [/node|deno|bun/, 'javascript'],
  [/\b(ba|z|da)?sh\b/, 'bash'],
  [/ruby/, 'ruby'],
  [/php/, 'php'],
];

const PREFIX = 16_384;

export async function detectLanguage(code: string, filename?: string): Promise<CodeLanguage> {
  const ext = filename?.split('.').pop()?.toLowerCase();
  if (ext && filename?.includes('.') && FILE_EXTENSIONS[ext]) return FILE_EXTENSIONS[ext];
  const firstLine = code.slice(0, code.indexOf('\n') >>> 0).trim();
  if (firstLine.startsWith('#!')) {
    for (const [pattern, lang] of SHEBANGS) if (pattern.test(firstLine)) return lang;
  }
  if (/^\s*<\?php/.test(code)) return 'php';
  const sample = code.slice(0, PREFIX);
  const scores = (Object.keys(SIGNALS) as CodeLanguage[])
    .map((lang) => ({ lang, score: SIGNALS[lang].filter((re) => re.test(sample)).length }))
    .sort((a, b) => b.score - a.score);
  // TypeScript is a superset of JavaScript: count JavaScript's signals for it too.
  const ts = scores.find((s) => s.lang === 'typescript');
  const js = scores.find((s) => s.lang === 'javascript');
  if (ts && js && ts.score > 0) ts.score += js.score;
  scores.sort((a, b) => b.score - a.score);
  const candidates = scores.slice(0, 3).filter((s) => s.score > 0);
  if (candidates.length === 0) return 'javascript';
  let best = candidates[0] as { lang: CodeLanguage; score: number };
  let bestValue = Number.NEGATIVE_INFINITY;
  for (const candidate of candidates) {
    const parsed = await parseSource(sample, candidate.lang);
    parsed.dispose();
    const errorLines = parsed.parseErrors.reduce((n, e) => n + Math.max(1, e.end_line - e.line + 1), 0);
    const value = candidate.score * 2 - errorLines * 3;
    if (value > bestValue) {
      bestValue = value;
      best = candidate;
    }
  }
  return best.lang;
}
