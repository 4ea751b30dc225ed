// `npm run build`: the widget's production build and its byte budgets (issue #7).
//   dist/widget/attribution.js      the attribution script's first stage, a self-contained IIFE (every page)
//   dist/widget/chunks/capture-[hash].js  its second stage, an ES module with no imports (landing pages, retries)
//   dist/widget/window.js           the window bundle's ES module entry (`boot`), loaded on demand
//   dist/widget/chunks/*-[hash].js  its code-split chunks
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
const WINDOW_ENTRY = path.join(ROOT, 'widget', 'window', 'index.tsx');
/** Inputs whose change makes the build stale. */
const SOURCES = ['widget', 'shared', 'scripts/build-widget.ts', 'package-lock.json'].map((p) => path.join(ROOT, p));

/**
 * Gzip byte budgets: the attribution script every page loads (issue #7: 1.5 KB), its capture stage
 * (parser and visit queue, loaded only on landing pages and retries; our own 2 KB cap, see
 * docs/decisions.md), the window's first load (25 KB) and each of its lazy chunks (6 KB).
 */
export const BUDGETS = { attribution: 1536, capture: 2048, windowInitial: 25_600, lazyChunk: 6144 } as const;

/** One built file's sizes. */
export interface FileSize {
  file: string;
  kind: 'attribution' | 'capture' | 'window' | 'window-static' | 'lazy';
  raw: number;
  gzip: number;
  brotli: number;
}

/** What `sizes.json` holds. */
export interface SizeReport {
  builtAt: number;
  files: FileSize[];
  totals: { attribution: number; capture: number; windowInitial: number | null };
  budgets: typeof BUDGETS;
  /** Human-readable budget breaches; empty when the build is within budget. */
  overBudget: string[];
  /** False when widget/window/index.tsx did not exist and only the attribution script was built. */
  windowBuilt: boolean;
}

function sizes(file: string, kind: FileSize['kind'], code: Buffer): FileSize {
  return {
    file,
    kind,
    raw: code.length,
    gzip: zlib.gzipSync(code, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(code, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: code.length } }).length,
  };
}

function newestMtime(p: string): number {
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
  return SOURCES.some((s) => newestMtime(s) > built);
}

/**
 * Production constants whatever NODE_ENV the caller runs under (vitest sets `test`, and Vite derives
 * `import.meta.env.DEV` from NODE_ENV): dev-only warnings must never ship.
 */
const PRODUCTION = {
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
 * relative to itself, so the helper only has to call the import.
 */
const PRELOAD_HELPER = '\0vite/preload-helper.js';
const noPreloadHelper = {
  name: 'refloop:no-preload-helper',
  enforce: 'pre' as const,
  resolveId: (id: string) => (id === PRELOAD_HELPER ? id : null),
  load: (id: string) => (id === PRELOAD_HELPER ? 'export const __vitePreload = (f) => f();' : null),
};

async function buildWindow(outDir: string, entry: string): Promise<Rolldown.OutputChunk[]> {
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
        input: { window: entry },
        preserveEntrySignatures: 'exports-only',
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js', assetFileNames: 'chunks/[name]-[hash][extname]' },
      },
    },
  });
  return (Array.isArray(out) ? out[0]! : (out as Rolldown.RolldownOutput)).output.filter((o): o is Rolldown.OutputChunk => o.type === 'chunk');
}

/** Measures a finished build and judges it against the budgets. */
function measure(outDir: string, captureFile: string, windowChunks: Rolldown.OutputChunk[] | null): SizeReport {
  const read = (f: string) => fs.readFileSync(path.join(outDir, f));
  const files: FileSize[] = [sizes('attribution.js', 'attribution', read('attribution.js')), sizes(captureFile, 'capture', read(captureFile))];
  let windowInitial: number | null = null;
  if (windowChunks) {
    const byName = new Map(windowChunks.map((c) => [c.fileName, c]));
    const initial = new Set<string>();
    const walk = (name: string) => {
      if (initial.has(name)) return;
      initial.add(name);
      for (const i of byName.get(name)?.imports ?? []) walk(i);
    };
    walk('window.js');
    windowInitial = 0;
    for (const c of windowChunks) {
      const kind = c.fileName === 'window.js' ? 'window' : initial.has(c.fileName) ? 'window-static' : 'lazy';
      const s = sizes(c.fileName, kind, read(c.fileName));
      files.push(s);
      if (kind !== 'lazy') windowInitial += s.gzip;
    }
  }
  const overBudget: string[] = [];
  const attribution = files[0]!.gzip;
  const capture = files[1]!.gzip;
  if (attribution > BUDGETS.attribution) overBudget.push(`attribution.js is ${attribution} B gzip (budget ${BUDGETS.attribution})`);
  if (capture > BUDGETS.capture) overBudget.push(`${captureFile} is ${capture} B gzip (budget ${BUDGETS.capture})`);
  if (windowInitial !== null && windowInitial > BUDGETS.windowInitial) overBudget.push(`the window's first load is ${windowInitial} B gzip (budget ${BUDGETS.windowInitial})`);
  for (const f of files) if (f.kind === 'lazy' && f.gzip > BUDGETS.lazyChunk) overBudget.push(`${f.file} is ${f.gzip} B gzip (budget ${BUDGETS.lazyChunk} per lazy chunk)`);
  return { builtAt: Date.now(), files, totals: { attribution, capture, windowInitial }, budgets: BUDGETS, overBudget, windowBuilt: windowChunks !== null };
}

