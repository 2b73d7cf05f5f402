import type { Finding, ThreatModel } from '@tessera/shared';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { FileContext } from './context';
import { taintCatalogue } from './languages';
import { parameterSources, unknownParameters } from './parameters';
import type { TaintProject } from './project';
import type { Origin } from './syntax';
import type { Taint } from './values';
import { FlowWalker } from './walker';

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

export function taintFindings(
  parsed: ParsedSource,
  project?: TaintProject,
  threatModel: ThreatModel = 'web',
): Finding[] {
  const lang = taintCatalogue(parsed.language, threatModel);
  if (!lang) return [];
  const ctx = project?.contextOf(parsed) ?? new FileContext(parsed, lang);
  const walk = (unit: SyntaxNode) => {
    if (unit === parsed.root) {
      new FlowWalker(ctx, unit, true).run([]);
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
    new FlowWalker(ctx, unit, true).run(parameters);
  };
  for (const unit of ctx.units) walk(unit);
  // A method that read `this.q` before the method storing input in it was walked reads it now.
  for (const unit of ctx.staleFieldReaders()) walk(unit);
  ctx.dropShadowed();
  return ctx.findings;
}
