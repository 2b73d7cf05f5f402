import type { CodeLanguage } from '@tessera/shared';
import type { SinkSpec, TaintLanguage } from '../types';

/**
 * Patterns compiled from untrusted input (CWE-1333/730, CodeQL's `regex-injection` queries): the input chooses the
 * pattern, so it can make it backtrack for as long as it likes. Kept apart from the languages' catalogues because the
 * same few APIs and escapes apply to every backtracking engine; Go's engine runs in linear time.
 */
const REGEX_SINKS: Partial<Record<CodeLanguage, { sinks: SinkSpec[]; escape: RegExp }>> = {
  python: {
    sinks: [
      {
        kind: 'regex-injection',
        callee: /^(re|regex)\.(compile|match|search|fullmatch|findall|finditer|sub|subn|split)$/,
        arg: 0,
      },
    ],
    escape: /^(re|regex)\.escape$/,
  },
  javascript: {
    sinks: [{ kind: 'regex-injection', callee: /^(new)?RegExp$/, arg: 0 }],
    escape: /(^|\.)(escapeRegExp|escapeRegex|escapeStringRegexp|escapeRegExpChars)$|^escapeStringRegexp$/,
  },
  java: {
    sinks: [
      { kind: 'regex-injection', callee: /^Pattern\.(compile|matches)$/, arg: 0 },
      { kind: 'regex-injection', callee: /\.(matches|replaceAll|replaceFirst|split)$/, arg: 0 },
    ],
    escape: /^Pattern\.quote$/,
  },
  ruby: {
    sinks: [
      { kind: 'regex-injection', callee: /^Regexp\.(new|compile)$/, arg: 0 },
      // `/#{params[:q]}/`, `%r{…#{q}…}`: a regex literal compiles what is interpolated into it (`regex` nodes are
      // calls in the Ruby catalogue; their callee is the opening delimiter).
      { kind: 'regex-injection', callee: /^(\/|%r.)$/, arg: 'any' },
    ],
    escape: /^Regexp\.(escape|quote)$/,
  },
  php: {
    sinks: [
      {
        kind: 'regex-injection',
        callee: /^preg_(match|match_all|replace|replace_callback|split|grep)$/,
        arg: 0,
      },
    ],
    escape: /^preg_quote$/,
  },
  kotlin: {
    sinks: [
      { kind: 'regex-injection', callee: /^(Regex|Pattern\.compile|Pattern\.matches)$/, arg: 0 },
      { kind: 'regex-injection', callee: /\.(toRegex|toPattern)$/, arg: 'receiver' },
    ],
    escape: /^(Regex\.escape|Pattern\.quote)$/,
  },
  scala: {
    sinks: [{ kind: 'regex-injection', callee: /^(newRegex|Pattern\.compile|Pattern\.matches)$/, arg: 0 }],
    escape: /^(Pattern\.quote|Regex\.quote)$/,
  },
  swift: {
    sinks: [{ kind: 'regex-injection', callee: /^(NSRegularExpression|Regex)$/, arg: 0 }],
    escape: /^NSRegularExpression\.escapedPattern$/,
  },
  // Rust's `regex` matches in linear time, but a pattern from input still chooses what matches and can exhaust the
  // compiled-size limit (CodeQL rust/regex-injection).
  rust: {
    sinks: [
      { kind: 'regex-injection', callee: /^(regex::)?(Regex|RegexBuilder|bytes::Regex)::new$/, arg: 0 },
    ],
    escape: /^(regex::)?escape$/,
  },
  csharp: {
    sinks: [
      { kind: 'regex-injection', callee: /^newRegex$/, arg: 0 },
      { kind: 'regex-injection', callee: /^Regex\.(IsMatch|Match|Matches|Replace|Split)$/, arg: 1 },
    ],
    escape: /^Regex\.Escape$/,
  },
};

/** The language's catalogue with its regex sinks and escapes added. */
export function withRegexSinks(language: CodeLanguage, catalogue: TaintLanguage): TaintLanguage {
  const extra = REGEX_SINKS[language];
  if (!extra) return catalogue;
  return {
    ...catalogue,
    sinks: [...catalogue.sinks, ...extra.sinks],
    kindSanitizers: [
      ...(catalogue.kindSanitizers ?? []),
      { callee: extra.escape, kinds: ['regex-injection'] },
    ],
  };
}
