import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf, assignedName, callsOn, escapes, localDeclaration, methodOf } from './java-scope';
import { field, type Scope, type ScopedRule } from './scoped';

const PERMISSION_CALLS = /^(setReadable|setWritable|setExecutable)$/;
const SERVLET_PARAMS = /\bHttpServlet(Request|Response)\b/;

/** `File.createTempFile(…)` stored in a local: the local's name, the block it lives in, the call's arguments. */
function tempFile(call: SyntaxNode, scope: Scope) {
  if (!/^(java\.io\.)?File\.createTempFile$/.test(scope.text(call).replace(/\s+/g, '').replace(/\(.*$/s, '')))
    return undefined;
  const name = assignedName(call, scope);
  const local = name ? localDeclaration(name, call, scope) : undefined;
  return name && local ? { name, block: local.block, args: argumentsOf(call) } : undefined;
}

/** Whether the code restricts a file's permissions: `f.setReadable(…)` and the like, or POSIX permissions. */
const restricted = (name: string, block: SyntaxNode, scope: Scope): boolean =>
  callsOn(block, name, scope).some((c) => PERMISSION_CALLS.test(c.method)) ||
  /\bsetPosixFilePermissions\s*\(/.test(scope.text(block));

/**
 * Temporary files (CodeQL java/local-temp-file-or-directory-information-disclosure, SonarSource S5443): created with
 * the default permissions, which let other local users read them (CWE-378); created in a directory this code makes
 * with default permissions (CWE-379); never deleted, or deleted only when a server's JVM exits (CWE-459).
 * `Files.createTempFile` creates owner-only files and is not reported.
 */
export const TEMP_FILE_RULES: ScopedRule[] = [
  {
    id: 'security/temp-file-permissions',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-378',
    message:
      '`{detail}` is created with default permissions, readable by other local users; restrict them (`setReadable(true, true)`, `setWritable(true, true)`) or use `Files.createTempFile`, which creates owner-only files.',
    needles: ['createTempFile'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const temp = tempFile(call, scope);
      if (!temp || restricted(temp.name, temp.block, scope)) return;
      return { detail: temp.name };
    },
  },
  {
    id: 'security/temp-file-insecure-directory',
    category: 'security',
    severity: 'medium',
    confidence: 'medium',
    cwe: 'CWE-379',
    message:
      'The temporary file is created in `{detail}`, a directory this code makes with default permissions: other users can read or replace what is in it. Restrict the directory to its owner first.',
    needles: ['createTempFile'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const temp = tempFile(call, scope);
      const dir = temp?.args[2];
      if (!temp || dir?.type !== 'identifier') return;
      const name = scope.text(dir);
      const local = localDeclaration(name, call, scope);
      const block = local?.block ?? methodOf(call, scope);
      if (!block) return;
      const made = callsOn(block, name, scope).some((c) => /^mkdirs?$/.test(c.method));
      return made && !restricted(name, block, scope) ? { detail: name } : undefined;
    },
  },
  {
    id: 'bug/temp-file-not-deleted',
    category: 'bug',
    severity: 'low',
    confidence: 'medium',
    cwe: 'CWE-459',
    message: '{detail}',
    needles: ['createTempFile'],
    nodes: { java: ['method_invocation'] },
    test: (call, scope) => {
      const temp = tempFile(call, scope);
      if (!temp || escapes(temp.name, temp.block, scope)) return;
      const calls = callsOn(temp.block, temp.name, scope);
      if (
        calls.some((c) => c.method === 'delete') ||
        /\bFiles\.delete(IfExists)?\s*\(/.test(scope.text(temp.block))
      )
        return;
      if (!calls.some((c) => c.method === 'deleteOnExit'))
        return {
          detail: `The temporary file \`${temp.name}\` is never deleted: each call leaves one behind. Delete it in a \`finally\` block.`,
        };
      const method = methodOf(call, scope);
      const params = method && field(method, 'parameters');
      // A server's JVM runs for months: deleteOnExit keeps every file (and a record of it in memory) until then.
      return params && SERVLET_PARAMS.test(scope.text(params))
        ? {
            detail: `\`${temp.name}.deleteOnExit()\` in a request handler deletes the file only when the server stops; files (and the JVM's list of them) pile up. Delete it in a \`finally\` block.`,
          }
        : undefined;
    },
  },
];
