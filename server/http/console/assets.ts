import path from 'node:path';
import { PAGE_POLICY } from '../page-policy.ts';
import fs from 'node:fs';
import type Koa from 'koa';
import { fileURLToPath } from 'node:url';
import { compressedFiles, notBuiltYet, sendCompressed } from '../pages/widget-assets.ts';

// The owner console's files (`npm run build` → dist/console) and its one HTML shell: every
// `/console/…` address that is not the API or a file answers the same page, whose script reads the
// address and shows that page (issue #23).

/** Where `npm run build` writes the console. */
export const DEFAULT_CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/console');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const NAME = /^(?:chunks\/)?[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The entry and stylesheet keep their names across builds: revalidated on every load. */
const REVALIDATE = 'no-cache';

/** Headers of the shell: no caching, no framing, only our own scripts and styles. */
const SHELL_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': PAGE_POLICY.console,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>refloop console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head>
<body>
<div id="app"><p>Loading the console…</p></div>
<noscript><p>The console needs JavaScript. The <a href="/keys">API keys</a> and <a href="/team/members">team members</a> pages work without it.</p></noscript>
</body>
</html>
`;

/** Serves the console's shell and files; 503 with an explanation while it has not been built. */
export function consoleAssets(dir: string = DEFAULT_CONSOLE_DIR): Koa.Middleware {
  const load = compressedFiles(dir);
  return async (ctx, next) => {
    if (ctx.path !== '/console' && !ctx.path.startsWith('/console/')) return next();
    if (ctx.path.startsWith('/console/api/') || ctx.path === '/console/api') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (!fs.existsSync(path.join(dir, 'console.js'))) return notBuiltYet(ctx, 'console');
    if (ctx.path.startsWith('/console/assets/')) {
      const name = ctx.path.slice('/console/assets/'.length);
      const type = TYPES[path.extname(name)];
      const file = NAME.test(name) && !name.includes('..') && type ? load(name) : null;
      if (!file) return next();
      ctx.set('Cache-Control', name.startsWith('chunks/') ? IMMUTABLE : REVALIDATE);
      sendCompressed(ctx, file, type!);
      return;
    }
    ctx.set(SHELL_HEADERS);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = SHELL;
  };
}
