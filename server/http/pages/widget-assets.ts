import type Koa from 'koa';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

// The built widget (`npm run build` → dist/widget) at /widget/…, plus /growsurf.js: the attribution
// script under the name GrowSurf's Universal Code loads, so a page carrying that snippet works once
// its host is changed. Files are read once per version (mtime and size) and kept compressed.

/** Where `npm run build` writes the widget. */
export const DEFAULT_WIDGET_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/widget');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};
/** A file name the build writes: `attribution.js`, `window.js`, `sizes.json`, `chunks/<name>-<hash>.js`. */
const NAME = /^(?:chunks\/)?[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;
/** Entries keep their names across builds, so they are cached briefly; hashed chunks never change. */
const SHORT_CACHE = 'public, max-age=300';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** One served file, read once per version (mtime and size) and kept compressed. */
export interface CachedFile {
  version: string;
  etag: string;
  raw: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/** A reader of the files under `dir` (names already checked by the caller), cached per version. */
export function compressedFiles(dir: string): (name: string) => CachedFile | null {
  const cache = new Map<string, CachedFile>();
  return (name) => {
    const file = path.join(dir, name);
    // Callers' name patterns already exclude `..` segments; this is the second lock on the door.
    if (!file.startsWith(dir + path.sep)) return null;
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return null;
    }
    if (!st.isFile()) return null;
    const version = `${st.mtimeMs}:${st.size}`;
    const hit = cache.get(name);
    if (hit?.version === version) return hit;
    const raw = fs.readFileSync(file);
    const entry: CachedFile = {
      version,
      etag: crypto.createHash('sha256').update(raw).digest('base64url').slice(0, 27),
      raw,
      gzip: zlib.gzipSync(raw, { level: 9 }),
      br: zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
    };
    cache.set(name, entry);
    return entry;
  };
}

/** Answers with `file` in the best encoding the client takes, or 304 when its ETag matches. */
export function sendCompressed(ctx: Koa.Context, file: CachedFile, type: string): void {
  ctx.set('Vary', 'Accept-Encoding');
  // Our preference (brotli is the smaller), not the order the client listed them in.
  const encoding = ctx.acceptsEncodings('br', 'identity') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? 'gzip' : 'identity';
  const etag = `"${file.etag}${encoding === 'br' ? '-br' : encoding === 'gzip' ? '-gz' : ''}"`;
  ctx.set('ETag', etag);
  const inm = ctx.get('If-None-Match');
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  if (encoding === 'br' || encoding === 'gzip') ctx.set('Content-Encoding', encoding);
  ctx.body = encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : file.raw;
}

/** 503 with a plain explanation while `npm run build` has not made `what` (the widget or the console). */
export function notBuiltYet(ctx: Koa.Context, what: string): void {
  ctx.status = 503;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Retry-After', '30');
  ctx.body = `The ${what} has not been built yet. Run \`npm run build\` (or \`npm start\`, which builds it when it is missing or stale).\n`;
}

/** Serves dist/widget; answers 503 with a plain explanation while the widget has not been built. */
export function widgetAssets(dir: string = DEFAULT_WIDGET_DIR): Koa.Middleware {
  const load = compressedFiles(dir);

  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    let name: string;
    if (ctx.path === '/growsurf.js') name = 'attribution.js';
    else if (ctx.path.startsWith('/widget/')) name = ctx.path.slice('/widget/'.length);
    else return next();

    if (!fs.existsSync(path.join(dir, 'attribution.js'))) return notBuiltYet(ctx, 'widget');
    const type = TYPES[path.extname(name)];
    const file = NAME.test(name) && !name.includes('..') && type ? load(name) : null;
    if (!file) return next();

    const immutable = name.startsWith('chunks/');
    ctx.set('Cache-Control', immutable ? IMMUTABLE : SHORT_CACHE);
    ctx.set('Access-Control-Allow-Origin', '*');
    // Pages that isolate themselves (COEP) may still load the widget.
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    sendCompressed(ctx, file, type!);
  };
}
