import type { Knex } from 'knex';
import type { BatchStatements, Db } from '../db/connect.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Participants } from './participants/service.ts';
import type { ParticipantRow } from './participants/model.ts';
import { ACTIONS } from './activity.ts';

/** One new referred visit to count. */
export interface Impression {
  programId: string;
  referrerId: string;
  visitorKey: string;
  /** What the traffic report breaks visits down by (stored as the VISIT row's `data`). */
  traits: VisitTraits;
}

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

// VISIT rows as Activity.record writes them (server/domain/activity.ts), through cached statements:
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

/**
 * Impressions of referral links (seed Mobile rule "visits count impressions"): added up in memory
 * and written at most `flushMs` later in one transaction, so no request writes a shared row; a
 * failed write keeps them for the next flush and `close()` writes what is left. A crash loses at
 * most `flushMs` of counts (the visits themselves are durable).
 */
export class Impressions {
  /**
   * Run inside the flush transaction for a referrer whose link was viewed for the first time ever
   * (impressions went from 0): the row lock and the counter change in the same transaction make it
   * once per participant, whatever the number of processes or concurrent visits.
   */
  readonly hooks: { firstImpression: Array<(trx: Knex.Transaction, programId: string, referrer: ParticipantRow) => Promise<void>> } = { firstImpression: [] };
  #pending: Impression[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly participants: Participants,
    private readonly flushMs: number,
  ) {}

  /** Counts one new referred visit. */
  add(i: Impression): void {
    this.#pending.push(i);
    this.#schedule();
  }

  /** Writes what is waiting now; a failed write keeps it for the next try. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (!this.#pending.length) return;
    this.#flushing = this.#flush().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  /** Writes what is waiting and stops the timer (shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    try {
      await this.flush();
    } catch (err) {
      this.log.error('impression counters could not be written at shutdown', { error: String(err), pending: this.#pending.length });
    }
  }

  #schedule(): void {
    if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.flush().catch((err) => this.log.error('impression counters could not be written; retrying', { error: String(err) }));
      }, this.flushMs);
      this.#timer.unref();
    }
  }

  /**
   * One transaction: unique visitors first (which visits are a referrer's first from a visitor), then
   * every referrer row locked in id order before any counter, histogram or program row moves (the
   * participants core's lock order), the counters through `participants.adjustCounters`, one VISIT
   * activity row per visit, and the programs' impression counts last.
   */
  async #flush(): Promise<void> {
    const taken = this.#pending;
    this.#pending = [];
    try {
      await this.db.knex.transaction(async (trx) => {
        const s = await this.db.statements(trx);
        const byProgram = new Map<string, Impression[]>();
        for (const i of taken) {
          const list = byProgram.get(i.programId);
          if (list) list.push(i);
          else byProgram.set(i.programId, [i]);
        }
        const now = this.clock.now();
        for (const programId of [...byProgram.keys()].sort()) {
          const list = byProgram.get(programId)!;
          // Sorted, so two processes flushing at once take the same rows in the same order.
          const pairs = new Map<string, unknown[]>();
          for (const i of list) pairs.set(`${i.referrerId}\n${i.visitorKey}`, [programId, i.referrerId, i.visitorKey, now]);
          const keys = [...pairs.keys()].sort();
          const inserted = await insertMany<{ referrer_id: string; visitor_key: string }>(s, UNIQUES, keys.map((k) => pairs.get(k)!));
          const fresh = new Set(inserted.map((r) => `${r.referrer_id}\n${r.visitor_key}`));
          const perReferrer = new Map<string, { visits: number; uniques: number; entries: unknown[][] }>();
          for (const i of list) {
            const k = `${i.referrerId}\n${i.visitorKey}`;
            const unique = fresh.delete(k);
            let r = perReferrer.get(i.referrerId);
            if (!r) perReferrer.set(i.referrerId, (r = { visits: 0, uniques: 0, entries: [] }));
            r.visits++;
            if (unique) r.uniques++;
            r.entries.push([
              programId,
              i.referrerId,
              'VISIT',
              unique ? ACTIONS.visitUnique : ACTIONS.visitRepeat,
              unique ? 'Referral link visited by a new visitor' : 'Referral link visited',
              traitsData(i.traits),
              now,
            ]);
          }
          const ids = [...perReferrer.keys()].sort();
          for (let n = 0; n < ids.length; n += CHUNK) {
            await trx('participants').whereIn('id', ids.slice(n, n + CHUNK)).orderBy('id').forUpdate().select('id');
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
          if (total) await s.run('UPDATE programs SET impression_count = impression_count + ? WHERE id = ?', [total, programId]);
        }
      });
    } catch (err) {
      // Kept for the next flush; nothing of the failed transaction was written.
      this.#pending = taken.concat(this.#pending);
      this.#schedule();
      throw err;
    }
  }
}
