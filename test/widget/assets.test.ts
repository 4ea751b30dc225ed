// Serving the built widget (issue #7): /widget/… and the /growsurf.js alias of the Universal Code.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.ts';
import { WIDGET_DIST, buildWidget, type SizeReport } from '../../scripts/build-widget.ts';
import { widgetAssets } from '../../server/http/pages/widget-assets.ts';

let app: TestApp;
let report: SizeReport;

beforeAll(async () => {
  report = await buildWidget({ ifStale: true, log: () => {} });
  app = await startApp();
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/** A raw GET (Node's fetch would decode the body and hide Content-Encoding). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('widget assets', () => {
  it('serves the attribution script at /widget/attribution.js and as /growsurf.js?v=2.0.0', async () => {
    const file = fs.readFileSync(path.join(WIDGET_DIST, 'attribution.js'));
    for (const p of ['/widget/attribution.js', '/growsurf.js?v=2.0.0', '/growsurf.js']) {
      const res = await get(app.url + p);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body.equals(file)).toBe(true);
    }
  });

  it('compresses with brotli or gzip as the client accepts, with a distinct ETag per encoding', async () => {
    const file = fs.readFileSync(path.join(WIDGET_DIST, 'attribution.js'));
    const br = await get(`${app.url}/growsurf.js`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(zlib.brotliDecompressSync(br.body).equals(file)).toBe(true);
    const gz = await get(`${app.url}/growsurf.js`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(file)).toBe(true);
    const plain = await get(`${app.url}/growsurf.js`);
    expect(new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]).size).toBe(3);
  });

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const first = await get(`${app.url}/widget/attribution.js`);
    const again = await get(`${app.url}/widget/attribution.js`, { 'if-none-match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const changed = await get(`${app.url}/widget/attribution.js`, { 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
    const head = await get(`${app.url}/widget/attribution.js`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('serves hashed chunks as immutable and the window entry with a short cache', async () => {
    const capture = report.files.find((f) => f.kind === 'capture')!;
    expect(capture.file).toMatch(/^chunks\/capture-[\w-]+\.js$/);
    const chunk = await get(`${app.url}/widget/${capture.file}`);
    expect(chunk.status).toBe(200);
    expect(chunk.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(chunk.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(chunk.headers['access-control-allow-origin']).toBe('*');
    if (report.windowBuilt) {
      const win = await get(`${app.url}/widget/window.js`);
      expect(win.status).toBe(200);
      expect(win.headers['cache-control']).toBe('public, max-age=300');
    }
    const sizes = await get(`${app.url}/widget/sizes.json`);
    expect(sizes.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(sizes.body.toString()).totals.attribution).toBe(report.totals.attribution);
  });

  it('answers 404 for unknown files and never leaves dist/widget', async () => {
    for (const p of [
      '/widget/nope.js',
      '/widget/chunks/nope-123.js',
      '/widget/',
      '/widget/chunks',
      '/widget/../package.json',
      '/widget/%2e%2e/package.json',
      '/widget/..%2fpackage.json',
      '/widget/chunks/../../../package.json',
      '/widget/.widget-build.lock',
      '/widget//etc/passwd',
      '/widget/attribution.ts',
      '/growsurf.json',
    ]) {
      const res = await get(app.url + p);
      expect(res.status, p).toBe(404);
      expect(res.body.toString()).not.toContain('"dependencies"');
    }
  });

  it('answers 503 with a plain explanation when the widget has not been built', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-widget-'));
    const koa = new Koa();
    koa.use(widgetAssets(empty));
    koa.use((ctx) => {
      ctx.status = 404;
    });
    const server = http.createServer(koa.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      for (const p of ['/growsurf.js?v=2.0.0', '/widget/window.js']) {
        const res = await get(base + p);
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.body.toString()).toContain('npm run build');
      }
      expect((await get(`${base}/other`)).status).toBe(404);
    } finally {
      server.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
