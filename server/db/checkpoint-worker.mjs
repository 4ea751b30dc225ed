// The SQLite checkpointer thread (see server/db/checkpointer.ts). Plain JavaScript: worker threads
// do not inherit the tsx loader that bin/refloop.js registers in the main thread.
//
// Every `intervalMs` it copies the WAL's committed frames into the database file with a PASSIVE
// checkpoint, which never waits for or blocks the writer; the fsyncs a checkpoint needs happen here,
// not on the thread that answers requests. A PASSIVE checkpoint cannot start the WAL over while the
// writer keeps appending, so once the WAL holds `resetFrames` frames it asks the main thread for a
// quiet moment ('quiet'); the main thread holds its only connection and answers 'go'; one more
// checkpoint then backfills the few frames written since, and the writer's next transaction starts
// the WAL from its beginning.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { filename, intervalMs, resetFrames, synchronous } = workerData;
const db = new Database(filename, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
// The request connection's setting (FULL unless SQLITE_SYNCHRONOUS=NORMAL). In WAL mode a checkpoint
// syncs the WAL before copying and the database file after, under either; the same value keeps
// the two connections from disagreeing should SQLite ever consult it here.
db.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
parentPort.postMessage({ type: 'ready', synchronous: db.pragma('synchronous', { simple: true }) });

let waiting = false;
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];

const timer = setInterval(() => {
  if (waiting) return;
  try {
    const r = checkpoint();
    if (r.log >= resetFrames) {
      waiting = true;
      parentPort.postMessage({ type: 'quiet' });
    }
  } catch (err) {
    parentPort.postMessage({ type: 'failed', message: String(err?.message ?? err) });
  }
}, intervalMs);

parentPort.on('message', (m) => {
  if (m === 'go') {
    let r = null;
    try {
      r = checkpoint();
    } catch {
      // Reported as not reset; the next tick tries again.
    }
    waiting = false;
    parentPort.postMessage({ type: 'done', reset: r != null && r.busy === 0 && r.checkpointed === r.log, log: r?.log ?? -1 });
  } else if (m === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
