import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { BatchStatements } from '../../db/statements.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { Participants } from '../participants/service.ts';
import type { ParticipantRow } from '../participants/model.ts';
import { ACTIONS } from '../platform/activity.ts';
import { detached } from '../../db/ambient.ts';

/**
 * One visit's traffic traits: `source` (utm_source, else the referring host: the report's sources
 * and its `trigger` breakdown), `campaign` (utm_campaign), `referrer` (referring host), `destination`
 * (landing path), `country` (ISO code from GEO_COUNTRY_HEADER) and `device`.
 */
export interface VisitTraits {
  source: string | null;
  campaign: string | null;
  referrer: string | null;
  destination: string | null;
  country: string | null;
  device: string | null;
}

/** The VISIT row's `data`: the traits that are known, or null when none is. */
export function traitsData(t: VisitTraits): string | null {
  let out: Record<string, string> | null = null;
  for (const k in t) {
    const v = t[k as keyof VisitTraits];
    if (v) (out ??= {})[k] = v;
  }
  return out && JSON.stringify(out);
}

const CHUNK = 500;
const BULK = 128;

/** A multi-row INSERT: `head` VALUES (…) × n `tail`; `returning` when the tail has RETURNING. */
interface Bulk {
  head: string;
  columns: number;
  tail: string;
  returning: boolean;
}

// VISIT rows as Activity.record writes them (server/domain/platform/activity.ts), through cached statements:
// a flush writes thousands, and the query builder would compile each batch anew.
const ACTIVITY: Bulk = { head: 'INSERT INTO activity_logs (program_id, participant_id, type, action, text, data, created_at) VALUES', columns: 7, tail: '', returning: false };
const UNIQUES: Bulk = {
  head: 'INSERT INTO visit_uniques (program_id, referrer_id, visitor_key, first_at) VALUES',
  columns: 4,
  tail: 'ON CONFLICT (program_id, referrer_id, visitor_key) DO NOTHING RETURNING referrer_id, visitor_key',
  returning: true,
};
const bulkSql = new Map<string, string>();

/** Inserts rows in chunks of 128, then the rest in powers of two, so a table has at most eight statement shapes. */
async function insertMany<T>(s: BatchStatements, bulk: Bulk, rows: unknown[][]): Promise<T[]> {
  const out: T[] = [];
  let at = 0;
  while (at < rows.length) {
    let n = BULK;
    while (n > rows.length - at) n >>= 1;
    const key = `${bulk.head}|${n}`;
    let sql = bulkSql.get(key);
    if (!sql) {
      const one = `(${Array(bulk.columns).fill('?').join(', ')})`;
      bulkSql.set(key, (sql = `${bulk.head} ${Array(n).fill(one).join(', ')} ${bulk.tail}`.trim()));
    }
    const params = rows.slice(at, at + n).flat();
    if (bulk.returning) out.push(...(await s.all<T>(sql, params)));
    else await s.run(sql, params);
    at += n;
  }
  return out;
}

/** Stored visit columns a referred visit's traits are read from. */
export interface VisitTraitColumns {
  utm: string | null;
  destination: string | null;
  referrer_url: string | null;
  country: string | null;
  device: string | null;
}

const HOST = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i;
const LANDING = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i;

/** A referred visit's traffic traits from its stored row; strings are capped at 100 characters. */
export function traitsOfVisit(v: VisitTraitColumns): VisitTraits {
  let utm: Record<string, string> | null = null;
  if (v.utm) {
    try {
      utm = JSON.parse(v.utm);
    } catch {
      utm = null;
    }
  }
  const host = v.referrer_url ? (HOST.exec(v.referrer_url)?.[1]?.toLowerCase().slice(0, 100) ?? null) : null;
  const landing = v.destination ? LANDING.exec(v.destination) : null;
  return {
    source: utm?.utm_source?.slice(0, 100) || host,
    campaign: utm?.utm_campaign?.slice(0, 100) || null,
    referrer: host,
    destination: landing ? (landing[1] || '/').slice(0, 100) : null,
    country: v.country ?? null,
    device: v.device ?? null,
  };
}

/** One referred visit read back for folding. */
interface FoldRow extends VisitTraitColumns {
  program_id: string;
  visitor_key: string;
  created_at: number | string;
  referrer_id: string;
}

