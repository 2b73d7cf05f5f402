import type { TraceStep } from '@tessera/shared';
import { type FormEvent, Fragment, useState } from 'react';
import { type Caller, callApi } from '../../lib/api';
import { ScrollRegion } from '../ScrollRegion';
import { FindingTrace } from './FindingTrace';

/** The parts of a code analysis this panel shows (the full contract is in shared/code-analysis). */
interface AnalysisView {
  language: string;
  language_detected: boolean;
  partial: boolean;
  summary: {
    issues: number;
    lines: number;
    functions: number;
    max_cyclomatic: number;
    maintainability_index: number;
  };
  issues: {
    rule_id: string;
    category: string;
    severity: string;
    message: string;
    line: number;
    cwe: string | null;
    /** Dataflow findings: the steps from the untrusted source to the sink. */
    trace?: TraceStep[];
  }[];
}

const SAMPLE = `import hashlib
import sqlite3

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route("/login")
def login():
    name = request.args.get("name", "")
    digest = hashlib.md5(request.args.get("password", "").encode()).hexdigest()
    query = "SELECT id FROM users WHERE name = '" + name + "' AND hash = '" + digest + "'"
    row = sqlite3.connect("app.db").execute(query).fetchone()
    return jsonify(ok=row is not None)
`;

/** Paste code, run the code analysis as the chosen caller, and list the findings. */
export function AnalyzePanel({ caller }: { caller: Caller | null }) {
  const [code, setCode] = useState(SAMPLE);
  const [language, setLanguage] = useState('');
  const [result, setResult] = useState<AnalysisView | null>(null);
  /** The code the result is about: the trace quotes its lines, whatever is typed since. */
  const [analysed, setAnalysed] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const run = async (e: FormEvent) => {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      if (!caller) return;
      const res = await callApi(caller, '/api/code/analyze', { code, ...(language && { language }) });
      setResult((await res.json()) as AnalysisView);
      setAnalysed(code);
    } catch (err) {
      setResult(null);
      setError(err instanceof Error ? err.message : 'The analysis failed.');
    } finally {
      setPending(false);
    }
  };

  return (
    <div>
      <form onSubmit={run}>
        <div className="field">
          <label htmlFor="pg-language">Language</label>
          <input
            id="pg-language"
            value={language}
            placeholder="Detect automatically (or python, ts, go, …)"
            onChange={(e) => setLanguage(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="pg-code">Code</label>
          <textarea
            id="pg-code"
            className="code-input"
            rows={10}
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </div>
        <button type="submit" className="btn btn-primary" disabled={!caller || !code.trim() || pending}>
          {pending ? 'Analysing…' : 'Analyse'}
        </button>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {result && (
        <section aria-label="Analysis result" className="analysis">
          <p>
            <strong>{result.summary.issues}</strong> {result.summary.issues === 1 ? 'finding' : 'findings'} in{' '}
            {result.summary.lines} lines of {result.language}
            {result.language_detected ? ' (detected)' : ''}; {result.summary.functions} functions, max
            cyclomatic complexity {result.summary.max_cyclomatic}, maintainability{' '}
            {Math.round(result.summary.maintainability_index)}.
            {result.partial && ' The code did not fully parse: results cover what could be parsed.'}
          </p>
          {result.issues.length > 0 && (
            <ScrollRegion label="Findings">
              <table>
                <caption className="sr-only">Findings</caption>
                <thead>
                  <tr>
                    <th scope="col">Line</th>
                    <th scope="col">Severity</th>
                    <th scope="col" className="col-category">
                      Category
                    </th>
                    <th scope="col">Finding</th>
                  </tr>
                </thead>
                <tbody>
                  {result.issues.map((f) => (
                    <Fragment key={`${f.rule_id}:${f.line}`}>
                      <tr className={f.trace?.length ? 'has-trace' : undefined}>
                        <td className="num">{f.line}</td>
                        <td>
                          <span className={`severity severity-${f.severity}`}>{f.severity}</span>
                        </td>
                        <td className="col-category">{f.category}</td>
                        <td>
                          {f.message} <code>{f.rule_id}</code>
                          {f.cwe && <span className="muted"> {f.cwe}</span>}
                        </td>
                      </tr>
                      {f.trace && f.trace.length > 0 && (
                        // A row of its own, across the table: on a phone the finding's column is narrow.
                        <tr className="trace-row">
                          <td colSpan={4}>
                            <FindingTrace steps={f.trace} code={analysed} rule={f.rule_id} line={f.line} />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </section>
      )}
    </div>
  );
}
