// The widget build itself (scripts/build-widget.ts): what it writes, how it measures, and the
// attribution-only build of a checkout without the window bundle.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGETS, buildWidget, formatReport, unwrapPreloads, widgetBuildIsStale } from '../../scripts/build-widget.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-build-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('widget build', () => {
  it('builds only the attribution script, with a notice, when the window entry does not exist', async () => {
    const dist = path.join(tmp, 'widget');
    const lines: string[] = [];
    const report = await buildWidget({ dist, windowEntry: path.join(tmp, 'missing', 'index.tsx'), log: (l) => lines.push(l) });
    expect(lines.join('\n')).toMatch(/notice: .*index\.tsx does not exist yet; only the attribution script was built/);
    expect(report.windowBuilt).toBe(false);
    expect(report.totals.windowInitial).toBeNull();
    expect(report.files.map((f) => f.kind)).toEqual(['attribution', 'capture', 'launcher', 'launcher-ui', 'form', 'stripe']);
    expect(fs.existsSync(path.join(dist, 'window.js'))).toBe(false);
    // The measured numbers are the files' own: raw bytes, gzip -9 and brotli.
    for (const f of report.files) {
      const code = fs.readFileSync(path.join(dist, f.file));
      expect(f.raw).toBe(code.length);
      expect(f.gzip).toBe(zlib.gzipSync(code, { level: 9 }).length);
      expect(f.brotli).toBeLessThan(f.gzip);
    }
    expect(JSON.parse(fs.readFileSync(path.join(dist, 'sizes.json'), 'utf8'))).toEqual(report);
    expect(report.overBudget).toEqual([]);
    expect(report.budgets).toEqual(BUDGETS);
    const table = formatReport(report);
    expect(table).toMatch(/^file\s+kind\s+raw\s+gzip\s+brotli$/m);
    expect(table).toContain('window bundle: NOT BUILT');
    // The corner launcher has its own line and budget (issue #24).
    expect(table).toMatch(/corner launcher: +\d+ B gzip beyond the attribution script \(budget 3072\)/);
    expect(table).toContain('within budget');
    // This checkout has widget/window/index.tsx, so a build without window.js is stale for it.
    expect(widgetBuildIsStale(dist)).toBe(fs.existsSync(path.resolve('widget/window/index.tsx')));
    fs.rmSync(path.join(dist, 'attribution.js'));
    expect(widgetBuildIsStale(dist)).toBe(true);
  }, 120_000);

  it('reports a budget breach in words', () => {
    const report = {
      builtAt: 0,
      files: [{ file: 'attribution.js', kind: 'attribution' as const, raw: 4000, gzip: 1600, brotli: 1400 }],
      totals: { attribution: 1600, capture: 0, launcher: 0, windowInitial: null },
      budgets: BUDGETS,
      overBudget: ['attribution.js is 1600 B gzip (budget 1536)'],
      windowBuilt: false,
    };
    expect(formatReport(report)).toContain('OVER BUDGET:\n  attribution.js is 1600 B gzip (budget 1536)');
  });

  it('calls dynamic imports directly: no preload wrapper, no helper exported to the chunks (issue #27: 39 B gzip of the window first load)', async () => {
    // A rendered chunk as Vite hands it over (before the minifier): the helper defined and exported by the entry…
    const entry = [
      'var __vitePreload = (f) => f();',
      'async function refresh() {',
      '\tif (ok) await __vitePreload(() => import("./chunks/load-x.js").then((m) => m.use(win), () => null), __VITE_PRELOAD__);',
      '\tconst lazy = () => __vitePreload(() => import("./chunks/a.js").then(() => __vitePreload(() => import("./chunks/b.js"), __VITE_PRELOAD__)), __VITE_PRELOAD__);',
      '}',
      'export { refresh as a, __vitePreload as k, t as z };',
    ].join('\n');
    expect(unwrapPreloads(entry)).toBe(
      [
        'async function refresh() {',
        '\tif (ok) await (() => import("./chunks/load-x.js").then((m) => m.use(win), () => null))();',
        '\tconst lazy = () => (() => import("./chunks/a.js").then(() => (() => import("./chunks/b.js"))()))();',
        '}',
        'export { refresh as a, t as z };',
      ].join('\n'),
    );
    // …and imported by a lazy chunk, last in its list or alone.
    expect(unwrapPreloads('import { a as refresh, k as __vitePreload } from "../window.js";\nconst x = () => __vitePreload(() => import("./c.js"), __VITE_PRELOAD__);')).toBe(
      'import { a as refresh} from "../window.js";\nconst x = () => (() => import("./c.js"))();',
    );
    expect(unwrapPreloads('import { k as __vitePreload } from "../window.js";')).toBe('import {} from "../window.js";');
    // The built window: plain import() calls, nothing left of the helper.
    await buildWidget({ ifStale: true, log: () => {} });
    const built = fs.readFileSync(path.resolve('dist/widget/window.js'), 'utf8');
    expect(built).not.toMatch(/__vitePreload|__VITE_PRELOAD__|\b(\w+)=>\1\(\)/);
    expect(built).toMatch(/[^.\w]import\(`\.\/chunks\/load-[\w-]+\.js`\)/);
  }, 120_000);
});
