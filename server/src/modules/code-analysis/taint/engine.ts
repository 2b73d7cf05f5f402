import type { Finding, ThreatModel } from '@tessera/shared';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { FileContext } from './context';
import { taintCatalogue } from './languages';
import { parameterSources, unknownParameters } from './parameters';
import type { TaintProject } from './project';
import type { Origin } from './syntax';
import type { Taint } from './values';
import { newWalk } from './walker';

/**
 * Taint tracking over the dataflow: each function (and the top level) is walked in order over an abstract state
 * (walker.ts); calls to the file's own functions go through their summaries (context.ts); a sink reached by
 * untrusted data that no sanitiser for that sink touched is reported with the path it took. In a project, calls
 * reach the other files' functions too (project.ts).
 */
function parameterTaint(origin: Origin, weak: boolean): Taint {
  const step = {
    line: origin.line,
    column: 1,
    end_line: origin.line,
    end_column: 1,
    note: `source: ${origin.text}`,
  };
  return weak ? { origin, steps: [step], weak } : { origin, steps: [step] };
}

/** Languages whose functions see the module's variables without a declaration (`global` in Python and PHP). */
const MODULE_INPUT_LANGUAGES = new Set(['javascript', 'typescript', 'tsx']);

export function taintFindings(
  parsed: ParsedSource,
  project?: TaintProject,
  threatModel: ThreatModel = 'web',
): Finding[] {
  const lang = taintCatalogue(parsed.language, threatModel);
  if (!lang) return [];
  const ctx = project?.contextOf(parsed) ?? new FileContext(parsed, lang);
  // A browser script reads the address or a message into a module variable and uses it in its functions
  // (`const next = new URLSearchParams(location.search).get('next')` … `function go() { location.href = next }`):
  // input the top level holds when it ends is input in every function that does not rebind the name.
  let moduleInput: [string, Taint][] = [];
  const walk = (unit: SyntaxNode) => {
    if (unit === parsed.root) {
      const top = newWalk(ctx, unit, true);
      top.run([]);
      if (MODULE_INPUT_LANGUAGES.has(parsed.language))
        moduleInput = [...top.env.vars].filter(([, t]) => !t.weak && !t.audit && !t.numeric);
      return;
    }
    const known = parameterSources(parsed, lang, unit);
    const names = new Set(known.map(([name]) => name));
    // Where the function's input is identified (a handler's bound parameters), its other parameters are not input.
    const unknown =
      known.length > 0 ? [] : unknownParameters(parsed, lang, unit).filter(([n]) => !names.has(n));
    const parameters: [string, Taint][] = [
      ...known.map(([name, origin]): [string, Taint] => [name, parameterTaint(origin, false)]),
      ...unknown.map(([name, origin]): [string, Taint] => [name, parameterTaint(origin, true)]),
    ];
    newWalk(ctx, unit, true).run([...moduleInput, ...parameters]);
  };
  for (const unit of ctx.units) walk(unit);
  // A method that read `this.q` before the method storing input in it was walked reads it now.
  for (const unit of ctx.staleFieldReaders()) walk(unit);
  ctx.dropShadowed();
  return ctx.findings;
}
