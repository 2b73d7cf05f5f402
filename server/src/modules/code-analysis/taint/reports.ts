/**
 * A file's findings as the dataflow reports them: a sink reached (with the path the data took), a constant
 * condition, a null dereference, a finding met inside a called function; one finding per rule and position, the
 * surest kept, at most 200.
 */
import { CONFIDENCE_LEVELS, type Finding } from '@tessera/shared';
import { locate } from '../findings';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import type { ClassFields } from './fields';
import { writesOf } from './fields';
import { TAINT_RULES } from './rules';
import { sqlBuildStep } from './sql-build-site';
import { NAME_LIKE, norm } from './syntax';
import type { TaintKind, TaintLanguage } from './types';
import { confidenceAt, type Taint, type TraceStep } from './values';

const MAX_FINDINGS = 200;

export class FileFindings {
  readonly findings: Finding[] = [];

  constructor(
    private readonly parsed: ParsedSource,
    private readonly lang: TaintLanguage,
    private readonly path: string | undefined,
    private readonly fields: ClassFields,
  ) {}

  /** Keeps the findings `keep` accepts. */
  filter(keep: (f: Finding) => boolean): void {
    const kept = this.findings.filter(keep);
    this.findings.splice(0, this.findings.length, ...kept);
  }

  /** Each reported sink's finding, by kind and position: a surer finding there replaces a less sure one. */
  private readonly reported = new Map<string, number>();

  report(kind: TaintKind, at: SyntaxNode, sink: string, taint: Taint, sinkStep: TraceStep): void {
    const rule = TAINT_RULES[kind];
    // Steps in another file of a project name it.
    const where = (s: TraceStep) => (s.path !== undefined && s.path !== this.path ? `${s.path} ` : '');
    const through = taint.steps
      .filter((s) => !s.note.startsWith('source:'))
      .map((s) => `${s.note.replace(/ = …$/, '')} (${where(s)}line ${s.line})`)
      .slice(0, 4);
    const via = through.length > 0 ? ` through ${through.join(', ')}` : '';
    const sinkFile = sinkStep.path !== undefined && sinkStep.path !== this.path ? ` (${sinkStep.path})` : '';
    // A parameter of unknown origin built into a query or command (medium): the caller may pass anything. Text
    // built from values of unknown origin (low): an audit finding, worth a look, not proven.
    const confidence = confidenceAt(taint, kind, this.lang.everyInput === true) ?? 'low';
    const what = !taint.weak
      ? taint.uncontrolled
        ? 'an uncontrolled value'
        : 'untrusted input'
      : taint.audit || confidence === 'low'
        ? 'a value of unknown origin'
        : 'a parameter';
    this.push(
      {
        rule_id: `security/${kind}`,
        category: 'security',
        severity: rule.severity,
        confidence,
        message: `${rule.title}: ${what} \`${taint.origin.text}\` (line ${taint.origin.line}) flows${via} into \`${sink.slice(0, 60)}\`${sinkFile}${confidence === 'low' ? ' (audit: check where it comes from)' : taint.numeric ? ' without a range check' : ' without sanitizing'}; ${rule.fix}.`,
        ...locate(this.parsed, at),
        cwe: rule.cwe,
        trace: [...taint.steps, sinkStep],
      },
      `${kind}:${at.startIndex}`,
    );
    if (kind === 'sql-injection') this.reportSqlBuild(taint, sinkStep, confidence, what, sink);
  }

  private lines: string[] | undefined;

  /** The statement that built the query from the value, when it is not the sink's (sql-build-site.ts). */
  private reportSqlBuild(
    taint: Taint,
    sinkStep: TraceStep,
    confidence: Finding['confidence'],
    what: string,
    sink: string,
  ): void {
    this.lines ??= this.parsed.source.split('\n');
    const step = sqlBuildStep(this.lines, taint.steps, sinkStep);
    if (!step) return;
    const rule = TAINT_RULES['sql-injection'];
    const snippet = (this.lines[step.line - 1] ?? '').trim();
    this.push(
      {
        rule_id: 'security/sql-injection',
        category: 'security',
        severity: rule.severity,
        confidence,
        message: `${rule.title}: this query is built from ${what} \`${taint.origin.text}\` (line ${taint.origin.line}) and runs in \`${sink.slice(0, 60)}\` (line ${sinkStep.line}); ${rule.fix}.`,
        line: step.line,
        column: step.column,
        end_line: step.end_line,
        end_column: step.end_column,
        snippet,
        cwe: rule.cwe,
        trace: taint.steps.slice(0, taint.steps.indexOf(step) + 1),
      },
      `sql-injection:built:${step.line}:${step.column}`,
    );
  }

  /**
   * A helper's sink reported from its parameter of unknown origin (medium) that a call proves reached by known input
   * (high, its trace through the helper ending at that sink): one finding, the proven one, stays.
   */
  dropShadowed(): void {
    const key = (rule: string, line: number, column: number) => `${rule}:${line}:${column}`;
    const proven = new Set<string>();
    for (const f of this.findings) {
      const last = f.trace?.[f.trace.length - 1];
      if (f.confidence !== 'high' || !last || (last.path ?? this.path) !== this.path) continue;
      proven.add(key(f.rule_id, last.line, last.column));
      // The helper's own build site of that query (reportSqlBuild) is on the proven path too.
      for (const step of f.trace ?? [])
        if ((step.path ?? this.path) === this.path) proven.add(key(f.rule_id, step.line, step.column));
    }
    if (proven.size === 0) return;
    const kept = this.findings.filter(
      (f) => f.confidence === 'high' || !proven.has(key(f.rule_id, f.line, f.column)),
    );
    this.findings.splice(0, this.findings.length, ...kept);
  }

