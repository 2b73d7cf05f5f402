import { fileURLToPath } from 'node:url';

/**
 * Whether this process runs the build (`dist/*.js`, made by build.ts) rather than the TypeScript sources (tsx in
 * development, vitest in tests). The build bundles this module into each entry file, so its own URL tells.
 */
export const RUNNING_BUILT = !import.meta.url.endsWith('.ts');

/** The server package's folder: `dist/*.js` and `src/lib/paths.ts` sit one and two levels below it. */
const SERVER_ROOT = new URL(RUNNING_BUILT ? '../' : '../../', import.meta.url);

/** A file or folder of the server package (the migrations, the model catalogue, the SPA's build), by its path there. */
export function serverPath(relative: string): string {
  return fileURLToPath(new URL(relative, SERVER_ROOT));
}
