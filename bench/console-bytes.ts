import path from 'node:path';
import { buildConsole, CONSOLE_DIST, type ConsoleReport } from '../scripts/build-console.ts';

// Row (u) of `npm run bench`: the owner console's bytes (issue #23), from the build's own report
// (dist/console/sizes.json, written by scripts/build-console.ts; built first when a source is newer).
// What a first visit to /console downloads is the entry, its static imports and the stylesheet;
// every page is a lazily loaded chunk with its own budget.

/** Prints the console's first-load bytes against the budget, and its largest page chunk. */
export async function consoleBytesRow(): Promise<ConsoleReport> {
  const report = await buildConsole({ ifStale: true });
  const first = report.files.filter((f) => f.kind !== 'page');
  const sum = (k: 'raw' | 'gzip' | 'brotli') => first.reduce((n, f) => n + f[k], 0);
  const pages = report.files.filter((f) => f.kind === 'page').sort((a, b) => b.gzip - a.gzip);
  const largest = pages[0];
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`\n(u) owner console bytes (${path.relative(process.cwd(), CONSOLE_DIST) || CONSOLE_DIST}/sizes.json)`);
  console.log('\n| What | raw | gzip | brotli | budget (gzip) |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| (u) console first load: ${first.map((f) => f.file).join(' + ')} | ${kb(sum('raw'))} | ${kb(sum('gzip'))} | ${kb(sum('brotli'))} | ${kb(report.budgets.firstLoad)} |`);
  if (largest) console.log(`| largest of ${pages.length} page chunks: ${largest.file} | ${kb(largest.raw)} | ${kb(largest.gzip)} | ${kb(largest.brotli)} | ${kb(report.budgets.pageChunk)} each |`);
  console.log(report.overBudget.length ? `OVER BUDGET: ${report.overBudget.join('; ')}` : 'within budget');
  return report;
}
