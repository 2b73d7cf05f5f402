import type { CodeLanguage, Finding, ThreatModel } from '@tessera/shared';
import type { ParsedSource } from '../parsing/parse';
import { type SyntaxNode, walk } from '../parsing/tree';
import { FileContext } from './context';
import { type Imports, readImports } from './imports';
import { taintCatalogue } from './languages';
import { norm } from './syntax';
import type { Summary } from './walk/host';

/** Languages whose files call each other's functions (TypeScript imports JavaScript; C++ calls C). */
const FAMILY: Partial<Record<CodeLanguage, string>> = {
  javascript: 'js',
  typescript: 'js',
  tsx: 'js',
  c: 'c',
  cpp: 'c',
};
const familyOf = (language: CodeLanguage) => FAMILY[language] ?? language;

/** Declarations whose name qualifies the functions inside (`Util.run`, `new Repo().find`). */
const TYPE_DECLARATION = /class|interface|object|struct|impl|module|trait|enum|namespace/;

interface Defined {
  ctx: FileContext;
  fn: SyntaxNode;
}

/** `src/db.service.ts` → `db.service`. */
function fileStem(path: string): string {
  const base = path.split(/[/\\]/).pop() ?? path;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * The files of a project analysis, for the dataflow: a call that none of its own file's functions answers is
 * resolved to a function of another file of the same language family, and that function's summary (context.ts)
 * applies at the call: an argument it passes to a sink is reported at the call, a sanitiser in it cleans.
 *
 * A call resolves when it can only mean that function:
 * - `Util.run(x)`, `new Util().run(x)`, `u.run(x)` with `u` declared a `Util`: the type `Util` declares `run`;
 * - `db.q(x)` with `db` bound to a module by an import or `require` whose file's stem is the module's: `q` is
 *   that file's (top-level) function;
 * - `q(x)` imported by name (`from db import q`, `import { q } from './db'`): that file's `q`; otherwise, when
 *   exactly one file of the family defines a top-level `q` of that arity (Go packages, C headers, Ruby requires).
 */
export class TaintProject {
  private readonly contexts = new Map<ParsedSource, FileContext>();
  private readonly byName = new Map<string, Defined[]>();
  private readonly imports = new Map<FileContext, Imports>();
  /** Names of the types (classes…) the project's files declare. */
  private readonly types = new Set<string>();

  constructor(files: { path: string; parsed: ParsedSource }[], threatModel: ThreatModel = 'web') {
    for (const { path, parsed } of files) {
      const lang = taintCatalogue(parsed.language, threatModel);
      if (!lang) continue;
      const ctx = new FileContext(parsed, lang, path, this);
      this.contexts.set(parsed, ctx);
      walk(parsed.root, (node) => {
        if (TYPE_DECLARATION.test(node.type) && !/body|declaration_list/.test(node.type)) {
          const name = node.children.find((c) => c.field === 'name');
          if (name) this.types.add(norm(parsed.source, name));
        }
        return true;
      });
      for (const [name, fns] of ctx.functionsByName) {
        const key = `${familyOf(parsed.language)}:${name}`;
        const list = this.byName.get(key) ?? [];
        for (const fn of fns) list.push({ ctx, fn });
        this.byName.set(key, list);
      }
    }
  }

  /** The file's context, shared by all the calls into it. */
  contextOf(parsed: ParsedSource): FileContext | undefined {
    return this.contexts.get(parsed);
  }

  summaryAcross(
    from: FileContext,
    method: string,
    arity: number,
    receiver: string | undefined,
    receiverType: string | undefined,
  ): Summary | undefined {
    const imports = this.importsOf(from);
    const imported = receiver === undefined ? imports.names.get(method) : undefined;
    const name = imported?.name ?? method;
    const candidates = (this.byName.get(`${familyOf(from.parsed.language)}:${name}`) ?? []).filter(
      (d) => d.ctx !== from && d.ctx.functionNamed(name, arity) === d.fn,
    );
    if (candidates.length === 0) return undefined;
    let matching: Defined[];
    if (receiver !== undefined) {
      // `(new Repo()).find(x)` names its type inside the parentheses.
      const typeName = receiverType ?? /^\(?(?:new)?([A-Z]\w*)(?:\(|$)/.exec(receiver)?.[1];
      const module = imports.modules.get(receiver);
      matching = candidates.filter((d) => {
        const owner = this.ownerOf(d);
        if (owner !== undefined) return owner === typeName;
        return module !== undefined && fileStem(d.ctx.path ?? '') === module;
      });
    } else {
      const topLevel = candidates.filter((d) => this.ownerOf(d) === undefined);
      matching = imported
        ? topLevel.filter((d) => fileStem(d.ctx.path ?? '') === imported.stem)
        : topLevel.length === 1
          ? topLevel
          : [];
    }
    const only = matching.length === 1 ? matching[0] : undefined;
    return only ? only.ctx.summaryOf(only.fn) : undefined;
  }

  /** Findings from a parameter of unknown origin whose function every call in the project passes a constant. */
  withoutConstantCallers<F extends Finding>(issues: F[]): F[] {
    const byPath = new Map<string, FileContext>();
    for (const ctx of this.contexts.values()) if (ctx.path !== undefined) byPath.set(ctx.path, ctx);
    return issues.filter((f) => !(f.path !== undefined && byPath.get(f.path)?.fromConstantCallers(f)));
  }

  /**
   * The type a call constructs, when its callee names a type the project declares (`Repo()`, `new Repo()`,
   * `models.Repo()`): the variable it is assigned to then has that type, as a declared one would.
   */
  constructedType(callee: string): string | undefined {
    const name = callee.replace(/^new/, '').split('.').pop() ?? '';
    return this.types.has(name) ? name : undefined;
  }

  /** The name of the type declaring the function, if any. */
  private ownerOf({ ctx, fn }: Defined): string | undefined {
    for (let node = fn.parent; node; node = node.parent) {
      if (!TYPE_DECLARATION.test(node.type) || /body|declaration_list/.test(node.type)) continue;
      const name = node.children.find((c) => c.field === 'name' || c.field === 'type');
      if (name) return norm(ctx.parsed.source, name).replace(/<.*$/, '');
    }
    return undefined;
  }

  private importsOf(ctx: FileContext): Imports {
    let imports = this.imports.get(ctx);
    if (!imports) {
      imports = readImports(ctx.parsed.source);
      this.imports.set(ctx, imports);
    }
    return imports;
  }
}
