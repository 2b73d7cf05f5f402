import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import type { ParsedSource } from '../parsing/parse';
import { childByField, walk } from '../parsing/tree';
import type { PythonCallRule } from './python-call-rule';
import { PYTHON_CRYPTO_CALLS } from './python-crypto-calls';
import { nodeText, pythonCalls } from './python-imports';
import { PYTHON_RISKY_CALLS } from './python-risky-calls';
import { PYTHON_WEB_CALLS } from './python-web-calls';

export type { PythonCallRule } from './python-call-rule';

export const PYTHON_CALL_RULES: PythonCallRule[] = [
  ...PYTHON_CRYPTO_CALLS,
  ...PYTHON_RISKY_CALLS,
  ...PYTHON_WEB_CALLS,
];

export function pythonCallFindings(parsed: ParsedSource): Finding[] {
  if (parsed.language !== 'python') return [];
  const active = PYTHON_CALL_RULES.filter(
    (r) => !r.needles || r.needles.some((n) => parsed.source.includes(n)),
  );
  const out: Finding[] = cleartextClientImports(parsed);
  const seen = new Set<string>();
  for (const call of pythonCalls(parsed)) {
    for (const rule of active) {
      if (!rule.callee.test(call.name)) continue;
      const verdict = rule.judge ? rule.judge(call, parsed) : true;
      if (verdict === false) continue;
      const key = `${rule.id}:${call.node.startIndex}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const text = nodeText(parsed, call.node).split('\n', 1)[0] ?? '';
      out.push({
        rule_id: rule.id,
        category: 'security',
        severity: rule.severity,
        confidence: verdict === true ? rule.confidence : verdict,
        message: rule.message.replaceAll('{call}', text.length > 80 ? `${text.slice(0, 80)}…` : text),
        ...locate(parsed, call.node),
        cwe: rule.cwe,
      });
    }
  }
  return out;
}

/**
 * `from ftplib import FTP` names the cleartext client itself. security/cleartext-protocol-module (network.ts)
 * reports the module import but keeps quiet in a file that uses FTP_TLS, where importing ftplib may be for TLS.
 */
function cleartextClientImports(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('FTP_TLS')) return [];
  const out: Finding[] = [];
  walk(parsed.root, (node) => {
    if (node.type !== 'import_from_statement') return true;
    const module = childByField(node, 'module_name');
    if (!module || nodeText(parsed, module) !== 'ftplib') return false;
    for (const name of node.children.filter((c) => c.field === 'name')) {
      const imported = name.type === 'aliased_import' ? childByField(name, 'name') : name;
      if (!imported || nodeText(parsed, imported) !== 'FTP') continue;
      out.push({
        rule_id: 'security/cleartext-protocol-module',
        category: 'security',
        severity: 'high',
        confidence: 'medium',
        message:
          '`FTP` is the cleartext FTP client, which sends credentials and data unencrypted; use FTP_TLS (and call prot_p()) or SFTP.',
        ...locate(parsed, imported),
        cwe: 'CWE-319',
      });
    }
    return false;
  });
  return out;
}
