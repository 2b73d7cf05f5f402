import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { parseEnv } from '../../src/env';
import { createLogger } from '../../src/logger';
import { type RunningServer, startServer } from '../../src/server';
import { createServices, type Services } from '../../src/services';
import { openTestDatabase } from '../helpers/database';

export const CHROMIUM = '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const SCREENSHOTS = join(REPO, 'test-results', 'screenshots');

/** A production build of the dashboard from the current sources, in a folder of its own. */
export async function buildDashboard(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-web-'));
  const vite = join(REPO, 'node_modules', 'vite', 'bin', 'vite.js');
  await promisify(execFile)(
    process.execPath,
    [vite, 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'],
    {
      cwd: REPO,
    },
  );
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The real server (same app, same services) on a free port, serving that build, on a fresh database. */
export async function startDashboardServer(webDist: string): Promise<RunningServer & { services: Services }> {
  const env = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const database = await openTestDatabase({ migrated: true });
  const services = createServices(env, { database, logger: createLogger(env.LOG_LEVEL) });
  await database.migrate();
  const running = await startServer(services, { port: 0, host: '127.0.0.1', webDist });
  return { ...running, services };
}

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM);
}

/** Debian's Chromium, headless, with nothing that reaches the network on its own; a fresh profile per run. */
export async function launchChromium(): Promise<Browser> {
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function newContext(browser: Browser, origin: string, width = 1360): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: origin,
    viewport: { width, height: 900 },
    deviceScaleFactor: 1,
    reducedMotion: 'reduce',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  return context;
}

/** A page's full screenshot under test-results/screenshots. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A suite's usual setup: a fresh dashboard build, the server serving it, Chromium; `close` undoes all three. */
export async function openDashboard(): Promise<{
  server: RunningServer & { services: Services };
  browser: Browser;
  close(): Promise<void>;
}> {
  const build = await buildDashboard();
  const server = await startDashboardServer(build.dir);
  const browser = await launchChromium();
  return {
    server,
    browser,
    close: async () => {
      await browser.close();
      await server.close();
      await build.remove();
    },
  };
}
