import crypto from 'node:crypto';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type Database from 'better-sqlite3';
import type { Db } from '../server/db/connect.ts';
import { newId } from '../server/crypto.ts';
import { monthBoard, monthKey } from '../server/domain/participants/boards.ts';
import { RECENT_REFERRALS, newShareKey } from '../server/domain/participants/model.ts';

// `npm run seed -- --participants N [--program ID] [--database URL]`: fills a program with N
// participants and a realistic referral graph for demos and benchmarks. Rows go straight into the
// tables in large multi-row INSERTs (prepared once, on knex's own SQLite connection), together with
// the score histograms and program counters the API keeps, so the result reads exactly like data
// the API built: referral counts equal the credited referrals, ranks come from the histograms.

/** What to seed. */
export interface SeedOptions {
  programId: string;
  count: number;
  /** The newest participant joins at `now`; the others are spread over `spanMs` before it. */
  now: number;
  /** Default 400 days. */
  spanMs?: number;
  /** Share of participants who were referred by an earlier one (default 0.6). */
  referredShare?: number;
  /** Share of those referrals still CREDIT_PENDING (default 0.1); the rest are CREDIT_AWARDED. */
  pendingShare?: number;
  /** PRNG seed, for repeatable data (default random). */
  seed?: number;
  /** Progress callback (rows inserted so far). */
  onProgress?: (inserted: number) => void;
}

/** What was seeded. */
export interface SeedResult {
  participants: number;
  referrals: number;
  credited: number;
  ms: number;
}

const COLUMNS = [
  'id',
  'program_id',
  'email',
  'email_key',
  'share_key',
  'referred_by',
  'referral_status',
  'referral_source',
  'referred_at',
  'credited_at',
  'referral_count',
  'month_key',
  'monthly_referral_count',
  'prev_monthly_referral_count',
  'lead_count',
  'recent_referrals',
  'recent_referrals_at',
  'created_at',
  'updated_at',
] as const;
const ROWS_PER_INSERT = 1000;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `count` random strings of [a-z0-9] (uniform, as `newId`), drawn from large random buffers. */
function randomTokens(count: number, length: number): string[] {
  const out = new Array<string>(count);
  let buf = crypto.randomBytes(1 << 16);
  let pos = 0;
  for (let i = 0; i < count; i++) {
    let s = '';
    while (s.length < length) {
      if (pos === buf.length) {
        buf = crypto.randomBytes(1 << 16);
        pos = 0;
      }
      const b = buf[pos++]!;
      if (b < 252) s += ALPHABET[b % 36];
    }
    out[i] = s;
  }
  return out;
}

/** A small seeded PRNG (mulberry32): repeatable graphs for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Inserts `count` participants into a program, with referrals drawn by preferential attachment
 * (earlier participants refer more, so counts follow a power law with a few big referrers), their
 * histogram buckets and the program's counters. Works on SQLite (fast path) and PostgreSQL.
 */
