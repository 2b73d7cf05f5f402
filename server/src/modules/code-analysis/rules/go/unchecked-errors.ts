import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import { callParts, field, finding, namedChildren, nodesOf, textOf } from './syntax';

/**
 * Errors dropped (CWE-703, gosec G104, errcheck): a call whose only or last result is an `error`, made as a
 * statement or assigned to `_` alone. Without types, the calls known to return one are the file's own functions
 * declared with an `error` result and the os/ioutil file-system calls whose failure leaves the disk other than the
 * code assumes. Methods are not resolved, so the calls errcheck's and gosec's default lists excuse (fmt.Print*,
 * bytes.Buffer and strings.Builder writes, hash.Hash writes) never reach this rule; `v, _ := f()` keeps a value and
 * drops the error on purpose, as gosec reads it, and is not reported either.
 */

const FILE_SYSTEM =
  /^(os\.(WriteFile|Remove|RemoveAll|Mkdir|MkdirAll|Chmod|Chown|Lchown|Chtimes|Rename|Setenv|Unsetenv|Chdir|Symlink|Link|Truncate)|ioutil\.WriteFile)$/;

/** Names of the file's functions whose last result is `error`. */
function errorReturning(parsed: ParsedSource): Set<string> {
  const out = new Set<string>();
  for (const fn of nodesOf(parsed.root, 'function_declaration')) {
    const result = field(fn, 'result');
    if (!result) continue;
    const types =
      result.type === 'parameter_list'
        ? namedChildren(result).map((p) => textOf(parsed, field(p, 'type') ?? p))
        : [textOf(parsed, result)];
    const name = field(fn, 'name');
    if (name && types.at(-1) === 'error') out.add(textOf(parsed, name));
  }
  return out;
}

export function uncheckedErrors(parsed: ParsedSource): Finding[] {
  const local = errorReturning(parsed);
  const returnsError = (call: SyntaxNode) => {
    const { callee } = callParts(parsed, call);
    return local.has(callee) || FILE_SYSTEM.test(callee);
  };
  const dropped: SyntaxNode[] = [];
  for (const s of nodesOf(parsed.root, 'expression_statement')) {
    const call = namedChildren(s)[0];
    if (call?.type === 'call_expression' && returnsError(call)) dropped.push(call);
  }
  for (const a of nodesOf(parsed.root, 'assignment_statement')) {
    const left = namedChildren(field(a, 'left'));
    const right = namedChildren(field(a, 'right'));
    const call = right[0];
    if (left.length === 1 && right.length === 1 && textOf(parsed, left[0] as SyntaxNode) === '_')
      if (call?.type === 'call_expression' && returnsError(call)) dropped.push(call);
  }
  return dropped.map((call) =>
    finding(parsed, call, {
      rule_id: 'bug/unchecked-error',
      category: 'bug',
      severity: 'low',
      confidence: 'medium',
      cwe: 'CWE-703',
      message: `The error \`${callParts(parsed, call).callee}\` returns is dropped, so a failure goes unnoticed and the code carries on as if it had succeeded; check it, or return it to the caller.`,
    }),
  );
}
