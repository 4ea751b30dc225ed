// The server and CLI compiled to JavaScript (issue #21): one esbuild bundle of server/cli.ts with a
// chunk per lazily imported command, so `refloop --help` loads a few kilobytes and `refloop team list`
// loads only what it needs, with no TypeScript transpiling at run time.
//
// Plain JavaScript, so bin/refloop.js can call it before (and without) loading tsx.
// Each build lives in dist/server/b<stamp>/, where <stamp> is the newest modification time among its
// inputs: a source edit makes a new stamp, so the CLI never runs stale code; it rebuilds (about 0.3 s)
// on its next call. Builds are written to a temporary folder and renamed into place, so processes
// started together never see half a build. The folder is three levels below the root on purpose:
// server code that finds files relative to its own module (dist/widget, the checkpoint worker) then
// resolves the same paths from the bundle as from server/http/pages/*.ts.
//
//   node scripts/build-server.mjs   builds when stale (npm install's prepare, npm start's prestart)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_ROOT = path.join(ROOT, 'dist', 'server');
/** Inputs whose change makes the build stale. */
const INPUTS = ['server', 'shared', 'tsconfig.json', 'scripts/build-server.mjs'].map((p) => path.join(ROOT, p));
/** Plain files the bundle loads by URL next to itself. */
const COPIED = ['server/db/checkpoint-worker.mjs'];
const KEEP_BUILDS = 3;

/** Newest mtime (ms) of a file or of a folder and everything in it (folder mtimes catch deletions). */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  let max = st.mtimeMs;
  if (st.isDirectory()) for (const name of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, name)));
  return max;
}

/** The build folder for the current sources, and whether it exists. */
export function currentBuild() {
  const stamp = Math.floor(Math.max(...INPUTS.map(newest)));
  const dir = path.join(OUT_ROOT, `b${stamp}`);
  return { dir, entry: path.join(dir, 'cli.js'), fresh: fs.existsSync(path.join(dir, 'cli.js')) };
}

/** Builds the current sources unless already built; returns the CLI entry's file URL. */
export async function ensureServerBuild() {
  const build = currentBuild();
  if (build.fresh) return pathToFileURL(build.entry).href;
  // esbuild comes with tsx (a dependency); resolve it from there rather than from the hoisting.
  const fromRoot = createRequire(path.join(ROOT, 'package.json'));
  const esbuild = createRequire(fromRoot.resolve('tsx/package.json'))('esbuild');
  const tmp = path.join(OUT_ROOT, `.tmp-${process.pid}-${Date.now()}`);
  try {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { cli: 'server/cli.ts' },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      outdir: tmp,
      chunkNames: '[name]-[hash]',
      logLevel: 'silent',
    });
    for (const file of COPIED) fs.copyFileSync(path.join(ROOT, file), path.join(tmp, path.basename(file)));
    try {
      fs.renameSync(tmp, build.dir);
    } catch (err) {
      // Another process finished the same build first: use its copy.
      if (!fs.existsSync(path.join(build.dir, 'cli.js'))) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  prune(build.dir);
  return pathToFileURL(build.entry).href;
}

/**
 * Removes all but the newest builds (a running server may still load chunks of the one it started
 * from), and temporary folders of builds that were interrupted more than ten minutes ago.
 */
function prune(keep) {
  const names = fs.readdirSync(OUT_ROOT);
  for (const name of names.filter((n) => n.startsWith('.tmp-'))) {
    const dir = path.join(OUT_ROOT, name);
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > 600_000) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Already gone.
    }
  }
  const builds = names
    .filter((n) => /^b\d+$/.test(n))
    .sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)));
  for (const name of builds.slice(KEEP_BUILDS)) {
    const dir = path.join(OUT_ROOT, name);
    if (dir !== keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const wasFresh = currentBuild().fresh;
  try {
    const entry = await ensureServerBuild();
    const where = path.relative(ROOT, path.dirname(fileURLToPath(entry)));
    console.log(wasFresh ? `${where} is up to date.` : `Built the server and CLI into ${where} in ${Math.round(performance.now() - started)} ms.`);
  } catch (err) {
    // Not fatal for npm install: the CLI then runs the TypeScript sources through tsx, only slower.
    console.warn(`Could not build the server (${err.message}); the CLI will run the sources through tsx.`);
  }
}
