/**
 * Resource leaks in Python and Go (rules/resource-leaks-python-go.ts): a file or connection opened into a local that
 * nothing closes is reported on the opening line; `with`, a close in `finally`, `defer f.Close()`, a resource
 * returned or stored elsewhere are not.
 */
import { describe, it } from 'vitest';
import { expectPlacedCase, type PlacedCase } from '../helpers/code-analysis';

const py = (body: string) => `import json\n\n\ndef load(path):\n${body}\n`;
const go = (body: string) => `package store\n\nfunc Load(path string) ([]byte, error) {\n${body}\n}\n`;
const goOpen = '\tf, err := os.Open(path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n';

const CASES: PlacedCase[] = [
  [
    'bug/resource-leak',
    'CWE-775',
    'python',
    py('    f = open(path)\n    return json.load(f)'),
    5,
    py('    with open(path) as f:\n        return json.load(f)'),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'python',
    py('    f = open(path, "w")\n    f.write("ready")'),
    5,
    py('    f = open(path, "w")\n    try:\n        f.write("ready")\n    finally:\n        f.close()'),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'python',
    py('    f = open(path)\n    data = f.read()\n    return data'),
    5,
    py('    f = open(path)\n    return f'),
  ],
  [
    'bug/resource-leak',
    'CWE-772',
    'python',
    py('    conn = sqlite3.connect(path)\n    return conn.execute("SELECT 1").fetchone()'),
    5,
    py(
      '    conn = sqlite3.connect(path)\n    try:\n        return conn.execute("SELECT 1").fetchone()\n    finally:\n        conn.close()',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'go',
    go(`${goOpen}\treturn io.ReadAll(f)`),
    4,
    go(`${goOpen}\tdefer f.Close()\n\treturn io.ReadAll(f)`),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'go',
    go(
      '\tf, err := os.Create(path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\t_, err = f.WriteString("ready")\n\treturn nil, err',
    ),
    4,
    go(
      '\tf, err := os.Create(path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tholder.file = f\n\treturn nil, nil',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-772',
    'go',
    go(
      '\tconn, err := net.Dial("tcp", path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn bufio.NewReader(conn).ReadBytes(10)',
    ),
    4,
    go(
      '\tconn, err := net.Dial("tcp", path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer conn.Close()\n\treturn bufio.NewReader(conn).ReadBytes(10)',
    ),
  ],
];

describe('resource leaks in Python and Go', () => {
  it.each(CASES)('%s (%s) in %s', (...placed) => expectPlacedCase(...placed));
});
