// `npm run build`: the widget's production build and its byte budgets (issue #7).
//   dist/widget/attribution.js      the attribution script's first stage, a self-contained IIFE (every page)
//   dist/widget/chunks/launcher-[hash].js  its page stage: runtime and store, launcher and welcome triggers, an ES module with no imports (every page)
//   dist/widget/chunks/capture-[hash].js  its capture stage, an ES module with no imports (landing pages, retries)
//   dist/widget/chunks/launcher-ui-[hash].js  the corner launcher's drawing, an ES module with no imports (pages where the design shows it)
//   dist/widget/chunks/form-capture-[hash].js  form capture (installation FORM_DETECTION only), an ES module with no imports
//   dist/widget/chunks/stripe-[hash].js  the referrer's code into Stripe elements (installation.stripe, pending referral), no imports
//   dist/widget/window.js           the window bundle's ES module entry (`boot`), loaded on demand
//   dist/widget/chunks/*-[hash].js  its code-split chunks
//   dist/widget/portal.js           the hosted landing page and participant portal (attribution + window, full page)
//   dist/widget/sizes.json          raw, gzip and brotli bytes per file, the budgets and the verdict
// Flags: `--if-stale` builds only when a source is newer than the last build (npm start's prestart);
// `--report` prints the last build's sizes without building (`npm run size`).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the built widget lives (served at /widget/… by server/http/pages/widget-assets.ts). */
export const WIDGET_DIST = path.join(ROOT, 'dist', 'widget');
const ATTRIBUTION_ENTRY = path.join(ROOT, 'widget', 'attribution', 'index.ts');
const CAPTURE_ENTRY = path.join(ROOT, 'widget', 'attribution', 'capture.ts');
const LAUNCHER_ENTRY = path.join(ROOT, 'widget', 'attribution', 'launcher.ts');
const LAUNCHER_UI_ENTRY = path.join(ROOT, 'widget', 'attribution', 'launcher-ui.ts');
const FORM_ENTRY = path.join(ROOT, 'widget', 'attribution', 'form.ts');
const STRIPE_ENTRY = path.join(ROOT, 'widget', 'attribution', 'stripe.ts');
const WINDOW_ENTRY = path.join(ROOT, 'widget', 'window', 'index.tsx');
const PORTAL_ENTRY = path.join(ROOT, 'widget', 'portal', 'index.tsx');
/** Inputs whose change makes the build stale. */
const SOURCES = ['widget', 'shared', 'scripts/build-widget.ts', 'package-lock.json'].map((p) => path.join(ROOT, p));

/**
 * Gzip byte budgets: the attribution script's first stage every page runs (issue #24: 1.2 KB), its
 * page stage every page loads next (runtime and store, the design's triggers: 1.75 KB), its capture
 * stage (parser and visit queue, loaded only on landing pages and retries; 2 KB, issue #24 asks 1.5), the
 * corner launcher's drawing (issue #24: 3 KB beyond the attribution script, before the window opens,
 * loaded only where the design shows it), form capture (FORM_DETECTION programs only: 1.5 KB), the
 * Stripe client-reference chunk (a pending referral of a program whose installation.stripe asks for it: 1 KB, issue #25), the
 * window's first load (window.js plus the larger first panel, FIRST_PAINT: 24 KB with ky, the design's
 * client, about 4.3 KB of it; issue #24 asked 20 KB without counting the first panel; the launcher,
 * welcome, progress and secondary panels are lazy chunks), each of its lazy chunks (6 KB), and the
 * hosted pages' first load (portal.js: the window's modules plus the capture stage and the full-page
 * layout, and the larger first panel, loaded only on /p/{programId} pages; issue #24), and each
 * language's first-load words (`widget/i18n/<code>.ts`, a lazy chunk loaded only when the window is
 * in that language: 3 KB, issue #27).
 */
export const BUDGETS = { attribution: 1200, page: 1792, capture: 2048, launcher: 3072, windowInitial: 24_576, lazyChunk: 6144, portalInitial: 27_392, form: 1536, languageChunk: 3072, stripe: 1024 } as const;

