/**
 * Builds the dashboard and reports what a first visit downloads: the JS and CSS that index.html loads
 * (entry, module preloads, stylesheets), raw and gzipped, and the lazily loaded chunks apart.
 * Run: npx tsx bench/web/bundle-size.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'tessera-bundle-'));
try {
  execFileSync(
    process.execPath,
    [join(repo, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', out, '--logLevel', 'warn'],
    { cwd: repo, stdio: 'inherit' },
  );
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const firstLoad = new Set([...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1] ?? ''));
  const sizes = (file: string) => {
    const buf = readFileSync(join(out, file));
    return { raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
  };
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const total = (files: string[]) =>
    files.map(sizes).reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip }), { raw: 0, gzip: 0 });

  const all = readdirSync(join(out, 'assets')).map((f) => `assets/${f}`);
  const firstJs = [...firstLoad].filter((f) => f.endsWith('.js'));
  const firstCss = [...firstLoad].filter((f) => f.endsWith('.css'));
  const lazy = all.filter((f) => !firstLoad.has(f));
  const js = total(firstJs);
  const css = total(firstCss);
  const rest = total(lazy);
  console.log(`first-load JS:  ${kb(js.raw)} raw, ${kb(js.gzip)} gzipped (${firstJs.length} files)`);
  console.log(`first-load CSS: ${kb(css.raw)} raw, ${kb(css.gzip)} gzipped`);
  console.log(
    `lazy chunks (GraphQL explorer): ${kb(rest.raw)} raw, ${kb(rest.gzip)} gzipped (${lazy.length} files)`,
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
