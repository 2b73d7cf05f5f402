/** Constant arguments checked at a call: values the catalogue flags, and URLs that send the request in clear. */
import { locate } from '../../findings';
import type { SyntaxNode } from '../../parsing/tree';
import { cleartextRequest } from '../../rules/cleartext-urls';
import type { Val } from '../values';
import type { WalkState } from './state';

/** A constant argument the catalogue checks (a weak algorithm named, a literal password). */
export function checkValues(
  s: WalkState,
  call: SyntaxNode,
  callee: string,
  typed: string | undefined,
  vals: Val[],
): void {
  if (!s.reporting && !s.probe) return;
  for (const check of s.ctx.lang.valueChecks ?? []) {
    if (!check.callee.test(callee) && !(typed && check.callee.test(typed))) continue;
    const raw = vals[check.arg]?.constant?.value;
    const v = typeof raw === 'number' ? String(raw) : raw;
    if (typeof v !== 'string' || !check.value.test(v)) continue;
    s.ctx.push(
      {
        rule_id: check.rule,
        category: 'security',
        severity: check.severity,
        confidence: 'high',
        message: check.message.replace('{value}', v.slice(0, 60)),
        ...locate(s.ctx.parsed, call),
        cwe: check.cwe,
      },
      `${check.rule}:${call.startIndex}`,
      s.probe,
    );
  }
}

/**
 * A client called with a cleartext URL held in a variable (`url = "http://…"; requests.post(url)`); a literal
 * written in the call is the rule `security/cleartext-request`'s.
 */
export function checkCleartext(
  s: WalkState,
  call: SyntaxNode,
  callee: string,
  vals: Val[],
  confidence: 'high' | 'medium' = 'high',
): void {
  if (!s.reporting) return;
  const text = s.ctx.parsed.source.slice(call.startIndex, call.endIndex);
  for (const v of vals) {
    const url = v.constant?.value;
    if (typeof url !== 'string' || text.includes(url) || !cleartextRequest(callee, `"${url}"`)) continue;
    s.ctx.push(
      {
        rule_id: 'security/cleartext-request',
        category: 'security',
        severity: 'medium',
        confidence,
        message: `\`${callee.slice(0, 60)}\` sends the request in clear (${url.slice(0, 80)}): anyone on the path can read and change it; use https:// (wss://, SFTP/FTPS).`,
        ...locate(s.ctx.parsed, call),
        cwe: 'CWE-319',
      },
      `cleartext:${call.startIndex}`,
    );
    return;
  }
}
