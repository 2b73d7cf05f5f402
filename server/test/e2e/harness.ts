import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { parseEnv } from '../../src/env';
import { createLogger } from '../../src/logger';
import { type RunningServer, startServer } from '../../src/server';
import { createServices, type Services } from '../../src/services';
import { openTestDatabase } from '../helpers/database';
import { DASHBOARD_BUILD_ENV, SCREENSHOTS } from './paths';

export const CHROMIUM = '/usr/bin/chromium';

/** The run's production build of the dashboard (dashboard-build.ts). */
export function dashboardBuild(): string {
  const dir = process.env[DASHBOARD_BUILD_ENV];
  if (!dir)
    throw new Error(
      `${DASHBOARD_BUILD_ENV} is not set: the dashboard is built by test/e2e/dashboard-build.ts`,
    );
  return dir;
}

/** The real server (same app, same services) on a free port, serving that build, on a fresh database. */
export async function startDashboardServer(
  webDist: string,
  /** More of the environment: a catalogue (`MODELS_FILE`) and its upstreams' keys. */
  extraEnv: Record<string, string> = {},
): Promise<RunningServer & { services: Services }> {
  const env = parseEnv({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...extraEnv });
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

/** A suite's usual setup: the server serving the run's dashboard build, and Chromium; `close` undoes both. */
export async function openDashboard(): Promise<{
  server: RunningServer & { services: Services };
  browser: Browser;
  close(): Promise<void>;
}> {
  const server = await startDashboardServer(dashboardBuild());
  const browser = await launchChromium();
  return {
    server,
    browser,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}
