import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SarifLog } from '@tessera/shared';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { analysisEndpoint } from '../helpers/analyze-endpoint';

// The OASIS SARIF 2.1.0 schema as Microsoft's SARIF SDK ships it (draft-04, hence ajv-draft-04).
const schemaPath = createRequire(import.meta.url).resolve(
  '@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json',
);
// The schema's `language` pattern (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) is not valid with the `u` flag.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));

const endpoint = analysisEndpoint();

async function sarifOf(body: unknown): Promise<SarifLog> {
  const res = await endpoint.post(body);
  expect(res.status).toBe(200);
  const log: unknown = await res.json();
  expect(validate(log), JSON.stringify(validate.errors, null, 1)).toBe(true);
  return SarifLog.parse(log);
}

const VIEW = `import hashlib
from flask import request

def search(conn):
    term = request.args["q"]
    conn.execute("SELECT * FROM items WHERE name = '" + term + "'")
    conn.execute("SELECT * FROM items WHERE name = '" + term + "'")
    return hashlib.md5(term.encode()).hexdigest()
`;

describe('format: sarif', () => {
  it('a single file: rules with CWE tags and security-severity, results with locations and code flows', async () => {
    const log = await sarifOf({ code: VIEW, language: 'python', filename: 'app/views.py', format: 'sarif' });
    expect(log.version).toBe('2.1.0');
    const [run] = log.runs;
    expect(run?.tool.driver.name).toBe('Tessera');
    const sql = run?.tool.driver.rules.find((r) => r.id === 'security/sql-injection');
    expect(sql?.shortDescription.text).toBe('SQL injection');
    expect(sql?.properties.tags).toEqual(['security', 'external/cwe/cwe-89']);
    expect(sql?.properties['security-severity']).toBe('9.5');
    const results = run?.results.filter((r) => r.ruleId === 'security/sql-injection') ?? [];
    expect(results).toHaveLength(2);
    const [first, second] = results;
    expect(first?.level).toBe('error');
    expect(first?.locations[0]?.physicalLocation).toMatchObject({
      artifactLocation: { uri: 'app/views.py' },
      region: { startLine: 6, startColumn: 5, endLine: 6 },
    });
    const flow = first?.codeFlows?.[0]?.threadFlows[0]?.locations ?? [];
    expect(flow.map((l) => l.location.physicalLocation.region.startLine)).toEqual([5, 5, 6]);
    expect(flow[0]?.location.message?.text).toContain('source');
    // The same line twice: the same base hash, told apart by occurrence.
    const [a, b] = [first, second].map((r) => (r?.partialFingerprints['tessera/v1'] ?? '').split(':'));
    expect(a?.[0]).toBe(b?.[0]);
    expect([a?.[1], b?.[1]]).toEqual(['1', '2']);
    expect(run?.results.some((r) => r.ruleId === 'security/weak-hash')).toBe(true);
  });

  it('fingerprints survive unrelated edits above the finding', async () => {
    const fp = async (code: string) =>
      (
        await sarifOf({ code, language: 'python', filename: 'app/views.py', format: 'sarif' })
      ).runs[0]?.results
        .filter((r) => r.ruleId === 'security/sql-injection')
        .map((r) => r.partialFingerprints['tessera/v1']);
    expect(await fp(`# a comment\n\n${VIEW}`)).toEqual(await fp(VIEW));
  });

  it('a project: each result points at its own file, audit findings when asked', async () => {
    const log = await sarifOf({
      files: [
        {
          path: 'src/db.py',
          code: 'def find(conn, name):\n    conn.execute("SELECT * FROM t WHERE n = \'%s\'" % name)\n',
        },
        {
          path: 'src/jobs/run job.py',
          code: 'import os\n\ndef run():\n    os.system("make " + current_target())\n',
        },
      ],
      format: 'sarif',
      min_confidence: 'low',
    });
    const uris = log.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation.artifactLocation.uri);
    expect(uris).toEqual(['src/db.py', 'src/jobs/run%20job.py']);
    expect(log.runs[0]?.results.map((r) => r.properties.confidence)).toEqual(['medium', 'low']);
  });

  it('no findings: an empty run that is still a valid log', async () => {
    const log = await sarifOf({ code: 'x = 1\n', language: 'python', format: 'SARIF' });
    expect(log.runs[0]?.results).toEqual([]);
    expect(log.runs[0]?.tool.driver.rules).toEqual([]);
  });

  it('400 invalid_value for an unknown format', async () => {
    const res = await endpoint.post({ code: 'x = 1', language: 'python', format: 'xml' });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { param: string; code: string; message: string } };
    expect(error).toMatchObject({ param: 'format', code: 'invalid_value' });
    expect(error.message).toContain('json, sarif');
  });
});
