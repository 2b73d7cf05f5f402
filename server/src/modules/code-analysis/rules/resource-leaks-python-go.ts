import type { SyntaxNode } from '../parsing/tree';
import { RESOURCE_LEAK } from './resource-leaks';
import { descendants, field, type Scope, type ScopedRule } from './scoped';

/**
 * Python and Go files and connections opened into a local that nothing closes (Pylint consider-using-with, CodeQL
 * py/file-not-closed, SonarSource S2095, staticcheck's unclosed-file checks): `f = open(path)` never given to `with`
 * or `f.close()`, `f, err := os.Open(path)` never `f.Close()`d (deferred or not). A resource returned, stored
 * elsewhere or handed to a function that may keep it is the receiver's to close and is not reported; readers that
 * only consume it (`json.load(f)`, `io.Copy(dst, f)`, `bufio.NewScanner(f)`) do not take it over.
 */
interface LeakLanguage {
  /** The call opens a file handle (CWE-775) or another resource (CWE-772). */
  opens: (callee: string) => 'file' | 'other' | undefined;
  /** The local the call's value is assigned to, and the function (or module) it lives in. */
  target: (call: SyntaxNode, scope: Scope) => { name: string; body: SyntaxNode } | undefined;
  /** Calls that read or write through the resource without owning it. */
  consumers: RegExp;
  calls: string;
  returns: string[];
}

const PY_FILES =
  /^(open|io\.open|codecs\.open|gzip\.open|bz2\.open|lzma\.open|tarfile\.open|zipfile\.ZipFile)$/;
const PY_OTHER =
  /^(socket\.socket|socket\.create_connection|sqlite3\.connect|urllib\.request\.urlopen|urlopen)$/;
const GO_FILES = /^os\.(Open|OpenFile|Create)$/;
const GO_OTHER = /^(net\.(Dial|DialTimeout|Listen)|sql\.Open)$/;

const LANGUAGES: Record<'python' | 'go', LeakLanguage> = {
  python: {
    opens: (c) => (PY_FILES.test(c) ? 'file' : PY_OTHER.test(c) ? 'other' : undefined),
    target: (call, scope) => {
      const assignment = call.parent;
      const left = assignment?.type === 'assignment' ? field(assignment, 'left') : undefined;
      if (
        left?.type !== 'identifier' ||
        field(assignment as SyntaxNode, 'right')?.startIndex !== call.startIndex
      )
        return;
      const body = scope.enclosing(call, ['function_definition', 'module']);
      return body ? { name: scope.text(left), body } : undefined;
    },
    consumers:
      /^(json\.(load|dump)|yaml\.(safe_)?(load|dump)|pickle\.(load|dump)|csv\.(reader|writer|DictReader|DictWriter)|shutil\.copyfileobj|print|tomllib\.load|len|iter|enumerate|next)$/,
    calls: 'call',
    returns: ['return_statement', 'yield'],
  },
  go: {
    opens: (c) => (GO_FILES.test(c) ? 'file' : GO_OTHER.test(c) ? 'other' : undefined),
    target: (call, scope) => {
      const values = call.parent;
      const declaration = values?.parent;
      if (values?.type !== 'expression_list' || !declaration) return;
      if (!/^(short_var_declaration|assignment_statement)$/.test(declaration.type)) return;
      if (field(declaration, 'right')?.startIndex !== values.startIndex) return;
      if (values.children.filter((c) => c.named).length !== 1) return;
      const first = field(declaration, 'left')?.children.find((c) => c.named);
      if (first?.type !== 'identifier' || scope.text(first) === '_') return;
      const body = scope.enclosing(call, ['function_declaration', 'method_declaration', 'func_literal']);
      return body ? { name: scope.text(first), body } : undefined;
    },
    consumers:
      /^(io\.(Copy|CopyN|CopyBuffer|ReadAll|ReadFull|WriteString)|ioutil\.ReadAll|bufio\.New\w*|json\.New(Decoder|Encoder)|xml\.New(Decoder|Encoder)|csv\.New(Reader|Writer)|gzip\.New(Reader|Writer)|yaml\.New(Decoder|Encoder)|fmt\.F\w+)$/,
    calls: 'call_expression',
    returns: ['return_statement', 'go_statement'],
  },
};

/** Nodes that put a value somewhere: an assignment (unless the name is its target), a literal holding it. */
const STORES =
  /^(assignment|augmented_assignment|assignment_statement|short_var_declaration|keyed_element|literal_value|list|dictionary|tuple|pair|set)$/;

const isName = (node: SyntaxNode, name: string, scope: Scope) =>
  node.type === 'identifier' && scope.text(node) === name;

/** `f.close()`, `f.Close()`, `with f:`, `contextlib.closing(f)`: something releases the local. */
function released(name: string, body: SyntaxNode, scope: Scope): boolean {
  const close = new RegExp(`^${name}\\.(close|Close)$`);
  return descendants(body, ['call', 'call_expression', 'with_item']).some((n) =>
    n.type === 'with_item'
      ? scope
          .text(n)
          .split(/\s+as\s+/)[0]
          ?.trim() === name
      : close.test(scope.text(field(n, 'function') ?? n).replace(/\s+/g, '')),
  );
}

/** The local leaves the function: returned, stored elsewhere, or given to a call that is not only a reader. */
function escapes(name: string, body: SyntaxNode, lang: LeakLanguage, scope: Scope): boolean {
  const within = (n: SyntaxNode, outer: SyntaxNode | undefined) =>
    outer !== undefined && n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;
  for (const n of descendants(body, ['identifier'])) {
    if (!isName(n, name, scope)) continue;
    for (let p = n.parent; p && p !== body; p = p.parent) {
      if (lang.returns.includes(p.type)) return true;
      if (p.type === lang.calls) {
        const callee = field(p, 'function');
        // A method of the resource itself (`f.read()`) uses it; an argument of another call may hand it over.
        if (within(n, callee)) break;
        if (lang.consumers.test(scope.text(callee ?? p).replace(/\s+/g, ''))) break;
        return true;
      }
      if (STORES.test(p.type)) {
        if (within(n, field(p, 'left'))) break;
        return true;
      }
    }
  }
  return false;
}

export const PYTHON_GO_RESOURCE_LEAK_RULES: ScopedRule[] = [
  {
    ...RESOURCE_LEAK,
    nodes: { python: ['call'], go: ['call_expression'] },
    needles: ['open', 'Open', 'Create', 'Dial', 'Listen', 'connect', 'socket', 'urlopen', 'ZipFile'],
    test: (call, scope) => {
      const lang = LANGUAGES[scope.language as 'python' | 'go'];
      const kind = lang?.opens(scope.text(field(call, 'function') ?? call).replace(/\s+/g, ''));
      const local = kind ? lang.target(call, scope) : undefined;
      if (!lang || !kind || !local) return;
      if (released(local.name, local.body, scope) || escapes(local.name, local.body, lang, scope)) return;
      const how = scope.language === 'go' ? `defer ${local.name}.Close()` : 'open it in a `with` statement';
      return {
        cwe: kind === 'file' ? 'CWE-775' : 'CWE-772',
        detail: `\`${local.name}\` is never closed; ${how}.`,
      };
    },
  },
];
