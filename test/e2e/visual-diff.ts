import fs from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

// The comparison behind the visual-regression suite (issue #32): a screenshot against its committed
// baseline with pixelmatch, and what happens around it (a missing baseline, an update, the artifacts
// a failure leaves). Kept apart from the browser so its own unit test proves it can fail.

/** pixelmatch's per-pixel colour distance (0–1) above which a pixel counts as changed. */
export const PIXEL_THRESHOLD = 0.1;

/**
 * The share of a picture's pixels that may differ before it fails (issue #32): meant to absorb only
 * stray noise, on the expectation (not yet measured: no browser suite uses this module yet) that the
 * pictures are pixel-identical run to run; a button moved by a few pixels is far above it.
 */
export const MAX_DIFF_RATIO = 0.0002;

/** How two pictures compare: same size or not, how many pixels differ, and the diff picture. */
export interface Comparison {
  sameSize: boolean;
  width: number;
  height: number;
  /** The baseline's size when it differs from the actual picture's. */
  baselineSize: { width: number; height: number };
  diffPixels: number;
  ratio: number;
  pass: boolean;
  /** A PNG with the changed pixels in red over a faded baseline (absent on a size difference). */
  diffPng: Buffer | null;
}

/** Compares two PNG pictures; a size difference always fails. */
export function compareImages(actualPng: Buffer, baselinePng: Buffer, opts: { threshold?: number; maxDiffRatio?: number } = {}): Comparison {
  const actual = PNG.sync.read(actualPng);
  const baseline = PNG.sync.read(baselinePng);
  const base = { width: actual.width, height: actual.height, baselineSize: { width: baseline.width, height: baseline.height } };
  if (actual.width !== baseline.width || actual.height !== baseline.height) {
    return { ...base, sameSize: false, diffPixels: actual.width * actual.height, ratio: 1, pass: false, diffPng: null };
  }
  const diff = new PNG({ width: actual.width, height: actual.height });
  const diffPixels = pixelmatch(actual.data, baseline.data, diff.data, actual.width, actual.height, { threshold: opts.threshold ?? PIXEL_THRESHOLD });
  const ratio = diffPixels / (actual.width * actual.height);
  return { ...base, sameSize: true, diffPixels, ratio, pass: ratio <= (opts.maxDiffRatio ?? MAX_DIFF_RATIO), diffPng: PNG.sync.write(diff) };
}

/** What became of one screen's picture. */
export interface BaselineOutcome {
  screen: string;
  /** `match`, `differs` (or a size difference), `missing` (under CI), `written` (new or updated). */
  result: 'match' | 'differs' | 'missing' | 'written';
  /** A line for the assertion message or the log. */
  message: string;
  comparison?: Comparison;
}

/** Where baselines and failure artifacts live, and how the run treats them. */
export interface BaselineOptions {
  baselineDir: string;
  artifactDir: string;
  /** UPDATE_BASELINES=1: write the picture as the new baseline. */
  update: boolean;
  /** CI=true: a missing baseline is a failure, never written. */
  ci: boolean;
  warn?: (line: string) => void;
}

/**
 * Checks `png` (screen `screen`) against `baselineDir/<screen>.png`. On a difference writes
 * `<screen>.actual.png` and `<screen>.diff.png` into `artifactDir`; writes the baseline when asked
 * to update, or when it is missing outside CI (with a warning).
 */
export function checkBaseline(screen: string, png: Buffer, opts: BaselineOptions): BaselineOutcome {
  const file = path.join(opts.baselineDir, `${screen}.png`);
  const write = () => {
    fs.mkdirSync(opts.baselineDir, { recursive: true });
    fs.writeFileSync(file, png);
  };
  if (opts.update) {
    write();
    return { screen, result: 'written', message: `${screen}: baseline updated` };
  }
  if (!fs.existsSync(file)) {
    if (opts.ci) return { screen, result: 'missing', message: `${screen}: no baseline ${path.relative(process.cwd(), file)} (run UPDATE_BASELINES=1 locally, look at it, commit it)` };
    write();
    const message = `${screen}: no baseline yet, wrote ${path.relative(process.cwd(), file)}; look at it before committing it`;
    opts.warn?.(message);
    return { screen, result: 'written', message };
  }
  const comparison = compareImages(png, fs.readFileSync(file));
  if (comparison.pass) return { screen, result: 'match', message: `${screen}: matches`, comparison };
  fs.mkdirSync(opts.artifactDir, { recursive: true });
  fs.writeFileSync(path.join(opts.artifactDir, `${screen}.actual.png`), png);
  if (comparison.diffPng) fs.writeFileSync(path.join(opts.artifactDir, `${screen}.diff.png`), comparison.diffPng);
  const message = comparison.sameSize
    ? `${screen}: ${comparison.diffPixels} pixels differ (${(comparison.ratio * 100).toFixed(3)} %, at most ${(MAX_DIFF_RATIO * 100).toFixed(3)} %)`
    : `${screen}: size ${comparison.width}×${comparison.height}, baseline ${comparison.baselineSize.width}×${comparison.baselineSize.height}`;
  return { screen, result: 'differs', message, comparison };
}
