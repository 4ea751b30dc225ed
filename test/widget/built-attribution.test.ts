// @vitest-environment happy-dom
// @vitest-environment-options {"happyDOM":{"settings":{"disableJavaScriptFileLoading":true,"handleDisabledFileLoadingAsSuccess":true}}}
// The same attribution tests against the BUILT dist/widget/attribution.js (issue #7): evaluated as a
// classic script with document.currentScript set, its import() calls served over HTTP by the app.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS, WIDGET_DIST, buildWidget, type SizeReport } from '../../scripts/build-widget.ts';
import { builtMode, registerHttpModules } from './attribution-harness.ts';
import { attributionSuite } from './attribution-suite.ts';

beforeAll(async () => {
  await buildWidget({ ifStale: true, log: () => {} });
  await registerHttpModules();
}, 120_000);

attributionSuite(builtMode(WIDGET_DIST));

describe('built attribution files', () => {
  it('are self-contained, within budget, and carry no development-only text', () => {
    const report = JSON.parse(fs.readFileSync(path.join(WIDGET_DIST, 'sizes.json'), 'utf8')) as SizeReport;
    const capture = report.files.find((f) => f.kind === 'capture')!;
    const pageStage = report.files.find((f) => f.kind === 'launcher')!;
    for (const file of ['attribution.js', pageStage.file, capture.file]) {
      const code = fs.readFileSync(path.join(WIDGET_DIST, file), 'utf8');
      expect(code).not.toMatch(/not sending|console\.|import\.meta|from\s*["'`]/);
    }
    const attribution = fs.readFileSync(path.join(WIDGET_DIST, 'attribution.js'));
    // A classic script: one IIFE, no module syntax, naming its page stage by hashed file name, which names the capture stage.
    expect(attribution.toString()).toMatch(/^\(function\(\)\{/);
    expect(attribution.toString()).toContain(pageStage.file);
    expect(fs.readFileSync(path.join(WIDGET_DIST, pageStage.file), 'utf8')).toContain(capture.file);
    expect(zlib.gzipSync(attribution, { level: 9 }).length).toBeLessThanOrEqual(BUDGETS.attribution);
    expect(report.totals.attribution).toBeLessThanOrEqual(BUDGETS.attribution);
  });
});
