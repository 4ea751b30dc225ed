// Preloaded into a `refloop serve` child by bench/pg-floor.ts (NODE_OPTIONS=--import <this file>) to
// capture the exact statements the server sends to PostgreSQL, in order, with their bound values,
// for the floor rows of issue #34 goal 1. Nothing is recorded until the first SIGUSR2; while it
// records, every COMMIT the server sends is sent as ROLLBACK instead (the server is told it
// committed), so the database stays as the captured operations found it and the floor can write
// their exact rows afterwards. The second SIGUSR2 stops recording and writes the log (v8-serialized)
// to BENCH_CAPTURE_FILE, then BENCH_CAPTURE_FILE.done. Bench-only: the server never loads this file.
import { createRequire } from 'node:module';
import path from 'node:path';
import { captureOnSignals } from './capture-signal.mjs';

const require = createRequire(path.join(process.cwd(), 'package.json'));
const pg = require('pg');
const target = process.env.BENCH_CAPTURE_FILE;

const ids = new WeakMap();
let next = 0;
const connection = (client) => {
  let id = ids.get(client);
  if (id === undefined) ids.set(client, (id = ++next));
  return id;
};
const COMMIT = /^\s*(COMMIT|END)\s*;?\s*$/i;

if (target) {
  const capture = captureOnSignals(target);
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    if (capture.log) {
      const q = args[0];
      const text = typeof q === 'string' ? q : (q?.text ?? '');
      const values = typeof q === 'string' ? (Array.isArray(args[1]) ? args[1] : []) : (q?.values ?? []);
      capture.log.push([connection(this), text, values]);
      if (COMMIT.test(text)) args[0] = typeof q === 'string' ? 'ROLLBACK' : { ...q, text: 'ROLLBACK', name: undefined };
    }
    return query.apply(this, args);
  };
}
