// Preloaded into a `refloop serve` child by bench/trigger-floor.ts (NODE_OPTIONS=--import <this file>)
// to capture the exact SQLite statements the server runs, in order, with their bound values.
// Nothing is recorded until the first SIGUSR2; the second SIGUSR2 stops recording and writes the log
// (v8-serialized: Buffers and bigints survive) to BENCH_CAPTURE_FILE, then BENCH_CAPTURE_FILE.done.
// Only statements on the server's own database file (DATABASE_URL) are kept. Bench-only: the
// server itself never loads this file.
import { createRequire } from 'node:module';
import path from 'node:path';
import { captureOnSignals } from './capture-signal.mjs';

const require = createRequire(path.join(process.cwd(), 'package.json'));
const Database = require('better-sqlite3');
const target = process.env.BENCH_CAPTURE_FILE;
const dbFile = process.env.DATABASE_URL ? path.resolve(process.env.DATABASE_URL) : null;
/** Whether a connection's file is the server's database (names compared resolved, once per name). */
const ours = new Map();
const isOurs = (name) => {
  let yes = ours.get(name);
  if (yes === undefined) ours.set(name, (yes = !!name && path.resolve(name) === dbFile));
  return yes;
};


if (target) {
  const capture = captureOnSignals(target);
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const orig = proto[m];
    proto[m] = function (...args) {
      if (capture.log && isOurs(this.database.name)) capture.log.push([m, this.source, args]);
      return orig.apply(this, args);
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (sql) {
    if (capture.log && isOurs(this.name)) capture.log.push(['exec', sql, []]);
    return exec.call(this, sql);
  };
}
