import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { checkBaseline, compareImages, MAX_DIFF_RATIO } from './e2e/visual-diff.ts';

// The visual-regression comparison (issue #32) on pictures drawn here: a page-like layout of a
// header, cards and lines of "text", the same layout shifted by a few pixels, and the baseline
// workflow (missing, written, updated, differing) in a temporary folder.

type Box = { x: number; y: number; w: number; h: number; rgb: [number, number, number] };

/** A PNG of `width`×`height`, white, with `boxes` painted in order, everything moved down by `shift`. */
function draw(width: number, height: number, boxes: Box[], shift = 0): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(255);
  for (const b of boxes) {
    for (let y = b.y + shift; y < Math.min(height, b.y + shift + b.h); y++) {
      for (let x = b.x; x < Math.min(width, b.x + b.w); x++) {
        const i = (y * width + x) * 4;
        [png.data[i], png.data[i + 1], png.data[i + 2]] = b.rgb;
      }
    }
  }
  return PNG.sync.write(png);
}

/** A console-like screen: a header bar, two cards, lines of text in each, a button. */
function layout(width = 400, height = 300): Box[] {
  const boxes: Box[] = [{ x: 0, y: 0, w: width, h: 40, rgb: [79, 70, 229] }];
  for (const [i, top] of [60, 170].entries()) {
    boxes.push({ x: 16, y: top, w: width - 32, h: 96, rgb: [243, 244, 246] });
    for (let line = 0; line < 4; line++) boxes.push({ x: 28, y: top + 12 + line * 16, w: 180 + ((i + line) % 3) * 40, h: 8, rgb: [31, 41, 55] });
  }
  boxes.push({ x: width - 120, y: 240, w: 90, h: 24, rgb: [79, 70, 229] });
  return boxes;
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'visual-diff-'));

describe('compareImages', () => {
  it('passes identical pictures with no differing pixel', () => {
    const c = compareImages(draw(400, 300, layout()), draw(400, 300, layout()));
    expect(c).toMatchObject({ sameSize: true, diffPixels: 0, ratio: 0, pass: true });
  });

  it('fails the same layout shifted down by 3 px, and its diff picture marks the changed pixels', () => {
    const c = compareImages(draw(400, 300, layout(), 3), draw(400, 300, layout()));
    expect(c.sameSize).toBe(true);
    expect(c.pass).toBe(false);
    expect(c.ratio).toBeGreaterThan(MAX_DIFF_RATIO * 10);
    const diff = PNG.sync.read(c.diffPng!);
    let red = 0;
    for (let i = 0; i < diff.data.length; i += 4) if (diff.data[i] === 255 && diff.data[i + 1] === 0 && diff.data[i + 2] === 0) red++;
    expect(red).toBe(c.diffPixels);
  });

  it('fails a button moved sideways by 2 px (a small layout change)', () => {
    const moved = layout().map((b, i, all) => (i === all.length - 1 ? { ...b, x: b.x + 2 } : b));
    const c = compareImages(draw(400, 300, moved), draw(400, 300, layout()));
    expect(c.diffPixels).toBe(2 * 24 * 2);
    expect(c.pass).toBe(false);
  });

  it('tolerates a single stray pixel and colour changes under the pixel threshold', () => {
    const stray = compareImages(draw(400, 300, [...layout(), { x: 399, y: 299, w: 1, h: 1, rgb: [0, 0, 0] }]), draw(400, 300, layout()));
    expect(stray).toMatchObject({ diffPixels: 1, pass: true });
    const faint = layout().map((b) => ({ ...b, rgb: b.rgb.map((v) => Math.max(0, v - 2)) as Box['rgb'] }));
    expect(compareImages(draw(400, 300, faint), draw(400, 300, layout()))).toMatchObject({ diffPixels: 0, pass: true });
  });

  it('fails on a size difference even when the common part is the same', () => {
    const c = compareImages(draw(400, 310, layout()), draw(400, 300, layout()));
    expect(c).toMatchObject({ sameSize: false, pass: false, width: 400, height: 310, baselineSize: { width: 400, height: 300 }, diffPng: null });
  });
});

describe('checkBaseline', () => {
  const png = draw(400, 300, layout());
  const shifted = draw(400, 300, layout(), 3);

  it('under CI a missing baseline fails and nothing is written', () => {
    const dir = tmp();
    const out = checkBaseline('home-390', png, { baselineDir: path.join(dir, 'b'), artifactDir: path.join(dir, 'a'), update: false, ci: true });
    expect(out.result).toBe('missing');
    expect(out.message).toContain('home-390');
    expect(fs.existsSync(path.join(dir, 'b', 'home-390.png'))).toBe(false);
  });

  it('locally a missing baseline is written with a warning; then the same picture matches', () => {
    const dir = tmp();
    const warnings: string[] = [];
    const opts = { baselineDir: path.join(dir, 'b'), artifactDir: path.join(dir, 'a'), update: false, ci: false, warn: (l: string) => warnings.push(l) };
    expect(checkBaseline('home-390', png, opts).result).toBe('written');
    expect(warnings).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'b', 'home-390.png')).equals(png)).toBe(true);
    expect(checkBaseline('home-390', png, opts).result).toBe('match');
    expect(fs.existsSync(path.join(dir, 'a'))).toBe(false);
  });

  it('a differing picture fails, names the screen and leaves the actual and diff pictures; UPDATE_BASELINES rewrites it', () => {
    const dir = tmp();
    const opts = { baselineDir: path.join(dir, 'b'), artifactDir: path.join(dir, 'a'), update: false, ci: true };
    fs.mkdirSync(opts.baselineDir);
    fs.writeFileSync(path.join(opts.baselineDir, 'participants-1366.png'), png);
    const out = checkBaseline('participants-1366', shifted, opts);
    expect(out.result).toBe('differs');
    expect(out.message).toMatch(/^participants-1366: \d+ pixels differ/);
    expect(fs.readFileSync(path.join(dir, 'a', 'participants-1366.actual.png')).equals(shifted)).toBe(true);
    expect(PNG.sync.read(fs.readFileSync(path.join(dir, 'a', 'participants-1366.diff.png'))).width).toBe(400);
    expect(checkBaseline('participants-1366', shifted, { ...opts, update: true }).result).toBe('written');
    expect(checkBaseline('participants-1366', shifted, opts).result).toBe('match');
  });

  it('a size difference fails with both sizes in the message', () => {
    const dir = tmp();
    const opts = { baselineDir: path.join(dir, 'b'), artifactDir: path.join(dir, 'a'), update: false, ci: false };
    fs.mkdirSync(opts.baselineDir);
    fs.writeFileSync(path.join(opts.baselineDir, 'landing-390.png'), png);
    const out = checkBaseline('landing-390', draw(400, 320, layout()), opts);
    expect(out).toMatchObject({ result: 'differs', message: 'landing-390: size 400×320, baseline 400×300' });
    expect(fs.existsSync(path.join(dir, 'a', 'landing-390.actual.png'))).toBe(true);
  });
});