/** A language's first-load words (`widget/i18n/<code>.ts`, not English's, not `<code>-panels.ts`): budget `languageChunk`. */
export const LANGUAGE_CHUNK = /[\\/]widget[\\/]i18n[\\/](?!en[.-]|index\.|load\.|panels\.)[\w-]+(?<!-panels)\.ts$/;

/**
 * What the window draws first besides window.js, by who is looking (issue #24): a visitor gets the
 * sign-up form, a signed-in participant the home: the offer line, the link, Copy and the share buttons
 * (share.tsx). Each is its own chunk, which boot requests beside the window payload, and nobody needs
 * both; so the window's first load is window.js (with its static imports) plus the LARGER branch,
 * each branch counted with its static imports that window.js does not already bring. A listed module
 * the window build does not contain fails the build: renaming, merging or splitting a first-paint
 * module cannot drop it from the count (code it moves into window.js is counted there). Not listed,
 * because the first paint does not wait for them (issue #32): the share buttons' icon sprite
 * (icons.ts; the buttons carry text labels and keep their size without it) and the home's figures
 * (figures.tsx with the progress arithmetic: the referral count, the next reward, the earnings; the
 * home keeps their box's height until they arrive). Both are lazy chunks boot requests beside the
 * share panel's, so they normally arrive with it.
 */
export const FIRST_PAINT = {
  visitor: ['widget/window/panels/signup.tsx'],
  participant: ['widget/window/panels/share.tsx'],
} as const;

/** One built file's sizes. */
export interface FileSize {
  file: string;
  kind: 'attribution' | 'capture' | 'launcher' | 'launcher-ui' | 'form' | 'stripe' | 'window' | 'window-static' | 'first-paint' | 'lazy' | 'portal' | 'portal-static';
  raw: number;
  gzip: number;
  brotli: number;
}

/** What `sizes.json` holds. */
export interface SizeReport {
  builtAt: number;
  files: FileSize[];
  totals: {
    attribution: number;
    page?: number;
    capture: number;
    launcher: number;
    /** window.js with its static imports plus the larger first-paint branch (FIRST_PAINT). */
    windowInitial: number | null;
    /** The parts of windowInitial: window.js and its static imports, and each first-paint branch's own files. */
    windowParts?: { entry: number; visitor: number; participant: number };
    portalInitial?: number | null;
  };
  budgets: typeof BUDGETS;
  /** Human-readable budget breaches; empty when the build is within budget. */
  overBudget: string[];
  /** False when widget/window/index.tsx did not exist and only the attribution script was built. */
  windowBuilt: boolean;
}

export function sizes<K extends string = FileSize['kind']>(file: string, kind: K, code: Buffer): { file: string; kind: K; raw: number; gzip: number; brotli: number } {
  return {
    file,
    kind,
    raw: code.length,
    gzip: zlib.gzipSync(code, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(code, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: code.length } }).length,
  };
}

export function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const e of fs.readdirSync(p)) max = Math.max(max, newestMtime(path.join(p, e)));
  return max;
}

/** True when dist/widget is missing, incomplete or older than any widget source. */
export function widgetBuildIsStale(dist = WIDGET_DIST): boolean {
  const report = path.join(dist, 'sizes.json');
  if (!['sizes.json', 'attribution.js'].every((f) => fs.existsSync(path.join(dist, f)))) return true;
  const built = fs.statSync(report).mtimeMs;
  if (fs.existsSync(WINDOW_ENTRY) && !fs.existsSync(path.join(dist, 'window.js'))) return true;
  if (fs.existsSync(PORTAL_ENTRY) && !fs.existsSync(path.join(dist, 'portal.js'))) return true;
  return SOURCES.some((s) => newestMtime(s) > built);
}

/**
 * Production constants whatever NODE_ENV the caller runs under (vitest sets `test`, and Vite derives
 * `import.meta.env.DEV` from NODE_ENV): dev-only warnings must never ship.
 */
export const PRODUCTION = {
  'import.meta.env.DEV': 'false',
  'import.meta.env.PROD': 'true',
  'import.meta.env.MODE': '"production"',
  'process.env.NODE_ENV': '"production"',
};

