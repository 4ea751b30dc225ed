import crypto from 'node:crypto';
import type { Db } from '../../db/connect.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import { VISIT_WRITE_LOCK, type Impressions } from './impressions.ts';
import type { MobileProgram } from './mobile-programs.ts';
import type { Receipts } from './visit-receipts.ts';
import { UnavailableError } from '../../errors.ts';
import { detached } from '../../db/ambient.ts';

/** The attribution of a visit after validation (shared/schemas/mobile.ts). */
export interface VisitAttribution {
  referralCode?: string;
  campaignId?: string;
  clickId?: string;
  utm?: Record<string, string>;
  destination?: string;
  referrer?: string;
}

/** A visit as the client sends it; `instanceId` comes from the session token. */
export interface VisitInput {
  visitId: string;
  instanceId: string;
  attribution: VisitAttribution | null;
  provider?: string | null;
  /** The firstVisit receipt the client holds from an earlier answer, if any. */
  firstVisit?: string | null;
  /** The visitor's country (GEO_COUNTRY_HEADER) and device class, for the traffic report. */
  country?: string | null;
  device?: string | null;
}

/** The answer to a visit: stored (with receipts when a referrer was recognised), or still being written. */
export type VisitAnswer =
  | { status: 'RECORDED'; visitId: string; receipts: { firstVisit: string; lastVisit: string } | null }
  | { status: 'PROCESSING'; visitId: string };

/** Group-commit settings (server/config.ts `mobile`). */
export interface VisitSettings {
  /** How long a request waits for its commit before answering PROCESSING. */
  waitMs: number;
}

/** One visits row as written. */
interface VisitRow {
  program_id: string;
  visit_id: string;
  visitor_key: string;
  created_at: number;
  referrer_id: string | null;
  first_referrer_id: string | null;
  first_visit_at: number | null;
  referral_code: string | null;
  click_id: string | null;
  provider: string | null;
  utm: string | null;
  destination: string | null;
  referrer_url: string | null;
  /** Traffic traits the impression fold reads back (server/domain/participant-api/impressions.ts `traitsOfVisit`); null on unreferred visits. */
  country: string | null;
  device: string | null;
}

/** What a stored visit answers with. */
interface Stored {
  referrerId: string | null;
  createdAt: number;
  firstReferrerId: string | null;
  firstVisitAt: number | null;
}

interface Waiter {
  row: VisitRow;
  cookieWindowMs: number;
  /** Answered already: PROCESSING after `waitMs`, or with the write's outcome. */
  settled: boolean;
  resolve(a: VisitAnswer): void;
  reject(err: unknown): void;
}

const COLUMNS = ['program_id', 'visit_id', 'visitor_key', 'created_at', 'referrer_id', 'first_referrer_id', 'first_visit_at', 'referral_code', 'click_id', 'provider', 'utm', 'destination', 'referrer_url', 'country', 'device'] as const;
/** Group commit: a batch closes after this long or this many visits, whichever comes first. */
export const GROUP_COMMIT = { maxWaitMs: 1, maxItems: 64 } as const;
const REFERRER_TTL_MS = 10_000;
const CACHE_MAX = 100_000;

const RESOLVE_REFERRER = `SELECT id FROM participants WHERE id = ? AND program_id = ?
  UNION ALL SELECT id FROM participants WHERE program_id = ? AND share_key = ?
  UNION ALL SELECT participant_id AS id FROM participant_vanity_keys WHERE program_id = ? AND key_lower = ?
  LIMIT 1`;
const STORED = 'SELECT referrer_id, created_at, first_referrer_id, first_visit_at, visitor_key FROM visits WHERE program_id = ? AND visit_id = ?';
const insertSql: string[] = [];

/**
 * `INSERT … ON CONFLICT DO NOTHING` for `n` rows; one text per size, so each is prepared once. No
 * RETURNING: when it changed `n` rows every visit was new (all but always), and only otherwise are
 * the stored rows read back.
 */
