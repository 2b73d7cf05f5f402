import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { type DemoAccount, seedDemoIfEmpty } from '../../src/lifecycle';
import type { RunningServer } from '../../src/server';
import type { Services } from '../../src/services';
import { openDashboard } from './harness';

/** The two widths every page is checked at: a laptop and a phone (iPhone 12–15). */
export const WIDTHS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

export interface TourStop {
  name: string;
  path: string;
  /** Resolves once the page shows its real content (not its loading state). */
  ready(page: Page): Promise<void>;
}

/** Every page of the signed-in dashboard, ready when its data is on screen. */
export const SIGNED_IN_PAGES: readonly TourStop[] = [
  {
    name: 'overview',
    path: '/',
    ready: async (page) => {
      await page.getByRole('table', { name: 'Requests per endpoint' }).waitFor();
      await page.getByRole('table', { name: 'Recent errors' }).waitFor();
    },
  },
  {
    name: 'keys',
    path: '/keys',
    ready: (page) => page.getByRole('table', { name: 'API keys' }).waitFor(),
  },
  {
    name: 'models',
    path: '/models',
    ready: (page) => page.getByRole('heading', { name: 'tessera-fast-4k' }).waitFor(),
  },
  {
    name: 'plan',
    path: '/plan',
    ready: (page) => page.getByText('Allowance this month').waitFor(),
  },
  {
    name: 'budgets',
    path: '/budgets',
    ready: async (page) => {
      await page.getByRole('heading', { name: 'Set a budget' }).waitFor();
      await page.getByRole('heading', { name: 'Webhook', exact: true }).waitFor();
    },
  },
  {
    name: 'playground',
    path: '/playground',
    ready: (page) => page.getByRole('option', { name: 'tessera-fast-4k' }).waitFor({ state: 'attached' }),
  },
  {
    name: 'audit',
    path: '/audit',
    ready: (page) => page.getByRole('table', { name: 'Audit events, newest first' }).waitFor(),
  },
  {
    name: 'members',
    path: '/members',
    ready: (page) => page.getByRole('table', { name: 'Members' }).waitFor(),
  },
  {
    name: 'explorer',
    path: '/explorer',
    ready: (page) => page.locator('.graphiql-query-editor .CodeMirror-code', { hasText: 'viewer' }).waitFor(),
  },
];

/** The demo account of a fresh install: a test key and two weeks of sample traffic in every chart and table. */
export function seedDemo(services: Services): Promise<DemoAccount> {
  return seedDemoIfEmpty(services).then((demo) => {
    if (!demo) throw new Error('the test database was not empty');
    return demo;
  });
}

/** A fresh build of the dashboard served over a new database holding the demo account's sample traffic, and a browser. */
export interface Tour {
  server: RunningServer & { services: Services };
  browser: Browser;
  demo: DemoAccount;
  close(): Promise<void>;
}

export async function startTour(): Promise<Tour> {
  const opened = await openDashboard();
  try {
    return { ...opened, demo: await seedDemo(opened.server.services) };
  } catch (err) {
    await opened.close();
    throw err;
  }
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

interface AxeNode {
  target: unknown[];
  html: string;
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.1 A and AA rules. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * The only violations tolerated: inside GraphiQL, where the markup is GraphiQL's own and no styling can change
 * it. Everything of ours, and everything in GraphiQL that CSS or CodeMirror's options can fix (contrast, editor
 * labels), must pass.
 */
export const THIRD_PARTY_EXCEPTIONS: readonly { rule: string; selector: string; why: string }[] = [
  {
    rule: 'nested-interactive',
    selector: '.graphiql-container .graphiql-tab',
    why: "GraphiQL's tab is an <li role=tab> holding its own title and close buttons",
  },
  {
    rule: 'scrollable-region-focusable',
    selector: '.graphiql-container .CodeMirror-scroll',
    why: 'CodeMirror scrolls its editor as the cursor moves in its (labelled, focusable) input, not by focusing the scroller',
  },
];

/**
 * Runs axe-core in the page against WCAG 2.1 AA and returns each violation as one readable line per element
 * (empty when the page passes), leaving out only THIRD_PARTY_EXCEPTIONS. Evaluated through the DevTools
 * protocol, so the page's CSP ('self' only) need not be loosened for it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate<boolean>('typeof window.axe === "object"');
  if (!loaded) await page.evaluate<void>(await axeSource);
  const options = JSON.stringify({ runOnly: { type: 'tag', values: AXE_TAGS }, resultTypes: ['violations'] });
  const exceptions = JSON.stringify(THIRD_PARTY_EXCEPTIONS);
  const violations = await page.evaluate<AxeViolation[]>(
    `window.axe.run(document, ${options}).then((r) => r.violations.map((v) => ({
      ...v,
      nodes: v.nodes.filter((n) => {
        const el = typeof n.target[0] === 'string' ? document.querySelector(n.target[0]) : null;
        return !${exceptions}.some((e) => e.rule === v.id && el && el.matches(e.selector));
      }),
    })))`,
  );
  return violations.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(n.target)} ${n.html.slice(0, 160)}${
          n.failureSummary ? ` | ${n.failureSummary.replace(/\s+/g, ' ').slice(0, 240)}` : ''
        }`,
    ),
  );
}