/** What one fold step did. */
interface FoldStep {
  /** Another process holds the watermark (PostgreSQL): it folds, or we try again later. */
  busy: boolean;
  /** The watermark after the step. */
  position: string;
  /** The step stopped at its size limit: there is more to fold now. */
  more: boolean;
  /** Visits exist past the watermark that could not be folded yet (PostgreSQL: written after the cut). */
  behind: boolean;
}

/**
 * Visits one fold step reads at most; a step is one short transaction. On SQLite visit writes wait
 * for it (one writer), so it bounds their stall: 5,000 stalled them 25–35 ms about once a second
 * under a sustained load (the bench's visit p99); 1,000 keeps a step to a few milliseconds.
 */
export const FOLD_STEP = 1000;
/**
 * PostgreSQL: every visit write holds this advisory lock shared from before its transaction has an
 * id until it ends (`VISIT_WRITE_LOCK`); a fold takes it exclusively for an instant to learn a
 * transaction id below which every visit write has ended (its cut).
 */
export const VISIT_WRITE_LOCK_KEY = 720_200_020;
/** The first statement of a visit write's transaction on PostgreSQL (see `VISIT_WRITE_LOCK_KEY`). */
export const VISIT_WRITE_LOCK = `SELECT pg_advisory_xact_lock_shared(${VISIT_WRITE_LOCK_KEY})`;
const WATERMARK = 'impressions';
const FOLD_COLUMNS = 'program_id, visitor_key, created_at, referrer_id, utm, destination, referrer_url, country, device';
const SQLITE_FOLD = `SELECT ${FOLD_COLUMNS} FROM visits WHERE rowid > ? AND rowid <= ? AND referrer_id IS NOT NULL ORDER BY rowid`;
const PG_FOLD = `SELECT ${FOLD_COLUMNS} FROM visits WHERE txid >= ?::text::xid8 AND txid < ?::text::xid8 AND referrer_id IS NOT NULL ORDER BY txid, created_at`;
const PG_BOUND = `SELECT txid::text AS t FROM visits WHERE txid >= ?::text::xid8 AND txid < ?::text::xid8 ORDER BY txid OFFSET ${FOLD_STEP} LIMIT 1`;
// ORDER BY txid: a named statement settles on a generic plan after five runs, and without the order
// that plan was a sequential scan (it guesses a third of the table qualifies, so LIMIT 1 looks cheap),
// which reads every visit when none is past the watermark (test/server/db/pg-plans.test.ts).
const PG_BEHIND = 'SELECT 1 AS x FROM visits WHERE txid >= ?::text::xid8 ORDER BY txid LIMIT 1';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Impressions of referral links (seed Mobile rule "visits count impressions"), folded from the
 * visits table (issue #20): a durable watermark in `counter_watermarks` says how far the visits
 * have been counted, and one transaction moves it together with the referrers' counters, unique
 * visitors, VISIT activity rows and the programs' counts. Nothing is held in memory, so a crash
 * loses no count: whoever folds next (this process within `flushMs` of a visit, any process on
 * PostgreSQL, or the next start-up) counts every acknowledged visit exactly once. The visit path
 * itself writes only its own row (on PostgreSQL after taking `VISIT_WRITE_LOCK` shared). Folds are
 * serialised by the watermark row (SQLite: the write lock; PostgreSQL: FOR UPDATE SKIP LOCKED, so
 * one process folds a range and the others skip).
 */
export class Impressions {
  /**
   * Run inside the fold transaction for a referrer whose link was viewed for the first time ever
   * (impressions went from 0): the row lock and the counter change in the same transaction make it
   * once per participant, whatever the number of processes or concurrent visits.
   */
  readonly hooks: { firstImpression: Array<(trx: Knex.Transaction, programId: string, referrer: ParticipantRow) => Promise<void>> } = { firstImpression: [] };
  #timer: NodeJS.Timeout | null = null;
  #folding: Promise<FoldStep> | null = null;
  #closed = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly participants: Participants,
    private readonly flushMs: number,
  ) {
    // Start-up: count what a crashed predecessor acknowledged but never counted.
    this.#schedule(0);
  }

  /** Says that referred visits were written: a fold follows within `flushMs`. */
  notify(): void {
    this.#schedule(this.flushMs);
  }

  /** Folds every visit committed before the call (tests, shutdown), waiting up to `waitMs` for another process's fold. */
  async flush(waitMs = 10_000): Promise<void> {
    const target = await this.#head();
    const deadline = performance.now() + waitMs;
    for (;;) {
      const step = await this.#foldOnce();
      if (!step.busy && (target === null || this.#reached(step.position, target))) return;
      if (step.more) continue;
      if (performance.now() > deadline) throw new Error('impression counters did not catch up with the visits');
      await sleep(5);
    }
  }

  /** Folds what it can and stops the timer (shutdown); what is left is folded by the next process. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    try {
      await this.flush(5000);
    } catch (err) {
      this.log.warn('impression counters left for the next start-up', { error: String((err as Error)?.message ?? err) });
    }
  }

  #schedule(delay: number): void {
    if (this.#timer || this.#closed) return;
    this.#timer = detached(() => setTimeout(() => {
      this.#timer = null;
      this.#background().catch((err) => {
        this.log.error('impression counters could not be written; retrying', { error: String((err as Error)?.message ?? err) });
        this.#schedule(this.flushMs);
      });
    }, delay));
    this.#timer.unref();
  }

  /** Folds until caught up, or until the rest must wait (another folder, an older open transaction). */
  async #background(): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const step = await this.#foldOnce();
      if (step.more && !step.busy) {
        // Between steps the visit writes waiting for the database go first.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      if (step.busy || step.behind) this.#schedule(this.flushMs);
      return;
    }
  }

  /** The newest visit's position (null when there is none): what `flush` must reach. */
  async #head(): Promise<string | null> {
    if (this.db.dialect === 'pg') {
      const r = await this.db.knex.raw('SELECT txid::text AS p FROM visits WHERE txid IS NOT NULL ORDER BY txid DESC LIMIT 1');
      return r.rows[0]?.p ?? null;
    }
    const r = await this.db.get<{ p: number | null }>('SELECT max(rowid) AS p FROM visits');
    return r?.p == null ? null : String(r.p);
  }

  /** SQLite: the watermark is the last folded rowid; PostgreSQL: every transaction id below it is folded. */
  #reached(position: string, target: string): boolean {
    return this.db.dialect === 'pg' ? BigInt(position) > BigInt(target) : Number(position) >= Number(target);
  }

  /** One fold step, never two at once in this process. */
  async #foldOnce(): Promise<FoldStep> {
    while (this.#folding) await this.#folding.catch(() => undefined);
    this.#folding = this.#fold();
    try {
      return await this.#folding;
    } finally {
      this.#folding = null;
    }
  }

  /**
   * One transaction: the watermark row first (the folders' lock), the next range of visits, unique
   * visitors (which visits are a referrer's first from a visitor), then every referrer row locked in
   * id order before any counter, histogram or program row moves (the participants core's lock
   * order), the counters through `participants.adjustCounters`, one VISIT activity row per visit,
   * the programs' impression counts, and the watermark's new position last.
   */
  async #fold(): Promise<FoldStep> {
    const pg = this.db.dialect === 'pg';
    // PostgreSQL: with the write lock held exclusively no visit write is open, so every transaction
    // id below the next one to be handed out belongs to a write that has ended and that the fold's
    // statements see; nothing below the cut can still appear. Held for two statements only: visit
    // writes wait that long at most.
    const cut = pg
      ? await this.db.knex.transaction(async (trx) => {
          await trx.raw(`SELECT pg_advisory_xact_lock(${VISIT_WRITE_LOCK_KEY})`);
          return String((await trx.raw('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x')).rows[0].x);
        })
      : null;
    return this.db.knex.transaction(async (trx) => {
      const s = await this.db.statements(trx);
      const now = this.clock.now();
      let from: string;
      let to: string;
      let rows: FoldRow[];
      let more: boolean;
      let behind = false;
      if (pg) {
        const [w] = await s.all<{ position: string }>('SELECT position FROM counter_watermarks WHERE name = ? FOR UPDATE SKIP LOCKED', [WATERMARK]);
        if (!w) return { busy: true, position: '0', more: false, behind: true };
        from = w.position;
        to = cut!;
        if (BigInt(to) < BigInt(from)) to = from;
        const [bound] = await s.all<{ t: string }>(PG_BOUND, [from, to]);
        more = !!bound && BigInt(bound.t) > BigInt(from);
        if (more) to = bound!.t;
        rows = await s.all<FoldRow>(PG_FOLD, [from, to]);
        if (!more) behind = (await s.all(PG_BEHIND, [to])).length > 0;
      } else {
        // The write comes first, so the transaction holds SQLite's write lock before it reads.
        await s.run('UPDATE counter_watermarks SET updated_at = ? WHERE name = ?', [now, WATERMARK]);
        const [w] = await s.all<{ position: string }>('SELECT position FROM counter_watermarks WHERE name = ?', [WATERMARK]);
        from = w!.position;
        const [m] = await s.all<{ m: number | null }>('SELECT max(rowid) AS m FROM visits', []);
        // Rowids only grow: the retention prune keeps the newest visit (server/domain/platform/retention.ts).
        const max = Math.max(Number(m?.m ?? 0), Number(from));
        const end = Math.min(max, Number(from) + FOLD_STEP);
        more = end < max;
        to = String(end);
        rows = end > Number(from) ? await s.all<FoldRow>(SQLITE_FOLD, [Number(from), end]) : [];
      }
      if (rows.length) await this.#count(trx, s, rows);
      if (to !== from || pg) await s.run('UPDATE counter_watermarks SET position = ?, updated_at = ? WHERE name = ?', [to, now, WATERMARK]);
      return { busy: false, position: to, more, behind };
    });
  }

  /** Counts folded visits: unique visitors, referrer counters (and first-view hooks), VISIT rows, program counts. */
  async #count(trx: Knex.Transaction, s: BatchStatements, rows: FoldRow[]): Promise<void> {
    const byProgram = new Map<string, FoldRow[]>();
    for (const r of rows) {
      const list = byProgram.get(r.program_id);
      if (list) list.push(r);
      else byProgram.set(r.program_id, [r]);
    }
    for (const programId of [...byProgram.keys()].sort()) {
      const list = byProgram.get(programId)!;
      // Sorted, so two transactions take the same rows in the same order.
      const pairs = new Map<string, unknown[]>();
      for (const v of list) {
        const k = `${v.referrer_id}\n${v.visitor_key}`;
        if (!pairs.has(k)) pairs.set(k, [programId, v.referrer_id, v.visitor_key, Number(v.created_at)]);
      }
      const keys = [...pairs.keys()].sort();
      const inserted = await insertMany<{ referrer_id: string; visitor_key: string }>(s, UNIQUES, keys.map((k) => pairs.get(k)!));
      const fresh = new Set(inserted.map((r) => `${r.referrer_id}\n${r.visitor_key}`));
      const perReferrer = new Map<string, { visits: number; uniques: number; entries: unknown[][] }>();
      for (const v of list) {
        const unique = fresh.delete(`${v.referrer_id}\n${v.visitor_key}`);
        let r = perReferrer.get(v.referrer_id);
        if (!r) perReferrer.set(v.referrer_id, (r = { visits: 0, uniques: 0, entries: [] }));
        r.visits++;
        if (unique) r.uniques++;
        r.entries.push([
          programId,
          v.referrer_id,
          'VISIT',
          unique ? ACTIONS.visitUnique : ACTIONS.visitRepeat,
          unique ? 'Referral link visited by a new visitor' : 'Referral link visited',
          traitsData(traitsOfVisit(v)),
          Number(v.created_at),
        ]);
      }
      const ids = [...perReferrer.keys()].sort();
      for (let n = 0; n < ids.length; n += CHUNK) {
        await trx('participants').whereIn('id', ids.slice(n, n + CHUNK)).orderBy('id').forNoKeyUpdate().select('id');
      }
      let total = 0;
      let entries: unknown[][] = [];
      for (const id of ids) {
        const r = perReferrer.get(id)!;
        const updated = await this.participants.adjustCounters(trx, programId, id, { impression_count: r.visits, unique_impression_count: r.uniques });
        if (!updated) continue; // deleted since the visit
        if (Number(updated.impression_count) === r.visits) for (const hook of this.hooks.firstImpression) await hook(trx, programId, updated);
        total += r.visits;
        entries = entries.concat(r.entries);
      }
      await insertMany(s, ACTIVITY, entries);
      if (total) await s.run('UPDATE program_counters SET impression_count = impression_count + ? WHERE program_id = ?', [total, programId]);
    }
  }
}
