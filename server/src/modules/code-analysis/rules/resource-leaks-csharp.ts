import type { SyntaxNode } from '../parsing/tree';
import { RESOURCE_LEAK } from './resource-leaks';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

/**
 * C# disposables held in a local that nothing disposes (CodeQL cs/local-not-disposed, Roslyn CA2000, SonarSource
 * S2930): `var fs = new FileStream(path, …)` or `var reader = cmd.ExecuteReader()` outside `using` that is never
 * `Dispose()`d or `Close()`d. A disposable returned, stored elsewhere, or handed to another call or constructor (a
 * wrapper that owns it, a method that may keep it) is the receiver's to dispose and is not reported.
 */
const FILES =
  /^(new(FileStream|StreamReader|StreamWriter|BinaryReader|BinaryWriter)|File\.(Open|OpenRead|OpenWrite|OpenText|Create|CreateText|AppendText))$/;
const OTHER =
  /^new(SqlConnection|SqliteConnection|NpgsqlConnection|MySqlConnection|OracleConnection|OleDbConnection|OdbcConnection|TcpClient|UdpClient|Socket|TcpListener)$|\.ExecuteReader(Async)?$/;

/** Objects that use a connection without owning it: a command or adapter leaves the connection to its creator. */
const BORROWERS = /^new(\w*Command|\w*DataAdapter)$/;

/** The constructed type (`new FileStream`) or the invoked method's path (`File.OpenRead`, `cmd.ExecuteReader`). */
function callee(node: SyntaxNode, scope: Scope): string {
  const named =
    node.type === 'object_creation_expression'
      ? `new${scope.text(field(node, 'type') ?? node)}`
      : scope.text(field(node, 'function') ?? node);
  return named.replace(/\s+/g, '').replace(/^newSystem\.(IO|Net\.Sockets|Data\.SqlClient)\./, 'new');
}

/** `var x = <call>;` (an `await` between is fine), not a `using` declaration: the local and its method. */
function declaredLocal(call: SyntaxNode, scope: Scope): { name: string; body: SyntaxNode } | undefined {
  let value = call;
  if (value.parent?.type === 'await_expression') value = value.parent;
  const declarator = value.parent;
  if (declarator?.type !== 'variable_declarator') return;
  const statement = declarator.parent?.parent;
  if (statement?.type !== 'local_declaration_statement') return;
  if (statement.children.some((c) => c.type === 'using')) return;
  const name = field(declarator, 'name');
  const body = scope.enclosing(call, [
    'method_declaration',
    'constructor_declaration',
    'local_function_statement',
    'accessor_declaration',
    'lambda_expression',
  ]);
  return name && body ? { name: scope.text(name), body } : undefined;
}

const within = (n: SyntaxNode, outer: SyntaxNode | undefined) =>
  outer !== undefined && n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;

/** `x.Dispose()`, `x.Close()`, `x?.Dispose()`, or `using (x)` / `using (var y = x)`. */
function released(name: string, body: SyntaxNode, scope: Scope): boolean {
  const close = new RegExp(`^${name}\\??\\.(Dispose|Close|DisposeAsync|CloseAsync)$`);
  return descendants(body, ['invocation_expression', 'using_statement']).some((n) =>
    n.type === 'using_statement'
      ? n.children.some(
          (c) => c.field !== 'body' && descendants(c, ['identifier']).some((i) => scope.text(i) === name),
        )
      : close.test(scope.text(field(n, 'function') ?? n).replace(/\s+/g, '')),
  );
}

/** The local leaves the method: returned, yielded, stored, or passed to a call or constructor. */
function escapes(name: string, body: SyntaxNode, scope: Scope): boolean {
  for (const n of descendants(body, ['identifier'])) {
    if (scope.text(n) !== name) continue;
    for (let p = n.parent; p && p !== body; p = p.parent) {
      if (/^(return_statement|yield_statement|arrow_expression_clause)$/.test(p.type)) return true;
      if (p.type === 'invocation_expression') {
        // A method of the disposable itself (`fs.Read(…)`) uses it; an argument of another call may take it over.
        if (within(n, field(p, 'function'))) break;
        return true;
      }
      if (p.type === 'object_creation_expression') {
        if (BORROWERS.test(callee(p, scope))) break;
        return true;
      }
      if (p.type === 'assignment_expression') {
        if (within(n, field(p, 'left'))) break;
        return true;
      }
      if (p.type === 'variable_declarator') {
        if (within(n, field(p, 'name'))) break;
        return true;
      }
      if (/^(initializer_expression|anonymous_object_creation_expression|tuple_expression)$/.test(p.type))
        return true;
    }
  }
  return false;
}

export const CSHARP_RESOURCE_LEAK_RULES: ScopedRule[] = [
  {
    ...RESOURCE_LEAK,
    nodes: { csharp: ['object_creation_expression', 'invocation_expression'] },
    needles: ['Stream', 'Reader', 'Writer', 'File.', 'Connection', 'Client', 'Socket', 'Listener'],
    test: (call, scope) => {
      const name = callee(call, scope);
      const kind = FILES.test(name) ? 'file' : OTHER.test(name) ? 'other' : undefined;
      const local = kind ? declaredLocal(call, scope) : undefined;
      if (!kind || !local) return;
      if (released(local.name, local.body, scope) || escapes(local.name, local.body, scope)) return;
      return {
        cwe: kind === 'file' ? 'CWE-775' : 'CWE-772',
        detail: `\`${local.name}\` is never disposed; declare it with \`using var ${local.name} = …\` or wrap its use in \`using (…) { }\`.`,
      };
    },
  },
];
