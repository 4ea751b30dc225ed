import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import { openDb, type Db } from '../../../server/db/connect.ts';
import { onPostgres } from '../../helpers/app.ts';

// `Db.batch` on SQLite with synchronous FULL (the visit writer's group commit): the COMMIT appends
// to the WAL without syncing, the WAL is synced on the thread pool, and the batch settles only after
// that sync, which began after its COMMIT. The request thread no longer waits for the disk; what a
// settled batch promises (its rows survive a power cut) is unchanged.

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const db of dbs.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function open(env: Record<string, string> = {}): Promise<{ db: Db; file: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refloop-walsync-'));
  dirs.push(dir);
  const file = path.join(dir, 'refloop.db');
  const db = openDb(loadConfig({ DATABASE_URL: file, ...env }).database, { checkpointer: false });
  dbs.push(db);
  await db.knex.schema.createTable('probe', (t) => {
    t.integer('id').primary();
  });
  return { db, file };
}

/** `PRAGMA synchronous` on the connection every query runs on: 2 FULL, 1 NORMAL. */
const synchronous = async (db: Db) => (await db.knex.raw('PRAGMA synchronous'))[0].synchronous as number;

/** Rows of `probe` as another connection (another process would) sees them: committed rows only. */
function committedIds(file: string): number[] {
  const other = new Database(file, { readonly: true });
  try {
    return (other.prepare('SELECT id FROM probe ORDER BY id').all() as Array<{ id: number }>).map((r) => r.id);
  } finally {
    other.close();
  }
}

/** The path an open descriptor names (Linux). */
const pathOf = (fd: number) => fs.readlinkSync(`/proc/self/fd/${fd}`);

describe.skipIf(onPostgres)('Db.batch on SQLite with synchronous FULL (PostgreSQL commits durably by its own settings)', () => {
  it('settles only after a sync of the WAL that began once its rows were committed, and leaves the connection at FULL', async () => {
    const { db, file } = await open();
    const events: string[] = [];
    const real = fs.fdatasync;
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      events.push(`sync ${path.basename(pathOf(fd))} sees [${committedIds(file).join(',')}]`);
      real(fd, (err) => {
        events.push('synced');
        cb(err);
      });
    }) as typeof fs.fdatasync);
    await db.batch(async (s) => {
      await s.run('INSERT INTO probe (id) VALUES (?), (?)', [1, 2]);
      events.push('inserted');
    });
    events.push('settled');
    expect(events).toEqual(['inserted', 'sync refloop.db-wal sees [1,2]', 'synced', 'settled']);
    expect(await synchronous(db)).toBe(2);
  });

  it('shares one sync among the batches that commit while another sync runs', async () => {
    const { db } = await open();
    const real = fs.fdatasync;
    let syncs = 0;
    // A slow disk: each sync takes 30 ms, so the batches queued behind the first commit meanwhile.
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      syncs++;
      real(fd, (err) => setTimeout(() => cb(err), 30));
    }) as typeof fs.fdatasync);
    const settled: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db
          .batch(async (s) => {
            await s.run('INSERT INTO probe (id) VALUES (?)', [i]);
          })
          .then(() => settled.push(i)),
      ),
    );
    expect(settled).toHaveLength(20);
    // The first batch's sync, then (at most) one shared by all the batches that committed during it, and so on.
    expect(syncs).toBeGreaterThanOrEqual(2);
    expect(syncs).toBeLessThanOrEqual(4);
    expect((await db.knex('probe').count({ n: '*' }))[0]!.n).toBe(20);
  });

  it('fails the batch when the sync fails (its rows may not be on disk), and the connection stays FULL', async () => {
    const { db } = await open();
    vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    }) as typeof fs.fdatasync);
    await expect(db.batch((s) => s.run('INSERT INTO probe (id) VALUES (?)', [7]))).rejects.toThrow(/EIO/);
    expect(await synchronous(db)).toBe(2);
    vi.restoreAllMocks();
    // The next batch works and syncs again.
    await db.batch((s) => s.run('INSERT INTO probe (id) VALUES (?)', [8]));
    expect(await db.knex('probe').pluck('id')).toEqual([7, 8]);
  });

  it('keeps a failed batch out of the database and the connection at FULL', async () => {
    const { db } = await open();
    await expect(
      db.batch(async (s) => {
        await s.run('INSERT INTO probe (id) VALUES (?)', [1]);
        await s.run('INSERT INTO probe (id) VALUES (?)', [1]);
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(await db.knex('probe').pluck('id')).toEqual([]);
    expect(await synchronous(db)).toBe(2);
  });

  it('with the NORMAL opt-in syncs nothing itself (the sync waits for a checkpoint)', async () => {
    const { db } = await open({ SQLITE_SYNCHRONOUS: 'NORMAL' });
    const spy = vi.spyOn(fs, 'fdatasync');
    await db.batch((s) => s.run('INSERT INTO probe (id) VALUES (?)', [1]));
    expect(spy).not.toHaveBeenCalled();
    expect(await synchronous(db)).toBe(1);
  });
});
