/**
 * What a file imports from the project's other files, read from its import lines: the names it binds to a module
 * (`import util`, `const db = require('./db')`, `import * as db from './db'`) and the names it binds to one
 * function of a module (`from util import run_query`, `import { q as query } from './db'`). Modules are known by
 * their file's stem (`./lib/db.js` → `db`), which is how a project's files are matched to them.
 */
export interface Imports {
  /** Local name → module stem. */
  modules: Map<string, string>;
  /** Local name → the module's stem and the function's own name there. */
  names: Map<string, { stem: string; name: string }>;
}

/** `./lib/db.js`, `app.models.user`, `../db` → `db`, `user`, `db`. */
export function stemOf(spec: string): string {
  const last = spec.split(/[/\\]/).pop() ?? spec;
  const withoutExt = /\.(m|c)?[jt]sx?$|\.py$/.test(last) ? last.replace(/\.[^.]+$/, '') : last;
  return (spec.includes('/') ? withoutExt : (withoutExt.split('.').pop() ?? withoutExt)) || spec;
}

const JS_REQUIRE = /\b(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/g;
const JS_REQUIRE_NAMED = /\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/g;
const JS_IMPORT_NAMESPACE = /\bimport\s+\*\s+as\s+(\w+)\s+from\s+['"]([^'"]+)['"]/g;
const JS_IMPORT_DEFAULT = /\bimport\s+(\w+)\s*(?:,\s*\{([^}]*)\})?\s+from\s+['"]([^'"]+)['"]/g;
const JS_IMPORT_NAMED = /\bimport\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"]([^'"]+)['"]/g;
const PY_IMPORT =
  /^[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)/gm;
const PY_FROM = /^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w \t,\n]+?)\)?[ \t]*$/gm;

/** `a, b as c` / `a, b: c` → [[local, name], …]. */
function bindings(list: string, alias: RegExp): [string, string][] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && part !== 'type')
    .map((part) => {
      const [name, local] = part.split(alias).map((x) => x.trim().replace(/^type\s+/, ''));
      return [local || (name ?? ''), name ?? ''] as [string, string];
    })
    .filter(([local, name]) => /^\w+$/.test(local) && /^\w+$/.test(name));
}

export function readImports(source: string): Imports {
  const modules = new Map<string, string>();
  const names = new Map<string, { stem: string; name: string }>();
  const named = (list: string, spec: string, alias: RegExp) => {
    const stem = stemOf(spec);
    for (const [local, name] of bindings(list, alias)) {
      names.set(local, { stem, name });
      // `from app import util`: the name may be a module as well as a function.
      modules.set(local, name);
    }
  };
  for (const [, local, spec] of source.matchAll(JS_REQUIRE))
    modules.set(local as string, stemOf(spec as string));
  for (const [, list, spec] of source.matchAll(JS_REQUIRE_NAMED)) named(list as string, spec as string, /:/);
  for (const [, local, spec] of source.matchAll(JS_IMPORT_NAMESPACE))
    modules.set(local as string, stemOf(spec as string));
  for (const [, local, list, spec] of source.matchAll(JS_IMPORT_DEFAULT)) {
    modules.set(local as string, stemOf(spec as string));
    if (list) named(list, spec as string, /\s+as\s+/);
  }
  for (const [, list, spec] of source.matchAll(JS_IMPORT_NAMED))
    named(list as string, spec as string, /\s+as\s+/);
  for (const [, list] of source.matchAll(PY_IMPORT)) {
    for (const part of (list as string).split(',')) {
      const [module, local] = part.trim().split(/\s+as\s+/);
      if (module) modules.set(local ?? module, stemOf(module));
    }
  }
  for (const [, spec, list] of source.matchAll(PY_FROM)) named(list as string, spec as string, /\s+as\s+/);
  return { modules, names };
}
