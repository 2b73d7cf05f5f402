import type { SyntaxNode } from '../parsing/tree';
import { argumentsOf, assignedName, callsOn, escapes, localDeclaration } from './java-scope';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

/** Classes whose constructor opens a file handle (CWE-775 when never closed). */
const FILE_HANDLES =
  /^(java\.io\.)?(FileInputStream|FileOutputStream|FileReader|FileWriter|RandomAccessFile)$|^(java\.util\.zip\.)?ZipFile$|^(java\.util\.jar\.)?JarFile$/;
/** Classes whose constructor opens another operating-system resource (CWE-772). */
const OTHER_RESOURCES = /^(java\.net\.)?(Socket|ServerSocket|DatagramSocket|MulticastSocket)$/;
/** Calls that return an open file handle. */
const FILE_CALLS =
  /^(java\.nio\.file\.)?Files\.(newInputStream|newOutputStream|newBufferedReader|newBufferedWriter|newByteChannel)$/;
/** Calls that return a connection, statement, result set or accepted socket, by method name. */
const RESOURCE_METHODS = /^(getConnection|prepareStatement|prepareCall|createStatement|executeQuery|accept)$/;
/** Wrappers that own the stream they are given: closing them closes it. */
const WRAPPERS =
  /^(java\.io\.)?(Buffered(Reader|Writer|InputStream|OutputStream)|InputStreamReader|OutputStreamWriter|PrintWriter|PrintStream|DataInputStream|DataOutputStream|ObjectInputStream|ObjectOutputStream|LineNumberReader|PushbackInputStream|PushbackReader)$|^(java\.util\.zip\.)?(GZIP|Zip|Inflater|Deflater)(Input|Output)Stream$|^(java\.util\.)?Scanner$/;

const typeName = (creation: SyntaxNode, scope: Scope): string =>
  scope.text(field(creation, 'type') ?? creation).replace(/<.*$/s, '');

/** What an expression opens: a file handle (775), another resource (772), or nothing. */
function opens(node: SyntaxNode, scope: Scope): 'file' | 'other' | undefined {
  if (node.type === 'object_creation_expression') {
    const type = typeName(node, scope);
    if (FILE_HANDLES.test(type)) return 'file';
    if (OTHER_RESOURCES.test(type)) return argumentsOf(node).length > 0 ? 'other' : undefined;
    return undefined;
  }
  if (node.type !== 'method_invocation') return undefined;
  const callee = scope.text(node).replace(/\s+/g, '').replace(/\(.*$/s, '');
  if (FILE_CALLS.test(callee)) return 'file';
  return RESOURCE_METHODS.test(scope.text(field(node, 'name') ?? node)) && field(node, 'object')
    ? 'other'
    : undefined;
}

/** The expression whose value ends up in a local: the opening call itself, or a wrapper built around it inline. */
function outermostWrapper(node: SyntaxNode, scope: Scope): SyntaxNode {
  let n = node;
  for (;;) {
    const args = n.parent;
    const creation = args?.parent;
    if (args?.type !== 'argument_list' || creation?.type !== 'object_creation_expression') return n;
    if (!WRAPPERS.test(typeName(creation, scope))) return n;
    n = creation;
  }
}

/**
 * The locals that own the resource in `name`: itself, wrappers built around it (`new BufferedReader(reader)`),
 * and the resources it was obtained from (closing a JDBC connection closes its statements and result sets).
 */
function owners(name: string, block: SyntaxNode, scope: Scope): Set<string> {
  const group = new Set([name]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const d of descendants(block, ['variable_declarator', 'assignment_expression'])) {
      const target = d.type === 'variable_declarator' ? field(d, 'name') : field(d, 'left');
      const value = d.type === 'variable_declarator' ? field(d, 'value') : field(d, 'right');
      if (target?.type !== 'identifier' || !value) continue;
      const holder = scope.text(target);
      if (value.type === 'object_creation_expression' && WRAPPERS.test(typeName(value, scope))) {
        const inner = argumentsOf(value)[0];
        if (inner && group.has(scope.text(inner)) && !group.has(holder)) {
          group.add(holder);
          changed = true;
        }
      }
      if (value.type === 'method_invocation' && group.has(holder)) {
        const from = field(value, 'object');
        if (from?.type === 'identifier' && !group.has(scope.text(from)) && opens(value, scope)) {
          group.add(scope.text(from));
          changed = true;
        }
      }
    }
  }
  return group;
}

/** The `close()` calls (or `closeQuietly(x)`) that release any of the owners. */
function closes(group: Set<string>, block: SyntaxNode, scope: Scope): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const name of group)
    out.push(
      ...callsOn(block, name, scope)
        .filter((c) => c.method === 'close')
        .map((c) => c.call),
    );
  for (const call of descendants(block, ['method_invocation']))
    if (
      /^close(Quietly)?$/.test(scope.text(field(call, 'name') ?? call)) &&
      argumentsOf(call).some((a) => group.has(scope.text(a)))
    )
      out.push(call);
  return out;
}

const inFinally = (node: SyntaxNode, block: SyntaxNode): boolean => {
  for (let p = node.parent; p && p !== block; p = p.parent) if (p.type === 'finally_clause') return true;
  return false;
};

/**
 * Resources opened and not released on every path (SpotBugs OBL/OS_OPEN_STREAM/ODR_OPEN_DATABASE_RESOURCE,
 * SonarSource S2095, CodeQL java/input-resource-leak and java/database-resource-leak): a stream, reader, zip file,
 * socket, connection, statement or result set stored in a local that nothing closes (CWE-775 for file handles,
 * CWE-772 otherwise), or closes only on the normal path, outside `finally` (CWE-404). Try-with-resources, a close in
 * `finally`, closing a wrapper or the connection a statement came from release it; a resource returned, stored in
 * a field or handed to another method is the receiver's to close and is not reported.
 */
/** What every language's resource-leak rule reports as (the CWE is 775 for file handles, set per finding). */
export const RESOURCE_LEAK: Pick<
  ScopedRule,
  'id' | 'category' | 'severity' | 'confidence' | 'cwe' | 'message'
> = {
  id: 'bug/resource-leak',
  category: 'bug',
  severity: 'medium',
  confidence: 'medium',
  cwe: 'CWE-772',
  message: '{detail}',
};

export const RESOURCE_LEAK_RULES: ScopedRule[] = [
  {
    ...RESOURCE_LEAK,
    nodes: { java: ['object_creation_expression', 'method_invocation'] },
    test: (node, scope) => {
      const kind = opens(node, scope);
      if (!kind) return;
      const name = assignedName(outermostWrapper(node, scope), scope);
      const local = name ? localDeclaration(name, node, scope) : undefined;
      if (!name || !local) return;
      const group = owners(name, local.block, scope);
      if ([...group].some((n) => escapes(n, local.block, scope))) return;
      const released = closes(group, local.block, scope);
      const what = kind === 'file' ? 'file handle' : 'resource';
      if (released.length === 0)
        return {
          cwe: kind === 'file' ? 'CWE-775' : 'CWE-772',
          detail: `The ${what} opened here (\`${name}\`) is never closed; open it in a try-with-resources statement.`,
        };
      if (released.some((c) => inFinally(c, local.block))) return;
      return {
        cwe: 'CWE-404',
        detail: `\`${name}\` is closed only when nothing throws first: an exception on the way leaks it. Open it in a try-with-resources statement (or close it in \`finally\`).`,
      };
    },
  },
];
