import type { TraceStep } from '@tessera/shared';

/**
 * A dataflow finding's path: each step's line, what happens to the value there (source, assignment, call,
 * sink) and the line of code itself, quoted from the analysed text.
 */
export function FindingTrace({
  steps,
  code,
  rule,
  line,
}: {
  steps: TraceStep[];
  code: string;
  rule: string;
  line: number;
}) {
  const lines = code.split(/\r?\n/);
  return (
    <ol className="trace" aria-label={`Trace of ${rule} on line ${line}, source to sink`}>
      {steps.map((step, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a trace is fixed once shown; steps may repeat a line
        <li key={i}>
          <span className="trace-line">line {step.line}</span> <span className="trace-note">{step.note}</span>
          {lines[step.line - 1] !== undefined && (
            <code className="trace-code">{lines[step.line - 1]?.trim()}</code>
          )}
        </li>
      ))}
    </ol>
  );
}