/** One self-contained file (no imports, no chunks): the attribution script's two stages. */
async function buildSingle(outDir: string, entry: string, fileName: string, format: 'iife' | 'es', define: Record<string, string> = {}): Promise<string> {
  const out = await build({
    configFile: false,
    root: ROOT,
    mode: 'production',
    logLevel: 'warn',
    define: { ...PRODUCTION, ...define },
    build: {
      outDir,
      emptyOutDir: false,
      copyPublicDir: false,
      minify: 'oxc',
      modulePreload: false,
      rolldownOptions: {
        input: entry,
        preserveEntrySignatures: 'exports-only',
        output: { format, entryFileNames: fileName, codeSplitting: false },
      },
    },
  });
  const chunks = (Array.isArray(out) ? out[0]! : (out as Rolldown.RolldownOutput)).output.filter((o) => o.type === 'chunk');
  if (chunks.length !== 1 || chunks[0]!.imports.length) throw new Error(`${fileName} must be one self-contained file`);
  return chunks[0]!.fileName;
}

/**
 * Vite wraps every dynamic import in its preload helper (about 1 KB gzip of link-tag and CSS
 * preloading) even with `modulePreload: false`; the window has no CSS and imports its chunks
 * relative to itself, so the helper only has to call the import. Even that much costs each
 * `import()` its wrapper (`U(()=>import(…),[])`) and the entry a shared function it exports to the
 * chunks: 39 B gzip of the window's first load (issue #27). So each rendered chunk unwraps its
 * imports (`__vitePreload(() => import(x), __VITE_PRELOAD__)` becomes `(() => import(x))()`, which
 * the minifier folds to `import(x)`) and drops the helper's declaration, export and imports; a
 * chunk still naming the helper afterwards (Vite changed its wrapper) fails the build.
 */
const PRELOAD_HELPER = '\0vite/preload-helper.js';
export const noPreloadHelper = {
  name: 'refloop:no-preload-helper',
  enforce: 'pre' as const,
  resolveId: (id: string) => (id === PRELOAD_HELPER ? id : null),
  load: (id: string) => (id === PRELOAD_HELPER ? 'export const __vitePreload = (f) => f();' : null),
  renderChunk: (code: string, chunk: { fileName: string }) => {
    if (!code.includes('__vitePreload')) return null;
    const out = unwrapPreloads(code);
    if (/__vitePreload|__VITE_PRELOAD__/.test(out)) throw new Error(`${chunk.fileName}: Vite's preload wrapper has a form refloop:no-preload-helper does not know (scripts/build-widget.ts)`);
    return { code: out, map: null };
  },
};

/** `code` (a rendered, not yet minified chunk) without the preload helper: each wrapped import called directly, the helper's declaration, export and import specifiers gone. */
export function unwrapPreloads(code: string): string {
  const withoutHelper = (list: string) =>
    list
      .split(',')
      .filter((s) => !/\b__vitePreload\b/.test(s))
      .join(',');
  return code
    .replaceAll('__vitePreload(', '(')
    .replaceAll(', __VITE_PRELOAD__)', ')()')
    .replace(/(?:var|let|const) __vitePreload = \(f\) => f\(\);\n?/, '')
    .replace(/(\b(?:import|export)\s*\{)([^}]*\b__vitePreload\b[^}]*)\}/g, (_m, head: string, list: string) => `${head}${withoutHelper(list)}}`);
}

/**
 * A Preact app's ES-module build: named entries, hashed chunks under `chunks/`, one stylesheet,
 * production constants, no preload helper. The widget window and the owner console both use it.
 */
export async function buildApp(
  outDir: string,
  input: Record<string, string>,
  opts: { preserveEntrySignatures: false | 'exports-only' | 'allow-extension'; assetFileNames: string | ((a: { names?: string[] }) => string) },
): Promise<Rolldown.OutputChunk[]> {
  const out = await build({
    configFile: false,
    root: ROOT,
    mode: 'production',
    logLevel: 'warn',
    define: PRODUCTION,
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    plugins: [noPreloadHelper],
    build: {
      outDir,
      emptyOutDir: false,
      copyPublicDir: false,
      minify: 'oxc',
      // Vite's preload helper resolves chunk URLs against the host page's base; ES modules import
      // their chunks relative to themselves, which is what a widget on someone else's site needs.
      modulePreload: false,
      cssCodeSplit: false,
      rolldownOptions: {
        input,
        preserveEntrySignatures: opts.preserveEntrySignatures,
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', assetFileNames: opts.assetFileNames as string },
      },
    },
  });
  return (Array.isArray(out) ? out[0]! : (out as Rolldown.RolldownOutput)).output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk');
}