function insertVisits(n: number): string {
  return (insertSql[n] ??= `INSERT INTO visits (${COLUMNS.join(', ')}) VALUES ${Array.from({ length: n }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')} ON CONFLICT (program_id, visit_id) DO NOTHING`);
}

/**
 * The device class of a visit for the traffic report: `app` for a native app's session, else
 * `tablet`, `mobile` or `desktop` from the User-Agent (null when it sent none). Coarse on purpose:
 * a class is all the report shows, and no user-agent database is worth its weight for that.
 */
export function deviceOf(userAgent: string, app: boolean): string | null {
  if (app) return 'app';
  if (!userAgent) return null;
  if (/iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i.test(userAgent)) return 'tablet';
  if (/Mobi|iPhone|iPod|Android|Windows Phone|Opera Mini/i.test(userAgent)) return 'mobile';
  return 'desktop';
}

/**
 * Visit recording, the hottest path (seed Mobile rule 3): each visit is written once per (program,
 * client visit id) by a group commit (≤ 1 ms or 64 visits per transaction, one multi-row INSERT … ON
 * CONFLICT DO NOTHING) and answered only after that commit; a repeat gets the stored answer.
 * A batch with new referred visits tells `Impressions`, which folds them from the table into the
 * counters at most a second later (behind a durable watermark, so a crash loses none); `close()`
 * waits for visits in flight and then folds.
 */
