// Fails CI on a skipped test that .ci/expected-skips.json does not list for that pass, and prints every skip with
// its reason, so a missing prerequisite (Chromium, a corpus, a service) shows up as a failure instead of a count.
// Usage: node .ci/check-skips.mjs <pass>=<vitest json report> ...
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const expected = JSON.parse(readFileSync(path.join(root, '.ci/expected-skips.json'), 'utf8'));
let unexpected = 0;
for (const arg of process.argv.slice(2)) {
  const [pass, report] = arg.split('=');
  const allowed = new Map((expected[pass] ?? []).map((e) => [e.file, e.reason]));
  const results = JSON.parse(readFileSync(report, 'utf8'));
  const byFile = new Map();
  for (const file of results.testResults) {
    const rel = path.relative(root, file.name);
    for (const t of file.assertionResults) {
      if (t.status !== 'pending' && t.status !== 'skipped' && t.status !== 'todo') continue;
      byFile.set(rel, [...(byFile.get(rel) ?? []), t.fullName]);
    }
  }
  for (const [file, names] of byFile) {
    const reason = allowed.get(file);
    if (reason) {
      console.log(`${pass}: ${names.length} skipped in ${file} (expected: ${reason})`);
      continue;
    }
    unexpected += names.length;
    for (const name of names) console.error(`${pass}: UNEXPECTED skip in ${file}: ${name}`);
  }
}
if (unexpected > 0) {
  console.error(
    `${unexpected} unexpected skipped test(s): a prerequisite is missing, or list the skip with its reason in .ci/expected-skips.json`,
  );
  process.exit(1);
}
