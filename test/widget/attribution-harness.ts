// Test harness for the attribution script in happy-dom: "page loads" of the source or of the built
// dist/widget/attribution.js against a real refloop server, a TCP proxy that can take the API down,
// and readers of the widget's IndexedDB store. Used by attribution.test.ts and built-attribution.test.ts.
import './page-console.ts';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { vi } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { createStore, get as idbGet, set as idbSet } from 'idb-keyval';
import type { Logger } from '../../server/log.ts';
import type { WidgetRuntime } from '../../widget/runtime.ts';

// builtMode loads dist/widget's chunks through vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER on
// purpose; Node's one-time ExperimentalWarning about it is dropped (issue #21: a passing run prints
// only the reporter's output). Every other warning still goes out.
const emitWarning = process.emitWarning;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  if (String(warning).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
  (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest);
}) as typeof process.emitWarning;

/** A TCP proxy in front of the app. `apiDown` resets every connection that carries a /mobile/v2 request (assets still load, as from a CDN or cache). */
export class Proxy {
  apiDown = false;
  /** /mobile/v2 requests refused while down. */
  refused = 0;
  #server: net.Server;
  #sockets = new Set<net.Socket>();
  port = 0;

  constructor(private target: number) {
    this.#server = net.createServer((client) => {
      const upstream = net.connect(this.target, '127.0.0.1');
      this.#sockets.add(client).add(upstream);
      const kill = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('data', (chunk) => {
        if (this.apiDown && /^[A-Z]+ \/mobile\/v2/m.test(chunk.toString('latin1'))) {
          this.refused++;
          kill();
        } else upstream.write(chunk);
      });
      upstream.on('data', (chunk) => client.write(chunk));
      client.on('close', kill).on('error', kill);
      upstream.on('close', kill).on('error', kill);
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', () => r()));
    this.port = (this.#server.address() as net.AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }
}

/** One answered HTTP request, from the app's access log. */
export interface Logged {
  method: string;
  path: string;
  status: number;
}

/** A logger that keeps the access log (the app logs every request as `request`). */
export function accessLog(): { log: Logger; requests: Logged[] } {
  const requests: Logged[] = [];
  const noop = () => {};
  return {
    requests,
    log: { debug: noop, warn: noop, error: noop, info: (msg, f) => void (msg === 'request' && f && requests.push({ method: f.method as string, path: f.path as string, status: f.status as number })) },
  };
}

/** Polls until `fn` returns a truthy value; fails with `what` after `ms`. */
export async function waitFor<T>(fn: () => T | Promise<T>, what: string, ms = 10_000): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A fresh, empty IndexedDB (fake-indexeddb) for the next test, and a reader/writer of the widget's store in it (keys under `ns()`). */
export function freshIndexedDb(ns: () => string = () => ''): { get<T = any>(key: string): Promise<T | undefined>; set(key: string, value: unknown): Promise<void> } {
  const factory = new IDBFactory();
  (globalThis as any).indexedDB = factory;
  const store = createStore('refloop', 'kv');
  // The test's store keeps its connection to this factory even after a test replaces the global.
  const bound = <T>(f: () => Promise<T>) => {
    const prev = (globalThis as any).indexedDB;
    (globalThis as any).indexedDB = factory;
    try {
      return f();
    } finally {
      (globalThis as any).indexedDB = prev;
    }
  };
  // The script keeps each program's keys under `<programId>/`.
  return { get: (k) => bound(() => idbGet(ns() + k, store)), set: (k, v) => bound(() => idbSet(ns() + k, v, store)) };
}

/** What a test page looks like. */
export interface PageSpec {
  /** The page address (its query string is what the script reads). */
  url: string;
  referrer?: string;
  /** Attributes of the script tag; `src` defaults to `<origin>/growsurf.js?v=2.0.0`. */
  script: Record<string, string>;
  body?: string;
  grsfSettings?: Record<string, unknown>;
  grsfConfig?: Record<string, unknown>;
  /** What an older Universal Code leaves in `window.growsurf` before the script arrives. */
  growsurf?: Record<string, unknown>;
}

/** A loaded test page. */
export interface Page {
  /** Settles when the page's capture and first send are done (source mode); built mode has no handle and resolves at once. */
  done: Promise<void>;
  /** Module URLs the script asked for (source mode; built mode sees them through the server log). */
  loaded: string[];
}

/** How a page runs the attribution script: from source (vitest transforms it) or from dist/. */
export interface Mode {
  name: 'source' | 'built';
  /** Runs the script once more in the current page (a second copy). */
  runScript(): Promise<Page>;
}

/** Runtimes the test window bundle was booted with (both modes). */
export const boots: WidgetRuntime[] = [];
/** The methods queued on the stub at each boot, in order. */
export const bootQueues: string[][] = [];

/** The stand-in for widget/window (built by another engineer; tested on its own): settles queued calls with what they were. */
export const testWindowModule = {
  async boot(rt: WidgetRuntime): Promise<void> {
    boots.push(rt);
    bootQueues.push(rt.queue.map((c) => c.method));
    const g = (window as any).growsurf as Record<string, unknown>;
    // Like the real window, every stub method is replaced (a later call settles at once).
    for (const m of Object.keys(g)) if (typeof g[m] === 'function' && m !== 'getUpfrontDiscount') g[m] = async (...args: unknown[]) => ({ method: m, args });
    g.open = async () => ({ method: 'open', booted: true });
    g.welcome = async () => ({ method: 'welcome' });
    for (const c of rt.queue.splice(0)) c.resolve({ method: c.method, args: c.args });
  },
};
(globalThis as any).__refloopTestWindow = testWindowModule;

// Listeners a page added, so unloading it can remove them as a browser would.
let listeners: Array<[EventTarget, string, EventListenerOrEventListenerObject | null]> = [];
let patched = false;
const originalAdd = new Map<EventTarget, EventTarget['addEventListener']>();
/** Adds a listener that outlives page unloads (the test's own observers). */
export function addTestListener(target: EventTarget, type: string, fn: EventListener): void {
  (originalAdd.get(target) ?? target.addEventListener.bind(target))(type, fn);
}
function trackListeners(): void {
  if (patched) return;
  patched = true;
  for (const target of [window, document] as EventTarget[]) {
    const add = target.addEventListener.bind(target);
    originalAdd.set(target, add);
    (target as any).addEventListener = (type: string, fn: EventListenerOrEventListenerObject | null, opts?: unknown) => {
      listeners.push([target, type, fn]);
      add(type, fn, opts as any);
    };
  }
}

/** Unloads the current page: its listeners go, and the globals the script set. */
export function unloadPage(): void {
  for (const [t, type, fn] of listeners) t.removeEventListener(type, fn);
  listeners = [];
  const w = window as any;
  for (const k of ['grsfInit', 'growsurf', 'grsfSettings', 'grsfConfig']) delete w[k];
  document.head.querySelectorAll('script').forEach((s) => s.remove());
  document.body.innerHTML = '';
}

/** Sets up the DOM of a page and returns its script tag (which happy-dom itself does not run). */
export function preparePage(spec: PageSpec, origin: string): HTMLScriptElement {
  unloadPage();
  trackListeners();
  (window as any).happyDOM.setURL(spec.url);
  Object.defineProperty(document, 'referrer', { value: spec.referrer ?? '', configurable: true });
  if (spec.grsfSettings) (window as any).grsfSettings = spec.grsfSettings;
  if (spec.grsfConfig) (window as any).grsfConfig = spec.grsfConfig;
  if (spec.growsurf) (window as any).growsurf = spec.growsurf;
  // Parsed from HTML, as a page's own tag is; scripts inserted through innerHTML are never run by happy-dom itself.
  const attrs = { src: `${origin}/growsurf.js?v=2.0.0`, ...spec.script };
  document.head.innerHTML = `<script ${Object.entries(attrs).map(([k, v]) => `${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`).join(' ')}></script>`;
  document.body.innerHTML = spec.body ?? '';
  return document.head.querySelector('script')!;
}

/** Source mode: start() from widget/attribution with fresh module state per page; the loader serves the source capture stage and the test window. */
export function sourceMode(): Mode & { open(spec: PageSpec, origin: string): Promise<Page> } {
  const run = async (): Promise<Page> => {
    vi.resetModules();
    const { start } = await import('../../widget/attribution/start.ts');
    const loaded: string[] = [];
    const done = start(async (url) => {
      loaded.push(url);
      if (url.endsWith('/widget/attribution/capture.ts')) return import('../../widget/attribution/capture.ts');
      if (url.endsWith('/widget/window.js')) return testWindowModule;
      if (url.endsWith('/widget/attribution/launcher.ts')) return import('../../widget/attribution/launcher.ts');
      if (url.endsWith('/widget/attribution/form.ts')) return import('../../widget/attribution/form.ts');
      if (url.endsWith('/widget/attribution/launcher-ui.ts')) return import('../../widget/attribution/launcher-ui.ts');
      throw new Error(`unexpected module ${url}`);
    });
    return { done: done ?? Promise.resolve(), loaded };
  };
  return {
    name: 'source',
    runScript: run,
    async open(spec, origin) {
      preparePage(spec, origin);
      return run();
    },
  };
}

/**
 * Built mode: dist/widget/attribution.js evaluated as the browser would (document.currentScript set),
 * with dynamic import() served over HTTP by the app (see registerHttpModules); window.js is replaced
 * by the test window.
 */
export function builtMode(dist: string): Mode & { open(spec: PageSpec, origin: string): Promise<Page> } {
  let tag: HTMLScriptElement | null = null;
  const run = async (): Promise<Page> => {
    const code = fs.readFileSync(path.join(dist, 'attribution.js'), 'utf8');
    const script = new vm.Script(code, { filename: 'attribution.js', importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
    Object.defineProperty(document, 'currentScript', { value: tag, configurable: true });
    try {
      script.runInThisContext();
    } finally {
      delete (document as any).currentScript;
    }
    return { done: Promise.resolve(), loaded: [] };
  };
  return {
    name: 'built',
    runScript: run,
    async open(spec, origin) {
      tag = preparePage(spec, origin);
      return run();
    },
  };
}

let registered = false;
/**
 * Lets Node's own module loader import http(s) URLs, as a browser does (the built script's
 * import() calls), and serves `…/widget/window.js` as the test window module.
 */
export async function registerHttpModules(): Promise<void> {
  if (registered) return;
  registered = true;
  const { register } = await import('node:module');
  const hooks = `
export async function resolve(spec, ctx, next) {
  if (/^https?:/.test(spec)) return { url: spec, shortCircuit: true };
  if (ctx.parentURL && /^https?:/.test(ctx.parentURL) && /^\\.{0,2}\\//.test(spec)) return { url: new URL(spec, ctx.parentURL).href, shortCircuit: true };
  return next(spec, ctx);
}
export async function load(url, ctx, next) {
  if (!/^https?:/.test(url)) return next(url, ctx);
  if (/\\/widget\\/window\\.js$/.test(url)) return { format: 'module', shortCircuit: true, source: 'const w = globalThis.__refloopTestWindow; export const boot = (rt) => w.boot(rt);' };
  const res = await fetch(url);
  if (!res.ok) throw new Error('HTTP ' + res.status + ' for ' + url);
  return { format: 'module', source: await res.text(), shortCircuit: true };
}`;
  register('data:text/javascript,' + encodeURIComponent(hooks));
}