export class Visits {
  readonly #visitorKey: Buffer;
  readonly #visitorKeys = new Map<string, string>();
  readonly #referrers = new Map<string, { at: number; id: string | null }>();
  #queue: Waiter[] = [];
  #timer: NodeJS.Timeout | null = null;
  readonly #writes = new Set<Promise<void>>();
  readonly #requests = new Set<Promise<void>>();
  #closed = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly impressions: Impressions,
    private readonly receipts: Receipts,
    private readonly settings: VisitSettings,
    instanceSecret: string,
  ) {
    this.#visitorKey = crypto.createHmac('sha256', instanceSecret).update('refloop:visitor-key:v1').digest();
  }

  /**
   * Records one visit. RECORDED once it is durable (receipts when its referral code names a
   * participant of the program), PROCESSING when the commit takes longer than `waitMs` (the write
   * goes on; the client retries the same id later), 503 when the write failed.
   *
   * The hot path allocates little: a cached referrer is resolved without a query, the visit joins
   * the open batch at once, and the batch, not each request, holds the `waitMs` timer.
   */
  record(view: MobileProgram, input: VisitInput): Promise<VisitAnswer> {
    if (this.#closed) return Promise.reject(new UnavailableError('The server is shutting down; keep the visit queued and retry.'));
    const programId = view.program.id;
    const a = input.attribution;
    // A hosted share URL of another program names nobody here.
    const code = a?.referralCode && (!a.campaignId || a.campaignId === programId) ? a.referralCode : null;
    const known = code ? this.#cachedReferrer(programId, code) : null;
    if (known !== undefined) return new Promise((resolve, reject) => this.#enqueue(this.#waiter(view, input, code, known, resolve, reject)));
    const pending = this.#resolve(programId, code!).then((referrerId) => new Promise<VisitAnswer>((resolve, reject) => this.#enqueue(this.#waiter(view, input, code, referrerId, resolve, reject))));
    const tracked = pending.then(
      () => undefined,
      () => undefined,
    );
    this.#requests.add(tracked);
    void tracked.then(() => this.#requests.delete(tracked));
    return pending;
  }

  /** Folds every committed visit into the impression counters now (tests). */
  flush(): Promise<void> {
    return this.impressions.flush();
  }

  /** Stops taking visits, waits for every visit in flight, then folds their impressions. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#requests]);
    this.#drain();
    await Promise.allSettled([...this.#writes]);
    await this.impressions.close();
  }

  /** The keyed hash stored for a client instance: visitors are told apart without storing their ids. */
  visitorKey(programId: string, instanceId: string): string {
    const id = `${programId}:${instanceId}`;
    let key = this.#visitorKeys.get(id);
    if (key === undefined) {
      key = crypto.createHmac('sha256', this.#visitorKey).update(id).digest('base64url').slice(0, 22);
      if (this.#visitorKeys.size >= CACHE_MAX) this.#visitorKeys.clear();
      this.#visitorKeys.set(id, key);
    }
    return key;
  }

  /** The batch entry of one visit: its row, and how its answer is made once the row is stored. */
  #waiter(view: MobileProgram, input: VisitInput, code: string | null, referrerId: string | null, resolve: (a: VisitAnswer) => void, reject: (err: unknown) => void): Waiter {
    const programId = view.program.id;
    const a = input.attribution;
    const now = this.clock.now();
    // The earliest referred visit is the client's to keep (a client can always start afresh with a
    // new instance id, so a server-side record would add no trust, only a random-key write per visit).
    const held = referrerId && input.firstVisit ? this.receipts.verify(input.firstVisit) : null;
    const first = held && held.programId === programId && held.visitAt <= now + 60_000 && Math.min(held.expiresAt, held.visitAt + view.cookieWindowMs) > now ? held : null;
    const row: VisitRow = {
      program_id: programId,
      visit_id: input.visitId,
      visitor_key: this.visitorKey(programId, input.instanceId),
      created_at: now,
      referrer_id: referrerId,
      first_referrer_id: referrerId ? (first?.referrerId ?? referrerId) : null,
      first_visit_at: referrerId ? (first?.visitAt ?? now) : null,
      referral_code: code,
      click_id: a?.clickId ?? null,
      provider: input.provider ?? null,
      utm: a?.utm && Object.keys(a.utm).length ? JSON.stringify(a.utm) : null,
      destination: a?.destination ?? null,
      referrer_url: a?.referrer ?? null,
      country: referrerId ? (input.country ?? null) : null,
      device: referrerId ? (input.device ?? null) : null,
    };
    return { row, cookieWindowMs: view.cookieWindowMs, settled: false, resolve, reject };
  }

  /** The answer to a stored visit: receipts when it has a referrer. */
  #answer(w: Waiter, stored: Stored): VisitAnswer {
    const { program_id: programId, visit_id: visitId } = w.row;
    if (!stored.referrerId) return { status: 'RECORDED', visitId, receipts: null };
    const lastVisit = this.receipts.sign(programId, stored.referrerId, stored.createdAt, w.cookieWindowMs);
    const sameVisit = stored.firstVisitAt === stored.createdAt && stored.firstReferrerId === stored.referrerId;
    const firstVisit =
      stored.firstReferrerId && stored.firstVisitAt != null && !sameVisit ? this.receipts.sign(programId, stored.firstReferrerId, stored.firstVisitAt, w.cookieWindowMs) : lastVisit;
    return { status: 'RECORDED', visitId, receipts: { firstVisit, lastVisit } };
  }

  /** A cached referrer (null: names nobody), or undefined when the code has to be looked up. */
  #cachedReferrer(programId: string, code: string): string | null | undefined {
    const hit = this.#referrers.get(`${programId}\n${code.toLowerCase()}`);
    return hit && performance.now() - hit.at < REFERRER_TTL_MS ? hit.id : undefined;
  }

  /** A referral code (participant id, share key or vanity key; never an email) to a participant id, cached briefly. */
  async #resolve(programId: string, code: string): Promise<string | null> {
    const lower = code.toLowerCase();
    const key = `${programId}\n${lower}`;
    const now = performance.now();
    const hit = this.#referrers.get(key);
    if (hit && now - hit.at < REFERRER_TTL_MS) return hit.id;
    const row = await this.db.get<{ id: string }>(RESOLVE_REFERRER, lower, programId, programId, lower, programId, lower);
    if (this.#referrers.size >= CACHE_MAX) this.#referrers.clear();
    this.#referrers.set(key, { at: now, id: row?.id ?? null });
    return row?.id ?? null;
  }

  #enqueue(w: Waiter): void {
    this.#queue.push(w);
    if (this.#queue.length >= GROUP_COMMIT.maxItems) detached(() => this.#drain());
    else this.#timer ??= detached(() => setTimeout(() => this.#drain(), GROUP_COMMIT.maxWaitMs));
  }

  #drain(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (!this.#queue.length) return;
    const batch = this.#queue;
    this.#queue = [];
    // Whoever is still waiting after `waitMs` is answered PROCESSING; the write goes on (close() waits for it).
    const late = setTimeout(() => {
      for (const w of batch) {
        if (w.settled) continue;
        w.settled = true;
        w.resolve({ status: 'PROCESSING', visitId: w.row.visit_id });
      }
    }, this.settings.waitMs);
    const write = this.#write(batch).finally(() => {
      clearTimeout(late);
      this.#writes.delete(write);
    });
    this.#writes.add(write);
  }

  /** One transaction for the whole batch; every waiter gets its stored answer, or the error. */
  async #write(batch: Waiter[]): Promise<void> {
    const byKey = new Map<string, Waiter[]>();
    for (const w of batch) {
      const k = `${w.row.program_id}\n${w.row.visit_id}`;
      const list = byKey.get(k);
      if (list) list.push(w);
      else byKey.set(k, [w]);
    }
    const firsts = [...byKey.values()].map((ws) => ws[0]!);
    let answers: Map<string, Stored & { inserted: boolean }>;
    try {
      answers = await this.db.batch(async (s) => {
        // Before the INSERT gives the transaction its id: the impression fold's cut waits for it.
        if (this.db.dialect === 'pg') await s.run(VISIT_WRITE_LOCK, []);
        const params: unknown[] = [];
        for (const { row } of firsts) for (const c of COLUMNS) params.push(row[c]);
        const changed = await s.run(insertVisits(firsts.length), params);
        const out = new Map<string, Stored & { inserted: boolean }>();
        for (const [k, [{ row }]] of byKey as Map<string, [Waiter]>) {
          if (changed === firsts.length) {
            out.set(k, { referrerId: row.referrer_id, createdAt: row.created_at, firstReferrerId: row.first_referrer_id, firstVisitAt: row.first_visit_at, inserted: true });
            continue;
          }
          // Some were written before (retries): every answer comes from the stored row, which for a
          // visit inserted just now is this row (same creation time and visitor) and otherwise the earlier one.
          const [e] = await s.all<{ referrer_id: string | null; created_at: number; first_referrer_id: string | null; first_visit_at: number | null; visitor_key: string }>(STORED, [row.program_id, row.visit_id]);
          if (!e) throw new Error('visit neither inserted nor found');
          out.set(k, {
            referrerId: e.referrer_id,
            createdAt: Number(e.created_at),
            firstReferrerId: e.first_referrer_id,
            firstVisitAt: e.first_visit_at == null ? null : Number(e.first_visit_at),
            inserted: changed > 0 && Number(e.created_at) === row.created_at && e.visitor_key === row.visitor_key,
          });
        }
        return out;
      });
    } catch (err) {
      const programs = [...new Set(batch.map((w) => w.row.program_id))];
      if (batch.every((w) => w.settled)) this.log.error('visit write failed after PROCESSING', { programIds: programs, error: String(err) });
      else this.log.error('visit write failed', { programIds: programs, error: String((err as Error)?.message ?? err) });
      for (const w of batch) {
        if (w.settled) continue;
        w.settled = true;
        w.reject(new UnavailableError('The visit could not be stored; keep it queued and retry.'));
      }
      return;
    }
    let referred = false;
    for (const [k, ws] of byKey) {
      const stored = answers.get(k)!;
      if (stored.inserted && stored.referrerId) referred = true;
      for (const w of ws) {
        if (w.settled) continue;
        w.settled = true;
        w.resolve(this.#answer(w, stored));
      }
    }
    if (referred) this.impressions.notify();
  }
}
