/**
 * Builds the server to JavaScript for `pnpm start`: `dist/main.js` (the server), `dist/cli.js` (the operators'
 * CLI) and `dist/<name>.js` for each worker thread (lib/worker-thread.ts), flat in one folder, which is how
 * lib/paths.ts and lib/worker-thread.ts find the package's files and the workers' entries.
 *
 * esbuild, because the sources are written for a bundler (extensionless relative imports, `@tessera/shared`
 * exporting TypeScript), which plain tsc output would not run under Node.js without rewriting every import;
 * esbuild bundles our code and shared/ in a second or so, and is the transform tsx already used, so the
 * JavaScript is what ran before minus tsx's `keepNames` wrappers. Packages from node_modules stay imports
 * (tree-sitter's grammars and the like are found at run time). Types are checked by `pnpm typecheck`, not here.
 *
 *   tsx build.ts [--outdir=<folder directly inside server/>]
 */
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { WORKER_MODULES } from './src/lib/worker-thread';

/**
 * Node.js's options as `pnpm start` gives them, read from package.json's start script, their one home (why:
 * src/lib/heap.ts): for the tests and benchmarks that start the built server as a process.
 */
export const START_NODE_ARGS: string[] = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start
  .split(/\s+/)
  .filter((arg) => arg.startsWith('--'));

/** Every bare import stays one (node_modules), except the workspace's own TypeScript packages, bundled. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@tessera/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Builds into `outdir`, a folder directly inside server/ as dist/ is (the tests and benchmarks build into ones of
 * their own), emptied first; `extra` adds entry points (name → path), e.g. a benchmark's server.
 */
export async function buildServer(outdir: string, extra: Record<string, string> = {}): Promise<void> {
  const root = import.meta.dirname;
  rmSync(resolve(root, outdir), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: {
      main: 'src/main.ts',
      cli: 'src/cli/main.ts',
      ...Object.fromEntries(Object.entries(WORKER_MODULES).map(([name, path]) => [name, `src/${path}`])),
      ...extra,
    },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    plugins: [externalPackages],
    logLevel: 'warning',
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) ?? 'dist';
  const started = performance.now();
  await buildServer(outdir);
  process.stdout.write(`built ${outdir}/ in ${Math.round(performance.now() - started)} ms\n`);
}
