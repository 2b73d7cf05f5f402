import type { FileMetrics, FunctionMetrics } from '@tessera/shared';
import type { ParsedSource } from '../parsing/parse';
import { cognitive } from './cognitive';
import { cyclomatic } from './cyclomatic';
import { countParameters, findFunctions } from './functions';
import { halstead, halsteadCounts, maintainabilityIndex } from './halstead';
import { countLines, lineMap } from './loc';
import { PROFILES } from './profiles';

export { PROFILES } from './profiles';

export interface SourceMetrics {
  file: FileMetrics;
  functions: FunctionMetrics[];
}

export function computeMetrics(parsed: ParsedSource): SourceMetrics {
  const { root, source, language } = parsed;
  const profile = PROFILES[language];
  const lines = lineMap(root, profile, source);
  const functions: FunctionMetrics[] = findFunctions(root, profile, source).map(({ node, name, kind }) => {
    const cc = cyclomatic(node, profile, source);
    const cog = cognitive(node, profile, source, name);
    const loc = countLines(lines, node.startRow, node.endRow);
    const h = halstead(halsteadCounts(node, profile, source));
    return {
      name,
      kind,
      start_line: node.startRow + 1,
      end_line: node.endRow + 1,
      cyclomatic: cc,
      cognitive: cog.cognitive,
      max_nesting: cog.maxNesting,
      parameters: countParameters(node, profile, source),
      lines: loc,
      halstead: h,
      maintainability_index: maintainabilityIndex(h.volume, cc, loc.source),
    };
  });
  const fileLoc = countLines(lines, 0, lines.lines - 1);
  const fileHalstead = halstead(halsteadCounts(root, profile, source));
  const fileCc = cyclomatic(root, profile, source, true);
  const fileCog = cognitive(root, profile, source);
  return {
    functions,
    file: {
      lines: fileLoc,
      functions: functions.length,
      cyclomatic_total: fileCc,
      cognitive_total: fileCog.cognitive,
      max_nesting: fileCog.maxNesting,
      halstead: fileHalstead,
      maintainability_index: maintainabilityIndex(fileHalstead.volume, fileCc, fileLoc.source),
    },
  };
}
