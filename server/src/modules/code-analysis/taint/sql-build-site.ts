/**
 * Where a query reaching a SQL sink was written. A flow into `stmt.execute(sql)` is reported at the sink; when the
 * query text was assembled from the tainted value in an earlier statement (`String sql = "SELECT … " + name;`,
 * `sql += name`, `s"SELECT … $name"`, `String.format("… %s", name)`), that statement is where the injection is
 * written and where a reviewer fixes it (a bound parameter instead of the concatenation). Semgrep's
 * `tainted-sql-string` rules report there, FindSecBugs' SQL_INJECTION points at the built query too; the finding at
 * the sink stays (CodeQL's place), so both ends of the flow carry one.
 *
 * Only a statement whose text shows SQL being built counts: a string literal that starts like a statement
 * (`SELECT … FROM`, `INSERT INTO`, `UPDATE … SET`, `DELETE FROM`) joined to something else, or a compound append
 * (`sql += x`) onto a name that was given such a literal earlier in the flow. A plain copy (`q = input`) is not
 * where anything was built.
 */
import type { TraceStep } from './values';

/** A string literal that opens a SQL statement, in any of the languages' quote styles. */
const SQL_LITERAL =
  /(["'`]|\b[sf]")\s*(select\s[\s\S]*?\bfrom\b|insert\s+into\b|update\s+\w[\w.]*\s+set\b|delete\s+from\b|replace\s+into\b|merge\s+into\b)/i;
/** Text joined into a literal: concatenation, formatting, interpolation. */
const BUILDS =
  /["'`]\s*\+|\+\s*["'`]|\.format\(|\bformat!?\(|Sprintf\(|%\s*\(|\$\{|\$[A-Za-z_]|\\\(|\{\d*\}|f"|\.concat\(|\.append\(/;

/** The text of lines `from`..`to` (1-based, inclusive). */
function linesOf(lines: readonly string[], from: number, to: number): string {
  return lines.slice(from - 1, to).join('\n');
}

/**
 * The step of a SQL flow where the query text was built from the tainted value, when it is another statement than
 * the sink's: the last assignment step before the sink whose text builds SQL.
 */
export function sqlBuildStep(
  lines: readonly string[],
  steps: readonly TraceStep[],
  sink: TraceStep,
): TraceStep | undefined {
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const step = steps[i];
    if (!step || step.path !== sink.path || step.line >= sink.line) continue;
    if (step.note.startsWith('source:') || !/ = …$/.test(step.note)) continue;
    const text = linesOf(lines, step.line, step.end_line);
    if (SQL_LITERAL.test(text) && BUILDS.test(text)) return step;
    // `sql += name`: the name was given a query literal on an earlier line of the flow.
    const target = /^([\w.$]+) = …$/.exec(step.note)?.[1];
    if (target && new RegExp(`\\b${target.replace(/[.$]/g, '\\$&')}\\s*\\+=`).test(text)) {
      const first = steps[0]?.line ?? 1;
      const before = linesOf(lines, Math.min(first, step.line), step.line - 1);
      const given = new RegExp(`\\b${target.replace(/[.$]/g, '\\$&')}\\b[^=\\n]*=[^=\\n]*`, 'g');
      if ((before.match(given) ?? []).some((a) => SQL_LITERAL.test(a))) return step;
    }
    return undefined;
  }
  return undefined;
}