/**
 * The window bundle. `allow-extension`: what the first load and the lazy chunks share stays in
 * window.js (which then exports it to them, under minified names beside `boot`) instead of a
 * separate shared chunk, so the first load is one file and one gzip stream: 916 B gzip less than
 * window.js plus a shared chunk (issue #24). The chunks import `../window.js`, the URL the
 * attribution script loaded it from, so they share its one instance.
 */
function buildWindow(outDir: string, entry: string): Promise<Rolldown.OutputChunk[]> {
  return buildApp(outDir, { window: entry }, { preserveEntrySignatures: 'allow-extension', assetFileNames: 'chunks/[name]-[hash][extname]' });
}

/**
 * The hosted pages' bundle: its own build (the window's chunking stays as it is), so it carries its
 * own copy of the window's modules; lazy chunks of the same content get the window's hashed names.
 */
function buildPortal(outDir: string): Promise<Rolldown.OutputChunk[]> {
  return buildApp(outDir, { portal: PORTAL_ENTRY }, { preserveEntrySignatures: 'allow-extension', assetFileNames: 'chunks/[name]-[hash][extname]' });
}

/** The files `entry` loads before it runs (itself and its static imports, transitively). */
export function initialFiles(chunks: Rolldown.OutputChunk[], entry: string): Set<string> {
  const byName = new Map(chunks.map((c) => [c.fileName, c]));
  const initial = new Set<string>();
  const walk = (name: string) => {
    if (initial.has(name)) return;
    initial.add(name);
    for (const i of byName.get(name)?.imports ?? []) walk(i);
  };
  walk(entry);
  return initial;
}

/**
 * An entry's first load split as FIRST_PAINT says: the entry's own files (itself and its static
 * imports) and each branch's files beyond them (the chunks holding the branch's modules, with their
 * static imports). A FIRST_PAINT module the build does not contain is an error.
 */
function firstLoad(chunks: Rolldown.OutputChunk[], entry: string) {
  const initial = initialFiles(chunks, entry);
  const branch = (modules: readonly string[]) => {
    const own = new Set<string>();
    for (const m of modules) {
      const holder = chunks.find((c) => c.moduleIds.includes(path.join(ROOT, m)));
      if (!holder) throw new Error(`${m} is listed in FIRST_PAINT but the ${entry} build does not contain it: update FIRST_PAINT in scripts/build-widget.ts`);
      for (const f of initialFiles(chunks, holder.fileName)) if (!initial.has(f)) own.add(f);
    }
    return own;
  };
  const visitor = branch(FIRST_PAINT.visitor);
  const participant = branch(FIRST_PAINT.participant);
  const sum = (names: Set<string>, gzip: Map<string, number>) => [...names].reduce((n, f) => n + (gzip.get(f) ?? 0), 0);
  return {
    kind: <K extends string>(file: string, staticKind: K): K | 'first-paint' | 'lazy' => (initial.has(file) ? staticKind : visitor.has(file) || participant.has(file) ? 'first-paint' : 'lazy'),
    parts: (gzip: Map<string, number>) => ({ entry: sum(initial, gzip), visitor: sum(visitor, gzip), participant: sum(participant, gzip) }),
  };
}

