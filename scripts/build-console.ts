// The owner console's production build and its byte budget (issue #23), by the widget's toolchain:
//   dist/console/console.js        the app's ES module entry (session, frame, router, catalogue)
//   dist/console/console.css       its one stylesheet
//   dist/console/chunks/*-[hash].js  the pages, each loaded when first opened
//   dist/console/sizes.json        raw, gzip and brotli bytes per file, the budgets and the verdict
// `npm run build` runs it after the widget's; `--if-stale` builds only when a source is newer than
// the last build (npm start's prestart); `--report` prints the last build's sizes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Rolldown } from 'vite';
import { buildApp, initialFiles, intoDist, lock, newestMtime, runBuildCommand, sizes } from './build-widget.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the built console lives (served at /console/assets/… by server/http/console/assets.ts). */
export const CONSOLE_DIST = path.join(ROOT, 'dist', 'console');
const ENTRY = path.join(ROOT, 'console', 'main.tsx');
const SOURCES = ['console', 'shared', 'scripts/build-console.ts', 'package-lock.json'].map((p) => path.join(ROOT, p));
const LOCK = path.join(ROOT, 'dist', '.console-build.lock');

/** Gzip budgets: what the first visit loads (entry, its static imports and the stylesheet) and each page chunk. */
export const CONSOLE_BUDGETS = { firstLoad: 60 * 1024, pageChunk: 30 * 1024 } as const;

export interface ConsoleFile {
  file: string;
  kind: 'entry' | 'static' | 'css' | 'page';
  raw: number;
  gzip: number;
  brotli: number;
}

export interface ConsoleReport {
  builtAt: number;
  files: ConsoleFile[];
  firstLoad: number;
  budgets: typeof CONSOLE_BUDGETS;
  overBudget: string[];
}

/** True when dist/console is missing or older than any console source. */
export function consoleBuildIsStale(dist = CONSOLE_DIST): boolean {
  const report = path.join(dist, 'sizes.json');
  if (!['sizes.json', 'console.js', 'console.css'].every((f) => fs.existsSync(path.join(dist, f)))) return true;
  const built = fs.statSync(report).mtimeMs;
  return SOURCES.some((s) => newestMtime(s) > built);
}

function bundle(outDir: string): Promise<Rolldown.OutputChunk[]> {
  return buildApp(outDir, { console: ENTRY }, { preserveEntrySignatures: false, assetFileNames: (a) => (a.names?.[0]?.endsWith('.css') ? 'console.css' : 'chunks/[name]-[hash][extname]') });
}

function measure(dir: string, chunks: Rolldown.OutputChunk[]): ConsoleReport {
  const read = (f: string) => fs.readFileSync(path.join(dir, f));
  const initial = initialFiles(chunks, 'console.js');
  const files: ConsoleFile[] = [sizes('console.css', 'css', read('console.css'))];
  for (const c of chunks) files.push(sizes(c.fileName, c.fileName === 'console.js' ? 'entry' : initial.has(c.fileName) ? 'static' : 'page', read(c.fileName)));
  const firstLoad = files.filter((f) => f.kind !== 'page').reduce((n, f) => n + f.gzip, 0);
  const overBudget: string[] = [];
  if (firstLoad > CONSOLE_BUDGETS.firstLoad) overBudget.push(`the console's first load is ${firstLoad} B gzip (budget ${CONSOLE_BUDGETS.firstLoad})`);
  for (const f of files) if (f.kind === 'page' && f.gzip > CONSOLE_BUDGETS.pageChunk) overBudget.push(`${f.file} is ${f.gzip} B gzip (budget ${CONSOLE_BUDGETS.pageChunk} per page chunk)`);
  return { builtAt: Date.now(), files, firstLoad, budgets: CONSOLE_BUDGETS, overBudget };
}

/** The size table printed after a build. */
export function formatConsoleReport(r: ConsoleReport): string {
  const rows = r.files.map((f) => [f.file, f.kind, String(f.raw), String(f.gzip), String(f.brotli)]);
  const head = ['file', 'kind', 'raw', 'gzip', 'brotli'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join('  ');
  return [
    line(head),
    ...rows.map(line),
    '',
    `console first load: ${r.firstLoad} B gzip (budget ${r.budgets.firstLoad}); page chunks ≤ ${r.budgets.pageChunk} B gzip each`,
    r.overBudget.length ? `OVER BUDGET:\n  ${r.overBudget.join('\n  ')}` : 'within budget',
  ].join('\n');
}

/** Builds into a fresh directory and swaps it into `dist`, so the server never serves half a build. */
export async function buildConsole(opts: { ifStale?: boolean; dist?: string } = {}): Promise<ConsoleReport> {
  const dist = opts.dist ?? CONSOLE_DIST;
  const release = await lock(LOCK);
  try {
    if (opts.ifStale && !consoleBuildIsStale(dist)) return JSON.parse(fs.readFileSync(path.join(dist, 'sizes.json'), 'utf8')) as ConsoleReport;
    return await intoDist(dist, async (tmp) => measure(tmp, await bundle(tmp)));
  } finally {
    release();
  }
}

runBuildCommand(import.meta.url, { name: 'dist/console', dist: CONSOLE_DIST, isStale: () => consoleBuildIsStale(), build: buildConsole, format: formatConsoleReport, reportFailsOverBudget: false });
