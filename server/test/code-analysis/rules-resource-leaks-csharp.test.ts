/**
 * C# disposables held in a local nothing disposes (rules/resource-leaks-csharp.ts): reported on the line that
 * creates them; `using var`, `using (…)`, `Dispose()`/`Close()` (in `finally` or not), and a disposable returned or
 * handed to a wrapper are not.
 */
import { describe, it } from 'vitest';
import { expectPlacedCase, type PlacedCase } from '../helpers/code-analysis';

const cs = (body: string) =>
  `using System.IO;\n\npublic class Store\n{\n    public string Load(string path)\n    {\n${body}\n    }\n}\n`;

const CASES: PlacedCase[] = [
  [
    'bug/resource-leak',
    'CWE-775',
    'csharp',
    cs('        var reader = new StreamReader(path);\n        return reader.ReadToEnd();'),
    7,
    cs('        using var reader = new StreamReader(path);\n        return reader.ReadToEnd();'),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'csharp',
    cs('        var stream = File.OpenRead(path);\n        stream.ReadByte();\n        return path;'),
    7,
    cs(
      '        var stream = File.OpenRead(path);\n        try\n        {\n            stream.ReadByte();\n        }\n        finally\n        {\n            stream.Dispose();\n        }\n        return path;',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-775',
    'csharp',
    cs(
      '        var stream = new FileStream(path, FileMode.Open);\n        stream.ReadByte();\n        return path;',
    ),
    7,
    cs(
      '        var stream = new FileStream(path, FileMode.Open);\n        using (var reader = new StreamReader(stream))\n        {\n            return reader.ReadToEnd();\n        }',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-772',
    'csharp',
    cs(
      '        var connection = new SqlConnection(path);\n        connection.Open();\n        var command = new SqlCommand("SELECT name FROM settings", connection);\n        return (string)command.ExecuteScalar();',
    ),
    7,
    cs(
      '        using (var connection = new SqlConnection(path))\n        {\n            connection.Open();\n            var command = new SqlCommand("SELECT name FROM settings", connection);\n            return (string)command.ExecuteScalar();\n        }',
    ),
  ],
  [
    'bug/resource-leak',
    'CWE-772',
    'csharp',
    cs(
      '        var command = new SqlCommand("SELECT name FROM settings", Db.Connection);\n        var rows = command.ExecuteReader();\n        rows.Read();\n        return rows.GetString(0);',
    ),
    8,
    cs(
      '        var command = new SqlCommand("SELECT name FROM settings", Db.Connection);\n        using var rows = command.ExecuteReader();\n        rows.Read();\n        return rows.GetString(0);',
    ),
  ],
];

describe('resource leaks in C#', () => {
  it.each(CASES)('%s (%s) in %s', (...placed) => expectPlacedCase(...placed));
});
