import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../parsing/parse';
import { FileContext } from './context';
import { TAINT_LANGUAGES } from './languages';
import { parameterSources } from './parameters';
import type { TaintProject } from './project';
import type { Taint } from './values';
import { FlowWalker } from './walker';

/**
 * Taint tracking over the dataflow: each function (and the top level) is walked in order over an abstract state
 * (walker.ts); calls to the file's own functions go through their summaries (context.ts); a sink reached by
 * untrusted data that no sanitiser for that sink touched is reported with the path it took. In a project, calls
 * reach the other files' functions too (project.ts).
 */
export function taintFindings(parsed: ParsedSource, project?: TaintProject): Finding[] {
  const lang = TAINT_LANGUAGES[parsed.language];
  if (!lang) return [];
  const ctx = project?.contextOf(parsed) ?? new FileContext(parsed, lang);
  for (const unit of ctx.units) {
    const parameters: [string, Taint][] =
      unit === parsed.root
        ? []
        : parameterSources(parsed, lang, unit).map(([name, origin]) => [
            name,
            {
              origin,
              steps: [
                {
                  line: origin.line,
                  column: 1,
                  end_line: origin.line,
                  end_column: 1,
                  note: `source: ${origin.text}`,
                },
              ],
            },
          ]);
    new FlowWalker(ctx, unit, true).run(parameters);
  }
  return ctx.findings;
}