/** The size table printed after a build (and by `npm run size`). */
export function formatReport(r: SizeReport): string {
  const rows = r.files.map((f) => [f.file, f.kind, String(f.raw), String(f.gzip), String(f.brotli)]);
  const head = ['file', 'kind', 'raw', 'gzip', 'brotli'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join('  ');
  const out = [line(head), ...rows.map(line), ''];
  out.push(`attribution script: ${r.totals.attribution} B gzip (budget ${r.budgets.attribution}); capture stage ${r.totals.capture} B gzip (budget ${r.budgets.capture})`);
  if (r.totals.windowInitial !== null) out.push(`window first load:  ${r.totals.windowInitial} B gzip (budget ${r.budgets.windowInitial}); lazy chunks ≤ ${r.budgets.lazyChunk} B gzip each`);
  else out.push('window bundle: NOT BUILT (widget/window/index.tsx does not exist yet)');
  out.push(r.overBudget.length ? `OVER BUDGET:\n  ${r.overBudget.join('\n  ')}` : 'within budget');
  return out.join('\n');
}

const LOCK = path.join(ROOT, 'dist', '.widget-build.lock');

/** Takes the build lock (parallel test files may all want a build); stale locks (a crashed build) are broken. */
async function lock(): Promise<() => void> {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      return () => fs.rmSync(LOCK, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - fs.statSync(LOCK).mtimeMs > 60_000) fs.rmSync(LOCK, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
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
    fs.mkdirSync(path.dirname(dist), { recursive: true });
    const tmp = fs.mkdtempSync(path.join(path.dirname(dist), '.widget-'));
    try {
      // The capture stage first: the attribution script is built with its hashed name.
      const captureFile = await buildSingle(tmp, CAPTURE_ENTRY, 'chunks/capture-[hash].js', 'es');
      await buildSingle(tmp, ATTRIBUTION_ENTRY, 'attribution.js', 'iife', { __REFLOOP_CAPTURE__: JSON.stringify(captureFile) });
      let windowChunks: Rolldown.OutputChunk[] | null = null;
      if (fs.existsSync(windowEntry)) windowChunks = await buildWindow(tmp, windowEntry);
      else log(`notice: ${path.relative(ROOT, windowEntry)} does not exist yet; only the attribution script was built.`);
      const report = measure(tmp, captureFile, windowChunks);
      fs.writeFileSync(path.join(tmp, 'sizes.json'), JSON.stringify(report, null, 2) + '\n');
      const old = `${dist}.old-${process.pid}`;
      if (fs.existsSync(dist)) fs.renameSync(dist, old);
      fs.renameSync(tmp, dist);
      fs.rmSync(old, { recursive: true, force: true });
      return report;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    release();
  }
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  let report: SizeReport;
  if (args.has('--report')) {
    const file = path.join(WIDGET_DIST, 'sizes.json');
    if (!fs.existsSync(file)) throw new Error('dist/widget/sizes.json does not exist: run `npm run build` first.');
    report = JSON.parse(fs.readFileSync(file, 'utf8')) as SizeReport;
  } else {
    const stale = widgetBuildIsStale();
    report = await buildWidget({ ifStale: args.has('--if-stale') });
    if (args.has('--if-stale') && !stale) {
      console.log('dist/widget is up to date.');
      return;
    }
  }
  console.log(formatReport(report));
  // `npm run build` (and CI) fails above budget; `npm start`'s rebuild only warns, so the server still starts.
  if (report.overBudget.length && !args.has('--if-stale')) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}