export async function seedParticipants(db: Db, opts: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const n = opts.count;
  const rand = prng(opts.seed ?? crypto.randomInt(2 ** 31));
  const span = opts.spanMs ?? 400 * 24 * 3600 * 1000;
  const referredShare = opts.referredShare ?? 0.6;
  const pendingShare = opts.pendingShare ?? 0.1;
  const cur = monthKey(opts.now);
  const tag = crypto.randomBytes(4).toString('hex');

  // The graph, in memory: who referred whom, and every count that follows from it.
  const createdAt = new Float64Array(n);
  const referrer = new Int32Array(n).fill(-1);
  const awarded = new Uint8Array(n);
  const count = new Int32Array(n);
  const monthly = new Int32Array(n);
  const prev = new Int32Array(n);
  const leads = new Int32Array(n);
  let credited = 0;
  let referrals = 0;
  for (let i = 0; i < n; i++) {
    createdAt[i] = Math.floor(opts.now - span + (span * (i + 1)) / n);
    if (i === 0 || rand() >= referredShare) continue;
    const r = Math.min(i - 1, Math.floor(i * rand() ** 3));
    referrer[i] = r;
    referrals++;
    if (rand() < pendingShare) {
      leads[r]!++;
      continue;
    }
    awarded[i] = 1;
    credited++;
    count[r]!++;
    const m = monthKey(createdAt[i]!);
    if (m === cur) monthly[r]!++;
    else if (m === cur - 1) prev[r]!++;
  }
  // Ids in sorted order, so the primary-key index is appended to rather than split at random.
  const ids = randomTokens(n, 20).sort();
  for (let i = 1; i < n; i++) if (ids[i] === ids[i - 1]) ids[i] = newId();
  const shareKeys = new Set<string>(
    (await db.knex('participants').where({ program_id: opts.programId }).pluck('share_key')).concat(
      await db.knex('participant_vanity_keys').where({ program_id: opts.programId }).pluck('key_lower'),
    ),
  );
  const shareKeyOf = randomTokens(n, 10).map((k) => {
    while (shareKeys.has(k)) k = newShareKey();
    shareKeys.add(k);
    return k;
  });
  // The 100 most recent referrals of each referrer, newest first.
  const recent = new Map<number, number[]>();
  for (let i = n - 1; i >= 0; i--) {
    const r = referrer[i]!;
    if (r < 0) continue;
    let list = recent.get(r);
    if (!list) recent.set(r, (list = []));
    if (list.length < RECENT_REFERRALS) list.push(i);
  }

  const rowValues = (i: number): unknown[] => {
    const r = referrer[i]!;
    const list = recent.get(i);
    return [
      ids[i],
      opts.programId,
      `p${i}.${tag}@seed.refloop.test`,
      `p${i}.${tag}@seed.refloop.test`,
      shareKeyOf[i],
      r >= 0 ? ids[r] : null,
      r >= 0 ? (awarded[i] ? 'CREDIT_AWARDED' : 'CREDIT_PENDING') : null,
      r >= 0 ? 'PARTICIPANT' : 'DIRECT',
      r >= 0 ? createdAt[i] : null,
      awarded[i] ? createdAt[i] : null,
      count[i],
      cur,
      monthly[i],
      prev[i],
      leads[i],
      list ? list.map((j) => ids[j]).join(',') : null,
      list ? list.map((j) => createdAt[j]).join(',') : null,
      createdAt[i],
      createdAt[i],
    ];
  };

  // Histogram buckets of the seeded rows, added to whatever the program already holds.
  const buckets = new Map<string, { board: string; score: number; n: number }>();
  const bump = (board: string, score: number) => {
    if (score <= 0) return;
    const key = `${board}|${score}`;
    const b = buckets.get(key);
    if (b) b.n++;
    else buckets.set(key, { board, score, n: 1 });
  };
  for (let i = 0; i < n; i++) {
    bump('ALL_TIME', count[i]!);
    bump(monthBoard(cur), monthly[i]!);
    bump(monthBoard(cur - 1), prev[i]!);
    bump('BY_LEADS', leads[i]!);
  }
  if (db.dialect === 'sqlite') {
    // One transaction on knex's own connection: nobody sees a half-seeded program. Into an empty
    // table the secondary indexes are dropped first and rebuilt at the end (a sort instead of a
    // million random inserts); other connections wait on the write lock meanwhile.
    const client = db.knex.client as { acquireConnection(): Promise<Database.Database>; releaseConnection(c: Database.Database): Promise<void> };
    const conn = await client.acquireConnection();
    const cacheSize = conn.pragma('cache_size', { simple: true });
    conn.pragma('cache_size = -524288');
    try {
      const placeholders = `(${COLUMNS.map(() => '?').join(', ')})`;
      const sql = (rows: number) => `INSERT INTO participants (${COLUMNS.join(', ')}) VALUES ${Array(rows).fill(placeholders).join(', ')}`;
      const full = conn.prepare(sql(ROWS_PER_INSERT));
      const bucket = conn.prepare(
        'INSERT INTO leaderboard_scores (program_id, board, score, n) VALUES (?, ?, ?, ?) ON CONFLICT (program_id, board, score) DO UPDATE SET n = leaderboard_scores.n + excluded.n',
      );
      conn.transaction(() => {
        const empty = !conn.prepare('SELECT 1 FROM participants LIMIT 1').get();
        const indexes = empty
          ? (conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'participants' AND sql IS NOT NULL").all() as Array<{ name: string; sql: string }>)
          : [];
        for (const i of indexes) conn.exec(`DROP INDEX "${i.name}"`);
        for (let i = 0; i < n; i += ROWS_PER_INSERT) {
          const size = Math.min(ROWS_PER_INSERT, n - i);
          const values: unknown[] = [];
          for (let j = i; j < i + size; j++) values.push(...rowValues(j));
          (size === ROWS_PER_INSERT ? full : conn.prepare(sql(size))).run(...values);
          if ((i + size) % 100_000 === 0 || i + size === n) opts.onProgress?.(i + size);
        }
        for (const i of indexes) conn.exec(i.sql);
        for (const b of buckets.values()) bucket.run(opts.programId, b.board, b.score, b.n);
        conn.prepare('UPDATE program_counters SET participant_count = participant_count + ?, referral_count = referral_count + ? WHERE program_id = ?').run(n, credited, opts.programId);
      })();
    } finally {
      conn.pragma(`cache_size = ${Number(cacheSize)}`);
      await client.releaseConnection(conn);
    }
  } else {
    await db.knex.transaction(async (trx) => {
      for (let i = 0; i < n; i += ROWS_PER_INSERT) {
        const rows = [];
        for (let j = i; j < Math.min(n, i + ROWS_PER_INSERT); j++) {
          const v = rowValues(j);
          rows.push(Object.fromEntries(COLUMNS.map((c, k) => [c, v[k]])));
        }
        await trx('participants').insert(rows);
        opts.onProgress?.(Math.min(n, i + ROWS_PER_INSERT));
      }
      const rows = [...buckets.values()].map((b) => ({ program_id: opts.programId, board: b.board, score: b.score, n: b.n }));
      for (let i = 0; i < rows.length; i += 500) {
        await trx('leaderboard_scores')
          .insert(rows.slice(i, i + 500))
          .onConflict(['program_id', 'board', 'score'])
          .merge({ n: trx.raw('?? + excluded.n', ['leaderboard_scores.n']) });
      }
      await trx('program_counters')
        .where({ program_id: opts.programId })
        .update({ participant_count: trx.raw('participant_count + ?', [n]), referral_count: trx.raw('referral_count + ?', [credited]) });
    });
  }
  return { participants: n, referrals, credited, ms: performance.now() - started };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { participants: { type: 'string' }, program: { type: 'string' }, database: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  const count = Number(values.participants);
  if (values.help || !Number.isInteger(count) || count < 1 || count > 10_000_000) {
    console.error('usage: npm run seed -- --participants N [--program ID] [--database URL]\n  N: 1 to 10,000,000. Without --program, the newest program in the database is used.');
    return values.help ? 0 : 2;
  }
  const { loadConfig } = await import('../server/config.ts');
  const { openDb, migrate } = await import('../server/db/connect.ts');
  // A script, not the server: it reads the same environment the server would, plus --database.
  const config = loadConfig({ ...process.env, ...(values.database ? { DATABASE_URL: values.database } : {}) });
  const db = openDb(config.database);
  try {
    await migrate(db);
    const program = values.program
      ? await db.knex('programs').where({ id: values.program }).whereNot({ status: 'DELETED' }).first('id', 'name')
      : await db.knex('programs').whereNot({ status: 'DELETED' }).orderBy('created_at', 'desc').first('id', 'name');
    if (!program) {
      console.error(values.program ? `No program ${values.program}.` : 'No program yet: create one with POST /v2/campaigns, or pass --program ID.');
      return 1;
    }
    let last = 0;
    const result = await seedParticipants(db, {
      programId: program.id,
      count,
      now: Date.now(),
      onProgress: (done) => {
        if (done - last >= 100_000 || done === count) console.log(`  ${done.toLocaleString('en')} participants`);
        last = done;
      },
    });
    console.log(
      `Seeded ${result.participants.toLocaleString('en')} participants into ${program.id} (${program.name}): ` +
        `${result.referrals.toLocaleString('en')} referrals, ${result.credited.toLocaleString('en')} credited, in ${(result.ms / 1000).toFixed(1)} s.`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`seed failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
