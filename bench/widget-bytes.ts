import path from 'node:path';
import { buildWidget, formatReport, WIDGET_DIST, type SizeReport } from '../scripts/build-widget.ts';

// Row (v) of `npm run bench`: the widget's bytes (issue #24), from the build's own report
// (dist/widget/sizes.json, written by scripts/build-widget.ts; built first when a source is newer):
// every entry and chunk with raw, gzip and brotli bytes, then the budget lines `npm run build` checks.

/** Prints every widget file's bytes and the budget verdict. */
export async function widgetBytesRow(): Promise<SizeReport> {
  const report = await buildWidget({ ifStale: true, log: () => {} });
  console.log(`\n(v) widget bytes (${path.relative(process.cwd(), WIDGET_DIST) || WIDGET_DIST}/sizes.json)\n`);
  console.log(formatReport(report));
  return report;
}