/** Measures a finished build and judges it against the budgets. */
function measure(outDir: string, captureFile: string, launcherFile: string, windowChunks: Rolldown.OutputChunk[] | null, portalChunks: Rolldown.OutputChunk[] | null = null): SizeReport {
  const read = (f: string) => fs.readFileSync(path.join(outDir, f));
  const files: FileSize[] = [sizes('attribution.js', 'attribution', read('attribution.js')), sizes(captureFile, 'capture', read(captureFile)), sizes(launcherFile, 'launcher', read(launcherFile))];
  // The launcher's drawing, loaded only where the design shows the launcher.
  const uiFile = fs.readdirSync(path.join(outDir, 'chunks')).find((f) => /^launcher-ui-[\w-]+\.js$/.test(f));
  if (uiFile) files.push(sizes(`chunks/${uiFile}`, 'launcher-ui', read(`chunks/${uiFile}`)));
  // Form capture (loaded only for FORM_DETECTION programs): its file is the one the launcher names.
  const formFile = fs.readdirSync(path.join(outDir, 'chunks')).find((f) => /^form-capture-[\w-]+\.js$/.test(f));
  if (formFile) files.push(sizes(`chunks/${formFile}`, 'form', read(`chunks/${formFile}`)));
  const stripeFile = fs.readdirSync(path.join(outDir, 'chunks')).find((f) => /^stripe-[\w-]+\.js$/.test(f));
  if (stripeFile) files.push(sizes(`chunks/${stripeFile}`, 'stripe', read(`chunks/${stripeFile}`)));
  let windowInitial: number | null = null;
  let windowParts: { entry: number; visitor: number; participant: number } | undefined;
  if (windowChunks) {
    const load = firstLoad(windowChunks, 'window.js');
    const gzip = new Map<string, number>();
    for (const c of windowChunks) {
      const s = sizes(c.fileName, c.fileName === 'window.js' ? 'window' : load.kind(c.fileName, 'window-static'), read(c.fileName));
      files.push(s);
      gzip.set(c.fileName, s.gzip);
    }
    windowParts = load.parts(gzip);
    windowInitial = windowParts.entry + Math.max(windowParts.visitor, windowParts.participant);
  }
  let portalInitial: number | null = null;
  if (portalChunks) {
    // The hosted pages draw the same first panel, so they are counted the same way.
    const load = firstLoad(portalChunks, 'portal.js');
    const listed = new Set(files.map((f) => f.file));
    const gzip = new Map<string, number>();
    for (const c of portalChunks) {
      const s = sizes(c.fileName, c.fileName === 'portal.js' ? 'portal' : load.kind(c.fileName, 'portal-static'), read(c.fileName));
      gzip.set(c.fileName, s.gzip);
      // A chunk the window build wrote too (same content, same name) is listed once.
      if (!listed.has(c.fileName)) files.push(s);
    }
    const parts = load.parts(gzip);
    portalInitial = parts.entry + Math.max(parts.visitor, parts.participant);
  }
  const overBudget: string[] = [];
  const attribution = files[0]!.gzip;
  const capture = files[1]!.gzip;
  if (attribution > BUDGETS.attribution) overBudget.push(`attribution.js is ${attribution} B gzip (budget ${BUDGETS.attribution})`);
  if (capture > BUDGETS.capture) overBudget.push(`${captureFile} is ${capture} B gzip (budget ${BUDGETS.capture})`);
  // The corner launcher beyond the attribution script's two every-page files: its drawing.
  const launcher = files.find((f) => f.kind === 'launcher-ui')?.gzip ?? 0;
  if (files[2]!.gzip > BUDGETS.page) overBudget.push(`${launcherFile} is ${files[2]!.gzip} B gzip (budget ${BUDGETS.page}, the attribution script's page stage)`);
  if (launcher > BUDGETS.launcher) overBudget.push(`the launcher's drawing is ${launcher} B gzip (budget ${BUDGETS.launcher} beyond the attribution script)`);
  for (const f of files) if (f.kind === 'stripe' && f.gzip > BUDGETS.stripe) overBudget.push(`${f.file} is ${f.gzip} B gzip (budget ${BUDGETS.stripe}, Stripe client reference)`);
  for (const f of files) if (f.kind === 'form' && f.gzip > BUDGETS.form) overBudget.push(`${f.file} is ${f.gzip} B gzip (budget ${BUDGETS.form}, form capture)`);
  if (windowInitial !== null && windowInitial > BUDGETS.windowInitial) overBudget.push(`the window's first load is ${windowInitial} B gzip (budget ${BUDGETS.windowInitial})`);
  if (portalInitial !== null && portalInitial > BUDGETS.portalInitial) overBudget.push(`the hosted pages' first load (portal.js) is ${portalInitial} B gzip (budget ${BUDGETS.portalInitial})`);
  for (const f of files) if ((f.kind === 'lazy' || f.kind === 'first-paint') && f.gzip > BUDGETS.lazyChunk) overBudget.push(`${f.file} is ${f.gzip} B gzip (budget ${BUDGETS.lazyChunk} per lazy chunk)`);
  for (const c of windowChunks ?? []) {
    const f = files.find((x) => x.file === c.fileName);
    if (f && c.moduleIds.some((m) => LANGUAGE_CHUNK.test(m)) && f.gzip > BUDGETS.languageChunk) overBudget.push(`${f.file} is ${f.gzip} B gzip (budget ${BUDGETS.languageChunk} per language's first-load words)`);
  }
  return { builtAt: Date.now(), files, totals: { attribution, page: files[2]!.gzip, capture, launcher, windowInitial, windowParts, portalInitial }, budgets: BUDGETS, overBudget, windowBuilt: windowChunks !== null };
}

