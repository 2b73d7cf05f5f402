import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type InlineConfig, type TestSpecification } from 'vitest/node';

/** The server's test files: the `server` project, and `server-isolated` for those that need a process of their own. */
const serverTest = {
  root: 'server',
  environment: 'node',
  include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  exclude: ['test/e2e/**', '**/node_modules/**'],
  // One migrated database the test servers' databases are made from, and one build of the server for the tests
  // that start it as a process (why: the files' headers).
  globalSetup: ['test/database-template.ts', 'test/server-build.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
} satisfies InlineConfig;

/**
 * Server test files that measure the process itself (its memory, its heap and event loop under an abusive
 * request): in a process shared with other files, what those left behind would be counted too.
 */
const SERVER_ISOLATED = ['test/code-analysis/memory.test.ts', 'test/abuse/**/*.test.ts'];

/**
 * vitest orders files by project name, then (within a project) longest first as the last run measured, or
 * largest first on a fresh clone. The projects go in this order instead, so that the long whole-process files
 * (`server-isolated`) and the browser files start first and the run ends on short files, not on a long one
 * started last while the other workers idle.
 */
const PROJECT_ORDER = ['server-isolated', 'e2e', 'server', 'shared', 'web'];
class ProjectOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => PROJECT_ORDER.indexOf(f.project.name);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * One config for the SPA's build (root `web/`, output `web/dist`, dev proxy to the API) and for the
 * test projects: `server` and `server-isolated` (node, real HTTP server), `shared` (its unit tests), `web` (jsdom components), `e2e` (real Chromium).
 */
export default defineConfig({
  root: 'web',
  plugins: [react()],
  // The one chunk over Vite's 500 kB default is the lazily loaded GraphQL explorer (GraphiQL), never on first load.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  server: {
    port: 5173,
    proxy: Object.fromEntries(
      ['/v1', '/api', '/trpc', '/graphql', '/healthz', '/readyz'].map((p) => [
        p,
        { target: 'http://127.0.0.1:8080', changeOrigin: false },
      ]),
    ),
  },
  test: {
    root: '.',
    // Files in parallel: vitest's default on a 2-core machine is one worker, while most test files wait on
    // servers, child processes and Chromium. Each file has its own servers, databases and builds (tests never
    // share one), so three at once took the suite from 727 s to 502 s on the 2-core CI machine.
    maxWorkers: 3,
    sequence: { sequencer: ProjectOrder },
    projects: [
      {
        test: {
          ...serverTest,
          name: 'server',
          exclude: [...serverTest.exclude, ...SERVER_ISOLATED],
          // The files of a worker share its module cache instead of each importing the server anew (~1.4 s a
          // file): every file starts its own servers and databases, and a server's state lives in its instance,
          // not in modules. What is process-wide (the counting thread, the parsers' WASM heap) is reset by the
          // tests that look at it, or they run in `server-isolated`.
          isolate: false,
        },
      },
      {
        // Files that measure or depend on the whole process: a process of their own each, as before.
        test: { ...serverTest, name: 'server-isolated', include: SERVER_ISOLATED, isolate: true },
      },
      {
        test: {
          name: 'shared',
          root: 'shared',
          environment: 'node',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'web',
          root: 'web',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}'],
        },
      },
      {
        // Real Chromium against the real server serving a fresh production build of the dashboard.
        test: {
          name: 'e2e',
          root: 'server',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/database-template.ts', 'test/e2e/dashboard-build.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          pool: 'forks',
          // As in `server`: the files of a worker share its module cache (each has its own server and browser).
          isolate: false,
        },
      },
    ],
  },
});
