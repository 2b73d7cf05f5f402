import { createHash } from 'node:crypto';
import type {
  CodeAnalysis,
  CodeProjectAnalysis,
  Finding,
  FindingSeverity,
  SarifLocation,
  SarifLog,
  SarifResult,
  SarifRule,
  TraceStep,
} from '@tessera/shared';
import { TAINT_RULES } from './taint/rules';
import type { TaintKind } from './taint/types';

/** Bumped with the analyser's rules, so code scanning tells one version's analyses from another's. */
const TOOL_VERSION = '0.2.0';
const SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

type Level = SarifResult['level'];

const LEVEL: Record<FindingSeverity, Level> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

// GitHub code scanning buckets security-severity as critical ≥ 9.0, high ≥ 7.0, medium ≥ 4.0, low below.
const SECURITY_SEVERITY: Record<FindingSeverity, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: '1.0',
};

const CATEGORY_TAG: Record<Finding['category'], string> = {
  security: 'security',
  bug: 'correctness',
  complexity: 'maintainability',
};

/** `security/sql-injection` → "SQL injection" (the taint rule's title), else the id's last part in words. */
function ruleTitle(id: string): string {
  const last = id.slice(id.lastIndexOf('/') + 1);
  const taint = (TAINT_RULES as Partial<Record<string, { title: string }>>)[last as TaintKind];
  if (id.startsWith('security/') && taint) return taint.title;
  const words = last.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function cweNumber(cwe: string | null): string | undefined {
  return cwe ? /^CWE-(\d+)$/.exec(cwe)?.[1] : undefined;
}

function ruleOf(f: Finding): SarifRule {
  const cwe = cweNumber(f.cwe);
  const tags = [CATEGORY_TAG[f.category], ...(cwe ? [`external/cwe/cwe-${cwe}`] : [])];
  return {
    id: f.rule_id,
    name: f.rule_id.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    shortDescription: { text: ruleTitle(f.rule_id) },
    ...(cwe && { helpUri: `https://cwe.mitre.org/data/definitions/${cwe}.html` }),
    defaultConfiguration: { level: LEVEL[f.severity] },
    properties: {
      tags,
      ...(f.category === 'security' && { 'security-severity': SECURITY_SEVERITY[f.severity] }),
    },
  };
}

/** A file path as a relative URI reference: each segment percent-encoded, `/` kept. */
function uriOf(path: string): string {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

function location(
  uri: string,
  at: Pick<Finding, 'line' | 'column' | 'end_line' | 'end_column'>,
  text?: { snippet?: string; message?: string },
): SarifLocation {
  // SARIF regions end after their start; a trace step that marks a whole line starts and ends at column 1.
  const endColumn = at.end_line === at.line ? Math.max(at.end_column, at.column) : at.end_column;
  return {
    physicalLocation: {
      artifactLocation: { uri: uriOf(uri) },
      region: {
        startLine: at.line,
        startColumn: at.column,
        endLine: Math.max(at.end_line, at.line),
        endColumn: Math.max(endColumn, 1),
        ...(text?.snippet !== undefined && { snippet: { text: text.snippet } }),
      },
    },
    ...(text?.message !== undefined && { message: { text: text.message } }),
  };
}

function codeFlow(trace: TraceStep[], uri: string): NonNullable<SarifResult['codeFlows']> {
  return [
    {
      threadFlows: [
        { locations: trace.map((s) => ({ location: location(s.path ?? uri, s, { message: s.note }) })) },
      ],
    },
  ];
}

/**
 * Stable across runs and unrelated edits: the rule, the file and the flagged line's text with whitespace removed,
 * and which occurrence of that triple it is (two identical lines in one file stay two alerts).
 */
function fingerprint(f: Finding, uri: string, seen: Map<string, number>): string {
  const base = `${f.rule_id}\u0000${uri}\u0000${f.snippet.replace(/\s+/g, '')}`;
  const n = (seen.get(base) ?? 0) + 1;
  seen.set(base, n);
  return `${createHash('sha256').update(base).digest('hex').slice(0, 32)}:${n}`;
}

/**
 * An analysis as a SARIF 2.1.0 log, for GitHub code scanning and IDEs: one run, the rules its results cite, each
 * result with its location, its trace as a code flow, and a fingerprint. `uri` names the file of a single-file
 * analysis (the request's `filename`); a project's findings carry their own paths.
 */
export function toSarif(analysis: CodeAnalysis | CodeProjectAnalysis, uri: string): SarifLog {
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  const seen = new Map<string, number>();
  const results = analysis.issues.map((f): SarifResult => {
    let index = ruleIndex.get(f.rule_id);
    if (index === undefined) {
      index = rules.length;
      ruleIndex.set(f.rule_id, index);
      rules.push(ruleOf(f));
    }
    const file = f.path ?? uri;
    return {
      ruleId: f.rule_id,
      ruleIndex: index,
      level: LEVEL[f.severity],
      message: { text: f.message },
      locations: [location(file, f, { snippet: f.snippet })],
      ...(f.trace && f.trace.length > 0 && { codeFlows: codeFlow(f.trace, file) }),
      partialFingerprints: { 'tessera/v1': fingerprint(f, file, seen) },
      properties: { confidence: f.confidence, severity: f.severity },
    };
  });
  return {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Tessera',
            version: TOOL_VERSION,
            rules,
          },
        },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
}
