import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { startApp, RAISED_LIMITS, type TestApp } from '../helpers/app.ts';
import { demoRoutes } from '../../demo/routes.ts';
import { ensureDemo, type DemoState } from '../../demo/seed.ts';
import { buildWidget } from '../../scripts/build-widget.ts';
import { freePort } from '../../scripts/free-port.ts';

// Shared pieces of the browser suites: Debian's Chromium through playwright-core, the real server
// with the demo store on a fixed local port (so PUBLIC_URL, the Universal Code's host, is reachable),
// the built widget, and a folder for artifacts (screenshots).

/** Debian's chromium (installed by .ci/run), or null on a machine without it. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p)) ?? null;

/** Under CI a missing browser is a failure, never a skip. */
export const SKIP_BROWSER = !CHROMIUM && process.env.CI !== 'true';
if (SKIP_BROWSER) console.warn('[e2e] Chromium not found at /usr/bin/chromium: browser tests are skipped (install Debian’s `chromium`; CI never skips them).');

/** Where browser tests leave screenshots for people to look at. */
export const ARTIFACTS = path.resolve('test-artifacts');

/** A free TCP port on 127.0.0.1 (the one helper the bench and the chaos script use too). */
export { freePort };

/** The running demo: the real app on 127.0.0.1 with the demo store seeded through its REST API. */
export interface DemoServer {
  app: TestApp;
  state: DemoState;
  url: string;
  /** The owner's REST key (the demo's backend holds it; tests use it to check what happened). */
  key: string;
  rest(method: string, p: string, body?: unknown): Promise<any>;
}

/** Builds the widget if needed and starts the demo store. */
export async function startDemo(env: Record<string, string> = {}): Promise<DemoServer> {
  await buildWidget({ ifStale: true, log: () => {} });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let state: DemoState | null = null;
  const app = await startApp({ ...RAISED_LIMITS, PUBLIC_URL: url, ...env }, { port, routes: (deps) => [demoRoutes(deps, () => state, () => url)] });
  state = await ensureDemo(app.deps, url);
  const key = app.deps.sealer.open(state.apiKey)!;
  const rest = async (method: string, p: string, body?: unknown) => {
    const res = await app.request(method, `/v2${p}`, { key, body });
    if (res.status !== 200) throw new Error(`${method} ${p} → ${res.status} ${res.text}`);
    return res.body;
  };
  return { app, state, url, key, rest };
}

/** Launches headless Chromium. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * For a describe block: starts the demo and Chromium before its tests and closes both after them.
 * The returned object's fields are set once the block's `beforeAll` has run.
 */
export function demoInBrowser(): { demo: DemoServer; browser: Browser } {
  const env = {} as { demo: DemoServer; browser: Browser };
  beforeAll(async () => {
    env.demo = await startDemo();
    env.browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await env.browser?.close();
    await env.demo?.app.close();
  });
  return env;
}

/**
 * A new browser context with `options` (15 s default timeout) and a page in it. `problems` gathers
 * the page's uncaught errors and, with `strict`, its console errors and failed responses (4xx, 5xx).
 */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}, opts: { strict?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems: string[] = [];
  if (opts.strict) {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
  }
  page.on('pageerror', (e) => problems.push(String(e)));
  // A Content-Security-Policy refusal is a problem in every suite (issue #35), strict or not.
  if (!opts.strict) page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && problems.push(m.text())));
  if (opts.strict) {
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
  }
  return { context, page, problems };
}

/** On the demo store's page, signs in as `email` with its sign-in button; resolves once the page says so. */
export async function signInOnStore(page: Page, email: string): Promise<void> {
  await page.getByRole('button', { name: `Sign in as ${email}` }).click();
  await eventually(async () => /Signed in as/.test((await page.locator('#signin-out').textContent()) ?? ''), 15_000, 'the sign-in');
}

/**
 * A new referral program "Bean Club" of Acme Coffee on the demo's team, in English and
 * `additionalLanguages` (`options` added to its options), with its hosted pages on (`landingPages`
 * added to design.landingPages); the folder for screenshots made. Returns the program's id.
 */
export async function languageProgram(demo: DemoServer, additionalLanguages: readonly string[], opts: { options?: Record<string, unknown>; landingPages?: Record<string, unknown> } = {}): Promise<string> {
  const created = await demo.rest('POST', '/campaigns', { type: 'REFERRAL', name: 'Bean Club', companyName: 'Acme Coffee' });
  const pid = created.id as string;
  await demo.rest('PATCH', `/campaign/${pid}/options`, { languages: { baseLanguage: 'en', additionalLanguages }, ...opts.options });
  await demo.rest('PATCH', `/campaign/${pid}/design`, { landingPages: { isEnabled: true, ...opts.landingPages } });
  demo.app.deps.mobilePrograms.forget(pid);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return pid;
}

/** Polls `fn` until it returns a truthy value (or throws after `ms`). */
export async function eventually<T>(fn: () => Promise<T>, ms = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Reads one key of the widget's IndexedDB store (database `refloop`, store `kv`) in the page. */
export function idbGet(page: Page, key: string): Promise<unknown> {
  return page.evaluate(
    (k) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('refloop');
        // A reader never creates the database: one made here, without the widget's object store, would
        // leave the widget's own open without an upgrade and its store in memory only.
        open.onupgradeneeded = () => open.transaction!.abort();
        open.onerror = () => (open.error?.name === 'AbortError' ? resolve(undefined) : reject(open.error));
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('kv')) return resolve(undefined);
          const get = db.transaction('kv').objectStore('kv').get(k);
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => reject(get.error);
        };
      }),
    key,
  );
}

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now (open shadow roots
 * included). It is evaluated through the DevTools protocol, so pages whose CSP allows no script
 * of ours (the owner pages) are checked as they are served.
 */
export async function seriousA11yViolations(page: Page): Promise<Array<{ id: string; impact: string; targets: unknown[] }>> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n: any) => n.target) }));
  });
}
