// Test support for the window bundle: a real WidgetRuntime over idb-keyval on fake-indexeddb, a
// program on a real refloop server, and a page URL that server accepts (CORS applies in happy-dom).
import 'fake-indexeddb/auto';
import './page-console.ts';
import crypto from 'node:crypto';
import { createStore, del, get, set } from 'idb-keyval';
import { STORE_KEYS, type PendingAttribution, type QueuedCall, type StoredReceipts, type WidgetRuntime } from '../../widget/runtime.ts';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { RAISED_LIMITS } from '../helpers/mobile.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

/** The page the widget runs on in these tests. */
export const PAGE = 'http://shop.test/';

/**
 * Ends a suite's page work: aborts happy-dom's pending timers and fetches, then waits out the
 * 35 ms fallback timer Preact's hooks arm beside each animation frame (a Node timer, which the
 * abort does not cancel). Fired after the environment's teardown, that timer calls a
 * `cancelAnimationFrame` that no longer exists, and Vitest fails the run on the uncaught error.
 */
export async function settleDom(): Promise<void> {
  await (window as any).happyDOM?.abort?.();
  await new Promise((resolve) => setTimeout(resolve, 250));
}

/**
 * The hooks every window suite shares: a real server for the suite (`use` receives it), and before
 * each test the shop page with an empty body, the open window closed when `closeWindow`, then the
 * suite's own `reset`. `env` adds server settings, read when the server starts (after the suite's
 * earlier `beforeAll` hooks). At the end happy-dom's pending work is settled before the server
 * closes, so the server never resets a fetch mid-read.
 */
export function windowSuite(use: (app: TestApp) => void, opts: { closeWindow?: boolean; reset?: () => void; env?: () => Record<string, string> } = {}): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startApp({ ...RAISED_LIMITS, ...opts.env?.() });
    use(app);
  });
  afterAll(async () => {
    await settleDom();
    await app?.close();
  });
  beforeEach(() => {
    (window as any).happyDOM.setURL(PAGE);
    if (opts.closeWindow) (window as any).growsurf?.close?.();
    document.body.innerHTML = '';
    opts.reset?.();
  });
}

/**
 * Runs REST set-up calls. They go through node:http (test/helpers/app.ts `serverFetch`), never the
 * page's fetch, so the page stays where it is: moving it to the server's origin for them made any
 * widget request sent meanwhile leave without its Origin header.
 */
export async function asServer<T>(_app: TestApp, fn: () => Promise<T>): Promise<T> {
  return fn();
}

/** A REST-minted participant token (REST P10 creates the participant when needed). */
export async function tokenFor(app: TestApp, p: { pid: string; key: string }, email: string, extra: Record<string, unknown> = {}) {
  const res = await asServer(app, () => app.request('POST', `/v2/campaign/${p.pid}/mobile-participant-token`, { key: p.key, body: { email, ...extra } }));
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { participantToken: string; participant: { id: string; email: string; shareUrl: string } };
}

/** Events the runtime fired, in order. */
export type Fired = Array<{ name: string; detail: unknown }>;

/** A runtime for `boot`, on its own IndexedDB store, with the given pending referral and receipts. */
export async function makeRuntime(
  app: TestApp,
  programId: string,
  opts: { pending?: PendingAttribution; receipts?: StoredReceipts; queue?: QueuedCall[]; participantToken?: string } = {},
): Promise<WidgetRuntime & { fired: Fired }> {
  const store = createStore(`refloop-test-${crypto.randomUUID()}`, 'kv');
  const kv = {
    get: <T,>(key: string) => get<T>(key, store),
    set: (key: string, value: unknown) => set(key, value, store),
    del: (key: string) => del(key, store),
  };
  if (opts.pending) await kv.set(STORE_KEYS.pending, opts.pending);
  if (opts.receipts) await kv.set(STORE_KEYS.receipts, opts.receipts);
  if (opts.participantToken) await kv.set(STORE_KEYS.participantToken, opts.participantToken);
  const fired: Fired = [];
  return {
    programId,
    apiBase: `${app.url}/mobile/v2`,
    assetBase: `${app.url}/widget/`,
    instanceId: crypto.randomUUID(),
    queue: opts.queue ?? [],
    store: kv,
    pendingAttribution: () => kv.get<PendingAttribution>(STORE_KEYS.pending),
    receipts: async () => (await kv.get<StoredReceipts>(STORE_KEYS.receipts)) ?? {},
    clearPendingAttribution: async () => {
      await Promise.all([kv.del(STORE_KEYS.pending), kv.del(STORE_KEYS.visits), kv.del(STORE_KEYS.receipts)]);
    },
    emit(name, detail) {
      fired.push({ name, detail });
      document.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
    },
    fired,
  };
}

/** A stub-style queued call whose promise the test can await. */
export function queued(method: string, ...args: unknown[]): { call: QueuedCall; result: Promise<unknown> } {
  let call!: QueuedCall;
  const result = new Promise<unknown>((resolve, reject) => {
    call = { method, args, resolve, reject };
  });
  return { call, result };
}

/** Waits until `check` passes (the widget renders asynchronously; 15 s: CI runs two suites side by side on two cores). */
export async function until<T>(check: () => T | undefined | null | false, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = check();
      if (v) return v;
    } catch (e) {
      if (Date.now() > end) throw e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for the widget; it shows: ${shown()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** What the page's widget elements say (for a timeout's message: which state the widget was left in). */
function shown(): string {
  const parts: string[] = [];
  for (const el of Array.from(document.querySelectorAll('*'))) if (el.shadowRoot) parts.push(`<${el.localName}${el.getAttributeNames().map((a) => ' ' + a).join('')}> ${textOf(el.shadowRoot).slice(0, 300)}`);
  return parts.join(' | ').slice(0, 2000) || '(nothing)';
}

/** All text inside a shadow root (or element), with nested shadow roots included. */
export function textOf(node: ParentNode | null | undefined): string {
  if (!node) return '';
  let out = '';
  for (const child of Array.from(node.childNodes)) {
    if (child.nodeType === 3) out += child.textContent;
    else if (child.nodeType === 1 && (child as Element).tagName !== 'STYLE') {
      out += textOf(child as Element) + ' ';
      if ((child as Element).shadowRoot) out += textOf((child as Element).shadowRoot!);
    }
  }
  return out.replace(/\s+/g, ' ');
}
