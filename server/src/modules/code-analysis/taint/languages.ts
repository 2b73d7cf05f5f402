import type { CodeLanguage, ThreatModel } from '@tessera/shared';
import { bash } from './catalogues/bash';
import { c } from './catalogues/c';
import { csharp } from './catalogues/csharp';
import { go } from './catalogues/go';
import { java } from './catalogues/java';
import { javascript } from './catalogues/javascript';
import { kotlin } from './catalogues/kotlin';
import { php } from './catalogues/php';
import { python } from './catalogues/python';
import { withRegexSinks } from './catalogues/regex';
import { ruby } from './catalogues/ruby';
import { rust } from './catalogues/rust';
import { scala } from './catalogues/scala';
import { swift } from './catalogues/swift';
import type { TaintLanguage } from './types';

/**
 * Sources, sinks and sanitizers per language, as data (one catalogue a language under catalogues/). Callees and
 * paths are matched on the node's text with whitespace removed (`request . args` reads `request.args`).
 */
const js = withRegexSinks('javascript', javascript);

export const TAINT_LANGUAGES: Partial<Record<CodeLanguage, TaintLanguage>> = {
  python: withRegexSinks('python', python),
  javascript: js,
  typescript: js,
  tsx: js,
  java: withRegexSinks('java', java),
  php: withRegexSinks('php', php),
  go,
  ruby: withRegexSinks('ruby', ruby),
  csharp: withRegexSinks('csharp', csharp),
  c,
  cpp: c,
  kotlin: withRegexSinks('kotlin', kotlin),
  swift: withRegexSinks('swift', swift),
  scala: withRegexSinks('scala', scala),
  rust: withRegexSinks('rust', rust),
  bash,
};

const widened = new Map<TaintLanguage, TaintLanguage>();

/**
 * A language's catalogue under a threat model: `web` is the catalogue as written; `all` adds its `localInput`
 * (files, sockets, databases, …) to its sources and says so (`everyInput`). Built once per catalogue.
 */
export function taintCatalogue(language: CodeLanguage, threatModel: ThreatModel): TaintLanguage | undefined {
  const lang = TAINT_LANGUAGES[language];
  if (!lang || threatModel === 'web') return lang;
  let out = widened.get(lang);
  if (!out) {
    const local = lang.localInput ?? {};
    out = {
      ...lang,
      everyInput: true,
      sources: [...lang.sources, ...(local.sources ?? [])],
      sourceCalls: [...lang.sourceCalls, ...(local.sourceCalls ?? [])],
      sourceArguments: [...(lang.sourceArguments ?? []), ...(local.sourceArguments ?? [])],
    };
    widened.set(lang, out);
  }
  return out;
}
