import type { ParsedSource } from '../parsing/parse';
import type { PythonCallRule } from './python-call-rule';
import { nodeText, type PythonCall } from './python-imports';

/** A keyword's text, or, when it names a dict the file assigns (`options=opts`), that assignment's text. */
function keywordText(parsed: ParsedSource, call: PythonCall, name: string): string | undefined {
  const value = call.keywords.get(name);
  if (!value) return undefined;
  const text = nodeText(parsed, value);
  if (value.type !== 'identifier') return text;
  const bound = new RegExp(`^\\s*${text}\\s*=\\s*(\\{[^}]*\\}|\\[[^\\]]*\\]|.+)$`, 'm').exec(parsed.source);
  return bound?.[1] ?? text;
}

/** `"*"`, `["*"]`, `r".*"`: every origin. */
const ANY_ORIGIN = /^\s*\[?\s*r?["'](\*|\.\*)["']\s*\]?\s*$/;
const TRUE = /^(True|1)$/;

/** What flask-cors allows as origins: the `origins` keyword, else the first `"origins"` of `resources`, else `*`. */
function corsOrigins(parsed: ParsedSource, call: PythonCall): string {
  const origins = keywordText(parsed, call, 'origins');
  if (origins !== undefined) return origins;
  const resources = keywordText(parsed, call, 'resources') ?? '';
  return /["']origins["']\s*:\s*(\[[^\]]*\]|r?["'][^"']*["'])/.exec(resources)?.[1] ?? '"*"';
}

/**
 * Web-security settings made in Python calls: PyJWT / python-jose `decode` told not to verify the signature or to
 * accept the `none` algorithm (Semgrep's python.jwt rules, CWE-347), and flask-cors allowing credentialed requests
 * from any origin (flask-cors then echoes the caller's Origin; CWE-942), whose default `origins` is `*`.
 */
export const PYTHON_WEB_CALLS: PythonCallRule[] = [
  {
    id: 'security/jwt-signature-not-verified',
    needles: ['jwt'],
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-347',
    message:
      '`{call}` accepts a token without verifying its signature, so anyone can forge its claims; pass the key and a fixed list of algorithms (algorithms=["HS256"]).',
    callee: /^(jwt|jose\.jwt|jwt\.api_jwt|jwt\.api_jws)\.(decode|decode_complete)$/,
    judge: (call, parsed) => {
      const options = keywordText(parsed, call, 'options') ?? '';
      if (/["']verify_signature["']\s*:\s*(False|0)\b/.test(options)) return true;
      // PyJWT before 2.0: decode(token, verify=False).
      if (/^(False|0)$/.test(keywordText(parsed, call, 'verify') ?? '')) return true;
      return /["']none["']/i.test(keywordText(parsed, call, 'algorithms') ?? '');
    },
  },
  {
    id: 'security/cors-permissive',
    needles: ['CORS', 'cross_origin'],
    severity: 'high',
    confidence: 'high',
    cwe: 'CWE-942',
    message:
      '`{call}` lets any web site make credentialed requests and read the answers (flask-cors echoes its Origin); list the allowed origins.',
    callee: /^flask_cors\.(CORS|cross_origin)$/,
    judge: (call, parsed) =>
      TRUE.test(keywordText(parsed, call, 'supports_credentials') ?? '') &&
      ANY_ORIGIN.test(corsOrigins(parsed, call)),
  },
];
