import { CodeAnalysis, CodeProjectAnalysis, type Finding } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { analysisEndpoint } from '../helpers/analyze-endpoint';

const endpoint = analysisEndpoint();

function analyze(body: unknown): Promise<Response> {
  return endpoint.post(body);
}

async function issuesOf(body: Record<string, unknown>): Promise<Finding[]> {
  const res = await analyze({ analysis_type: 'security', ...body });
  expect(res.status).toBe(200);
  return CodeAnalysis.parse(await res.json()).issues;
}

const seen = (issues: Finding[]) => issues.map((i) => `${i.line} ${i.rule_id} ${i.confidence}`);

// A query and a command built from values nobody proved to be input (audit), a parameter built into a query
// (medium), and input from the request (high).
const PYTHON = `import os
import subprocess
from flask import request

def lookup(conn, name):
    conn.execute("SELECT * FROM users WHERE name = '%s'" % name)

def report(conn):
    owner = current_owner()
    conn.execute("SELECT * FROM reports WHERE owner = '" + owner + "'")
    subprocess.call("tar czf backup.tgz " + owner, shell=True)
    conn.execute("SELECT * FROM reports WHERE owner = ?", (owner,))
    os.system("uptime")

def search(conn):
    conn.execute("SELECT * FROM items WHERE q = '" + request.args["q"] + "'")
`;

describe('min_confidence', () => {
  it('defaults to medium: proven flows and parameters built into queries, no audit findings', async () => {
    expect(seen(await issuesOf({ code: PYTHON, language: 'python' }))).toEqual([
      '6 security/sql-injection medium',
      '16 security/sql-injection high',
    ]);
  });

  it('low adds audit findings: queries and commands built from values of unknown origin', async () => {
    const issues = await issuesOf({ code: PYTHON, language: 'python', min_confidence: 'low' });
    expect(seen(issues)).toEqual([
      '6 security/sql-injection medium',
      '10 security/sql-injection low',
      '11 security/command-injection low',
      '16 security/sql-injection high',
    ]);
    expect(issues[1]?.message).toContain('unknown origin');
    // Bound parameters and a constant command line stay quiet even here.
    expect(issues.some((i) => i.line === 12 || i.line === 13)).toBe(false);
  });

  it('high keeps proven flows only', async () => {
    expect(seen(await issuesOf({ code: PYTHON, language: 'python', min_confidence: 'HIGH' }))).toEqual([
      '16 security/sql-injection high',
    ]);
  });

  it('audits Go and Java sinks the way gosec and FindSecBugs read them', async () => {
    const go = `package main

import (
	"database/sql"
	"fmt"
	"os/exec"
)

func run(db *sql.DB, table string) {
	db.Query(fmt.Sprintf("SELECT * FROM %s", lookup()))
	exec.Command(lookup()).Run()
	exec.Command("ls", "-l").Run()
	db.Query("SELECT * FROM t WHERE id = ?", table)
	db.Query(fmt.Sprintf("SELECT * FROM reports;"))
	db.Model(&reports).WhereOr(fmt.Sprintf("owner = '%s'", lookup())).Select()
}
`;
    // A format with nothing to format is constant; go-pg's WhereOr takes SQL.
    expect(seen(await issuesOf({ code: go, language: 'go', min_confidence: 'low' }))).toEqual([
      '10 security/sql-injection low',
      '11 security/command-injection low',
      '15 security/sql-injection low',
    ]);
    const java = `class Reports {
  void run(java.sql.Statement st) throws Exception {
    String owner = lookup();
    st.executeQuery("SELECT * FROM reports WHERE owner = '" + owner + "'");
    st.executeQuery("SELECT * FROM reports");
  }
}
`;
    expect(seen(await issuesOf({ code: java, language: 'java', min_confidence: 'low' }))).toEqual([
      '4 security/sql-injection low',
    ]);
  });

  it('applies to projects too', async () => {
    const res = await analyze({
      files: [{ path: 'app/report.py', code: PYTHON }],
      analysis_type: 'security',
      min_confidence: 'low',
    });
    expect(res.status).toBe(200);
    const body = CodeProjectAnalysis.parse(await res.json());
    expect(body.issues.filter((i) => i.confidence === 'low')).toHaveLength(2);
    expect(body.summary.issues).toBe(4);
  });

  it('400 invalid_value for anything else, listing the values', async () => {
    for (const value of ['certain', 42]) {
      const res = await analyze({ code: 'x = 1', language: 'python', min_confidence: value });
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { param: string; code: string; message: string } };
      expect(error.param).toBe('min_confidence');
      if (typeof value === 'string') {
        expect(error.code).toBe('invalid_value');
        expect(error.message).toContain('low, medium, high');
      }
    }
  });
});
