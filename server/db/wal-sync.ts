// The WAL sync of `Db.batch` on SQLite with `synchronous` FULL: the batch commits without the sync
// (its COMMIT only appends to the WAL), and the WAL is then synced on libuv's thread pool before the
// batch's promise settles. The guarantee is FULL's (nothing is answered before its frames are on
// disk) but the request thread no longer stands still for the disk: ≈ 1 ms per commit on a quiet
// disk, many milliseconds on a busy one, in which it used to parse, check and answer nothing.
import fs from 'node:fs';

/**
 * `sync()` settles once a sync of the WAL file that began after the call has finished, so a caller
 * that has just committed knows its frames are on disk. Callers that come while a sync runs share
 * the next one (that sync may have started before their commit), so under load there is at most
 * one sync running and one waiting, whatever the number of batches.
 */
export class WalSync {
  readonly #path: string;
  #fd: number | null = null;
  #ino = 0;
  #running: Promise<void> | null = null;
  #next: Promise<void> | null = null;

  constructor(databaseFile: string) {
    this.#path = `${databaseFile}-wal`;
  }

  sync(): Promise<void> {
    if (!this.#running) {
      const run = this.#syncOnce().finally(() => {
        if (this.#running === run) this.#running = null;
      });
      this.#running = run;
      return run;
    }
    // The running sync may have begun before this caller's COMMIT: wait for it, then start the next one together.
    this.#next ??= this.#running.then(
      () => this.#startNext(),
      () => this.#startNext(),
    );
    return this.#next;
  }

  #startNext(): Promise<void> {
    this.#next = null;
    return this.sync();
  }

  /** Waits for the syncs under way, then closes the WAL's descriptor (the database is closing). */
  async close(): Promise<void> {
    await Promise.allSettled([this.#running, this.#next]);
    if (this.#fd !== null) fs.closeSync(this.#fd);
    this.#fd = null;
  }

  /** One fdatasync of the WAL on the thread pool: a single hand-off (the descriptor is kept open). */
  #syncOnce(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let fd: number;
      try {
        fd = this.#descriptor();
      } catch (err) {
        reject(err);
        return;
      }
      fs.fdatasync(fd, (err) => (err ? reject(err) : resolve()));
    });
  }

  /**
   * The WAL's descriptor, opened once and again whenever the file at its path is another one
   * (SQLite deletes the WAL when its last connection closes; a descriptor kept from before would
   * sync the old file). Called only when no sync is running, so closing the old one is safe. The
   * file exists while a connection is open in WAL mode, as the caller of a batch holds one.
   */
  #descriptor(): number {
    if (this.#fd !== null) {
      let ino = -1;
      try {
        ino = fs.statSync(this.#path).ino;
      } catch {
        /* gone: open it again below (and fail if it is still missing) */
      }
      if (ino === this.#ino) return this.#fd;
      fs.closeSync(this.#fd);
      this.#fd = null;
    }
    const fd = fs.openSync(this.#path, 'r');
    this.#ino = fs.fstatSync(fd).ino;
    this.#fd = fd;
    return fd;
  }
}