/** The size table printed after a build (and by `npm run size`). */
export function formatReport(r: SizeReport): string {
  const rows = r.files.map((f) => [f.file, f.kind, String(f.raw), String(f.gzip), String(f.brotli)]);
  const head = ['file', 'kind', 'raw', 'gzip', 'brotli'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join('  ');
  const out = [line(head), ...rows.map(line), ''];
  out.push(`attribution script: ${r.totals.attribution} B gzip (budget ${r.budgets.attribution}); capture stage ${r.totals.capture} B gzip (budget ${r.budgets.capture})`);
  if (r.totals.page !== undefined) out.push(`page stage:         ${r.totals.page} B gzip (budget ${r.budgets.page}), on every page after the first stage`);
  if (r.totals.launcher !== undefined) out.push(`corner launcher:    ${r.totals.launcher} B gzip beyond the attribution script (budget ${r.budgets.launcher}), before the window opens, where the design shows it`);
  if (r.totals.windowInitial !== null) {
    const w = r.totals.windowParts;
    const parts = w ? ` = window.js ${w.entry} + the larger first-paint chunk (visitor's sign-up ${w.visitor}, participant's share panel ${w.participant})` : '';
    out.push(`window first load:  ${r.totals.windowInitial} B gzip${parts} (budget ${r.budgets.windowInitial}); lazy chunks ≤ ${r.budgets.lazyChunk} B gzip each`);
  }
  else out.push('window bundle: NOT BUILT (widget/window/index.tsx does not exist yet)');
  if (r.totals.portalInitial != null) out.push(`hosted pages:       ${r.totals.portalInitial} B gzip first load of portal.js (budget ${r.budgets.portalInitial}), only on /p/{programId} pages`);
  out.push(r.overBudget.length ? `OVER BUDGET:\n  ${r.overBudget.join('\n  ')}` : 'within budget');
  return out.join('\n');
}

const LOCK = path.join(ROOT, 'dist', '.widget-build.lock');

/** Takes a build lock (parallel test files may all want a build); stale locks (a crashed build) are broken. */
export async function lock(file = LOCK): Promise<() => void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(file);
      return () => fs.rmSync(file, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - fs.statSync(file).mtimeMs > 60_000) fs.rmSync(file, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Runs `build` into a fresh directory next to `dist`, writes its report as sizes.json and swaps the
 * directory in, so a reader (the server, a parallel test) never sees half a build.
 */
export async function intoDist<R>(dist: string, build: (tmp: string) => Promise<R>): Promise<R> {
  fs.mkdirSync(path.dirname(dist), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(path.dirname(dist), `.${path.basename(dist)}-`));
  try {
    const report = await build(tmp);
    fs.writeFileSync(path.join(tmp, 'sizes.json'), JSON.stringify(report, null, 2) + '\n');
    const old = `${dist}.old-${process.pid}`;
    if (fs.existsSync(dist)) fs.renameSync(dist, old);
    fs.renameSync(tmp, dist);
    fs.rmSync(old, { recursive: true, force: true });
    return report;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Builds every entry into a fresh directory, measures them, writes sizes.json and swaps the result
 * into `dist` (dist/widget by default), so a reader never sees half a build. With `ifStale`, a fresh
 * build is reused. `windowEntry` exists for the test of a checkout without the window bundle.
 */
export async function buildWidget(opts: { ifStale?: boolean; log?: (line: string) => void; dist?: string; windowEntry?: string } = {}): Promise<SizeReport> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const dist = opts.dist ?? WIDGET_DIST;
  const windowEntry = opts.windowEntry ?? WINDOW_ENTRY;
  const release = await lock();
  try {
    if (opts.ifStale && !widgetBuildIsStale(dist)) return JSON.parse(fs.readFileSync(path.join(dist, 'sizes.json'), 'utf8')) as SizeReport;
    return await intoDist(dist, async (tmp) => {
      // The capture stage first: the attribution script is built with its hashed name.
      const captureFile = await buildSingle(tmp, CAPTURE_ENTRY, 'chunks/capture-[hash].js', 'es');
      const formFile = await buildSingle(tmp, FORM_ENTRY, 'chunks/form-capture-[hash].js', 'es');
      const stripeFile = await buildSingle(tmp, STRIPE_ENTRY, 'chunks/stripe-[hash].js', 'es');
      const uiFile = await buildSingle(tmp, LAUNCHER_UI_ENTRY, 'chunks/launcher-ui-[hash].js', 'es');
      const launcherFile = await buildSingle(tmp, LAUNCHER_ENTRY, 'chunks/launcher-[hash].js', 'es', {
        __REFLOOP_CAPTURE__: JSON.stringify(captureFile),
        __REFLOOP_FORM__: JSON.stringify(formFile),
        __REFLOOP_STRIPE__: JSON.stringify(stripeFile),
        __REFLOOP_LAUNCHER_UI__: JSON.stringify(uiFile),
      });
      await buildSingle(tmp, ATTRIBUTION_ENTRY, 'attribution.js', 'iife', { __REFLOOP_LAUNCHER__: JSON.stringify(launcherFile) });
      let windowChunks: Rolldown.OutputChunk[] | null = null;
      if (fs.existsSync(windowEntry)) windowChunks = await buildWindow(tmp, windowEntry);
      else log(`notice: ${path.relative(ROOT, windowEntry)} does not exist yet; only the attribution script was built.`);
      const portalChunks = windowChunks && fs.existsSync(PORTAL_ENTRY) ? await buildPortal(tmp) : null;
      return measure(tmp, captureFile, launcherFile, windowChunks, portalChunks);
    });
  } finally {
    release();
  }
}

/** What a build script's command line needs to know of its build. */
export interface BuildCommand<R extends { overBudget: unknown[] }> {
  /** The output folder, as the messages name it (`dist/widget`). */
  name: string;
  dist: string;
  isStale: () => boolean;
  build: (opts: { ifStale: boolean }) => Promise<R>;
  format: (report: R) => string;
  /** Whether `--report` also exits 1 above budget (the widget's does, so `npm run size` stops there). */
  reportFailsOverBudget: boolean;
}

/**
 * A build script's command line, run when node was started with the script at `moduleUrl`.
 * `--report` prints the last build's report (`sizes.json`); otherwise it builds (with `--if-stale`
 * only when stale, saying so when it is not) and prints the report. A failure prints its message.
 */
export function runBuildCommand<R extends { overBudget: unknown[] }>(moduleUrl: string, cmd: BuildCommand<R>): void {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  const main = async (): Promise<void> => {
    const args = new Set(process.argv.slice(2));
    let report: R;
    if (args.has('--report')) {
      const file = path.join(cmd.dist, 'sizes.json');
      if (!fs.existsSync(file)) throw new Error(`${cmd.name}/sizes.json does not exist: run \`npm run build\` first.`);
      report = JSON.parse(fs.readFileSync(file, 'utf8')) as R;
      if (!cmd.reportFailsOverBudget) {
        console.log(cmd.format(report));
        return;
      }
    } else {
      const stale = cmd.isStale();
      report = await cmd.build({ ifStale: args.has('--if-stale') });
      if (args.has('--if-stale') && !stale) {
        console.log(`${cmd.name} is up to date.`);
        return;
      }
    }
    console.log(cmd.format(report));
    // `npm run build` (and CI) fails above budget; `npm start`'s rebuild only warns, so the server still starts.
    if (report.overBudget.length && !args.has('--if-stale')) process.exitCode = 1;
  };
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}

runBuildCommand(import.meta.url, { name: 'dist/widget', dist: WIDGET_DIST, isStale: () => widgetBuildIsStale(), build: buildWidget, format: formatReport, reportFailsOverBudget: true });
