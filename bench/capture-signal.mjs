// The SIGUSR2 switch of the bench's statement captures (trigger-capture.mjs for SQLite,
// pg-capture.mjs for PostgreSQL), preloaded into a `refloop serve` child: nothing is recorded until
// the first SIGUSR2; the second stops recording and writes the log (v8-serialized: Buffers and
// bigints survive) to `target`, then `target`.done with the number of entries. Bench-only.
import fs from 'node:fs';
import v8 from 'node:v8';

/** Installs the switch; the capture appends to `state.log` while it is an array (null: not recording). */
export function captureOnSignals(target) {
  const state = { log: null };
  process.on('SIGUSR2', () => {
    if (!state.log) {
      state.log = [];
      return;
    }
    const done = state.log;
    state.log = null;
    fs.writeFileSync(target, v8.serialize(done));
    fs.writeFileSync(`${target}.done`, String(done.length));
  });
  return state;
}
