#!/usr/bin/env node
// The refloop CLI. It runs the compiled server (scripts/build-server.mjs: rebuilt when a source is
// newer than the last build), or the TypeScript sources through tsx when no build can be made.
// Either way the server runs in this very process, so signals sent to this pid reach it.
import { ensureServerBuild } from '../scripts/build-server.mjs';

// `refloop … | head`: once the reader is gone, stop quietly with status 0 (a server drains first).
let serving = false;
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  if (serving) process.kill(process.pid, 'SIGTERM');
  else process.exit(0);
});

let main;
try {
  ({ main } = await import(await ensureServerBuild()));
} catch {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../server/cli.ts'));
}
const argv = process.argv.slice(2);
serving = argv[0] === 'serve';
// Under `npx refloop serve`, npm runs us through `sh -c`, which exits on npm's forwarded SIGTERM
// without passing it on; npm's own variables are how we know, so we stop when our parent goes.
const stopWithParent = process.env.npm_lifecycle_event === 'npx' || process.env.npm_command === 'exec';
process.exitCode = await main(argv, undefined, undefined, { stopWithParent });
// A stopped server has drained and closed its database: a straggling handle must not keep it alive.
if (serving) setTimeout(() => process.exit(), 1000).unref();
