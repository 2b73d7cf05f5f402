import type { FindingConfidence, FindingSeverity } from '@tessera/shared';
import type { ParsedSource } from '../parsing/parse';
import type { PythonCall } from './python-imports';

/**
 * A rule over Python calls by qualified name (Bandit's blacklist and call plugins, read through the file's
 * imports). `judge` says whether a matching call is reported and, when the call's arguments make it more or less
 * certain, at which confidence.
 */
export interface PythonCallRule {
  id: string;
  severity: FindingSeverity;
  confidence: FindingConfidence;
  cwe: string;
  /** `{call}` is replaced by the call's first line. */
  message: string;
  callee: RegExp;
  judge?: (call: PythonCall, parsed: ParsedSource) => boolean | FindingConfidence;
  /** Text the file must contain for the rule to apply at all (cheap skip, as RuleDefinition.needles). */
  needles?: string[];
  /** The dataflow's rule for the same weakness: on a line where it reports, this rule keeps quiet. */
  yieldsTo?: string;
}