  /**
   * An `if` whose condition the dataflow folds to a constant (`s.equals("x")` with `s` known, `n == n - 1` with `n`
   * known, a call to a function that always returns the same): one branch is dead. A bare name (`if (DEBUG)`) is
   * a deliberate switch and is left alone; a literal (`if (false)`) is not.
   */
  reportConstantCondition(condition: SyntaxNode, truth: boolean, unit: SyntaxNode): void {
    // Loops run once and compound assignments may not fold: a name written more than once in the function (`total
    // += item` in a loop) may hold other values than the one folded, so only names written once count.
    const body = this.parsed.source.slice(unit.startIndex, unit.endIndex);
    const names = new Set(
      this.parsed.source.slice(condition.startIndex, condition.endIndex).match(/[A-Za-z_$][\w$]*/g),
    );
    for (const n of names) if ((body.match(writesOf(n)) ?? []).length > 1) return;
    let inner = condition;
    while (
      /parenthesized|condition_clause/.test(inner.type) &&
      inner.children.filter((c) => c.named).length === 1
    )
      inner = inner.children.find((c) => c.named) ?? inner;
    const text = norm(this.parsed.source, inner);
    if (NAME_LIKE.test(inner.type) || (/^[\w.$]+$/.test(text) && !/^(true|false|True|False)$/.test(text)))
      return;
    this.push(
      {
        rule_id: 'bug/constant-condition',
        category: 'bug',
        severity: 'medium',
        confidence: 'high',
        message: `The condition \`${text.slice(0, 80)}\` is always ${truth}: the ${truth ? 'other branch never runs' : 'branch never runs'}; remove the dead branch or test what was meant.`,
        ...locate(this.parsed, condition),
        cwe: truth ? 'CWE-571' : 'CWE-570',
      },
      `constant-condition:${condition.startIndex}`,
    );
  }

  /**
   * A member of a value that is null on this path (`String s = null; … s.trim()`): the constant is folded, so a
   * check (`if (s != null)`) already leaves the dereference unwalked. Names written more than once in the function
   * are left alone unless null is all they are given: the walk may not see every way
   * they change (a loop runs once).
   */
  reportNullDereference(at: SyntaxNode, object: SyntaxNode, unit: SyntaxNode, probe?: Finding[]): void {
    const body = this.parsed.source.slice(unit.startIndex, unit.endIndex);
    const name = norm(this.parsed.source, object);
    // A field may be set by any method the walk does not follow (`init()`); a local only where this function says.
    if (!/^[A-Za-z_$][\w$]*$/.test(name) || this.fields.isOwnField(unit, name)) return;
    const writes = (body.match(writesOf(name)) ?? []).length;
    const nulls = (
      body.match(new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\s*=\\s*(null|None|nil)\\b`, 'g')) ?? []
    ).length;
    // One assignment is precise (`s = helperReturningNull()`); several must all be null.
    if (writes > 1 && writes > nulls) return;
    // Assigned here but never a null literal: the null is what a call returned.
    const returned = nulls === 0 && writes > 0;
    this.push(
      {
        rule_id: 'bug/null-dereference',
        category: 'bug',
        severity: 'high',
        confidence: 'high',
        message: `\`${name}\` is null here${returned ? ' (a call returned it)' : ''}, so \`${norm(this.parsed.source, at).slice(0, 60)}\` throws; ${returned ? 'check the returned value' : 'assign it a value first, or test it'} for null before use.`,
        ...locate(this.parsed, at),
        // CWE-690 (a return value dereferenced unchecked) is a kind of 476; a called function's null, or one from
        // a field or a probe, cannot always be told apart, so the general weakness is named.
        cwe: 'CWE-476',
      },
      `null-dereference:${at.startIndex}`,
      probe,
    );
  }

  /** A finding a constant meets inside a called function, reported at the call that passes it. */
  reportThrough(hit: Finding, call: SyntaxNode, method: string, probe?: Finding[]): void {
    const { path, ...rest } = hit;
    const where = path !== undefined && path !== this.path ? `${path} ` : '';
    this.push(
      {
        ...rest,
        message: `${hit.message} (passed to ${method}(), ${where}line ${hit.line})`,
        ...locate(this.parsed, call),
      },
      `${hit.rule_id}:through:${call.startIndex}`,
      probe,
    );
  }

  push(finding: Finding, key: string, probe?: Finding[]): void {
    if (probe) {
      if (probe.length < MAX_FINDINGS)
        probe.push(this.path === undefined ? finding : { ...finding, path: this.path });
      return;
    }
    const at = this.reported.get(key);
    if (at !== undefined) {
      const before = this.findings[at];
      const rank = (f: Finding) => CONFIDENCE_LEVELS.indexOf(f.confidence);
      if (before && rank(finding) > rank(before)) this.findings[at] = finding;
      return;
    }
    if (this.findings.length >= MAX_FINDINGS) return;
    this.reported.set(key, this.findings.length);
    this.findings.push(finding);
  }
}
