import type { Db } from '../../db/connect.ts';
import { ACTIONS } from '../platform/activity.ts';
import { localDaySql } from './analytics-time.ts';
import { addMoneyCounts } from './analytics-money.ts';
import { rows } from './read.ts';
import { SHARE_TOTAL_KEYS, type AnalyticsTotals } from '../../../shared/schemas/analytics.ts';

// The counting layer of analytics: windowed COUNTs over one program's (or one referrer's) rows,
// each an indexed range scan (migration 011), optionally grouped by local day in SQL. Nothing here
// loads rows per participant; results are at most one row per (day, kind).

/** Whose rows are counted: a whole program, or one participant (as referrer, sender and actor). */
export type Scope = { programId: string; participantId?: undefined } | { programId: string; participantId: string };

/** What one bucket (or the whole window) counted. */
export interface Counts {
  totals: Record<string, number>;
  /** Every share action, whatever its channel. */
  shares: number;
  /** Emails accepted for delivery, by email type. */
  emails: Map<string, number>;
  /** Portal views recorded (none until portal views are tracked). */
  portalViews: number;
  /** Distinct referred customers behind the commissions (affiliate series), so buckets can count them once. */
  referred?: Set<string>;
}

/** A fresh, all-zero Counts with every AnalyticsTotals key (the affiliate ones for affiliate programs). */
export function emptyCounts(affiliate: boolean): Counts {
  const totals: Record<string, number> = { participants: 0, referrals: 0, invites: 0, impressions: 0, uniqueImpressions: 0, referralCreditPendings: 0, referralCreditExpireds: 0 };
  for (const k of Object.values(SHARE_TOTAL_KEYS)) totals[k] = 0;
  if (affiliate) Object.assign(totals, { totalRevenue: 0, totalCommissions: 0, totalCommissionCount: 0, uniqueCommissionReferrals: 0 });
  return { totals, shares: 0, emails: new Map(), portalViews: 0 };
}

/** Adds `b` into `a`. */
export function addCounts(a: Counts, b: Counts): void {
  for (const [k, v] of Object.entries(b.totals)) a.totals[k] = (a.totals[k] ?? 0) + v;
  a.shares += b.shares;
  a.portalViews += b.portalViews;
  for (const [k, v] of b.emails) a.emails.set(k, (a.emails.get(k) ?? 0) + v);
  if (b.referred) {
    const set = (a.referred ??= new Set());
    for (const id of b.referred) set.add(id);
    a.totals.uniqueCommissionReferrals = set.size;
  }
}

/** The totals as the wire shows them. */
export function totalsOf(c: Counts): AnalyticsTotals {
  return { ...c.totals } as AnalyticsTotals;
}

const SHARE_KEY_BY_CHANNEL = new Map<string, string>(Object.entries(SHARE_TOTAL_KEYS).map(([channel, key]) => [channel.toLowerCase(), key]));

/** The `shareCount` channel of a `share.<channel>` action (null when the action names none). */
export function shareChannel(action: string): string | null {
  const dot = action.indexOf('.');
  return dot >= 0 && dot < action.length - 1 ? action.slice(dot + 1) : null;
}

export { rows, boolBinding } from './read.ts';

/** SQL reading `data.emailType` of an activity row. */
function emailTypeSql(db: Db): string {
  return db.dialect === 'sqlite' ? "json_extract(data, '$.emailType')" : "(CAST(data AS json) ->> 'emailType')";
}

/** Which optional tables exist, asked once per process (migrations run before the app starts). */
export class Tables {
  readonly #known = new Map<string, Promise<boolean>>();
  constructor(private readonly db: Db) {}

  /** Whether `name` exists. */
  has(name: string): Promise<boolean> {
    let p = this.#known.get(name);
    if (!p) this.#known.set(name, (p = this.db.knex.schema.hasTable(name)));
    return p;
  }
}

/**
 * Counts the window [lo, hi) for `scope`, grouped by local day in `tz` (key = local day number) or,
 * with `byDay` false, as one group (key 0). Program scope counts the program's participants,
 * referrals by status, invites, visits, shares and emails; participant scope counts the people they
 * referred and their own invites, visits, shares and emails.
 */
export async function countWindow(
  db: Db,
  tables: Tables,
  scope: Scope,
  affiliate: boolean,
  lo: number,
  hi: number,
  opts: { tz: string; byDay: boolean; emails: boolean },
): Promise<Map<number, Counts>> {
  const out = new Map<number, Counts>();
  const at = (d: number) => {
    let c = out.get(d);
    if (!c) out.set(d, (c = emptyCounts(affiliate)));
    return c;
  };
  const day = (column: string) => (opts.byDay ? localDaySql(column, opts.tz, lo, hi) : { sql: '0', bindings: [] as number[] });
  const group = (extra: string[] = []) => {
    const cols = [...extra, ...(opts.byDay ? ['d'] : [])];
    return cols.length ? ` GROUP BY ${cols.join(', ')}` : '';
  };
  const mine = scope.participantId !== undefined;
  const owner = mine ? scope.participantId : scope.programId;

  // Participants (program) or the people this participant referred, and the referrals' states.
  // Status literals match the partial indexes of migration 011.
  const joinedCol = mine ? 'referred_at' : 'created_at';
  const joined = day(joinedCol);
  const referrals = (status: string, column: string) => {
    const d = day(column);
    return rows<{ d: number; n: number }>(
      db,
      `SELECT ${d.sql} AS d, COUNT(*) AS n FROM participants WHERE ${mine ? 'referred_by' : 'program_id'} = ? AND referral_status = '${status}' AND ${column} >= ? AND ${column} < ?${group()}`,
      [...d.bindings, owner, lo, hi],
    );
  };
  const invites = (await tables.has('invites')) ? day('created_at') : null;
  const act = day('created_at');
  const emailDay = day('created_at');

  const [joinedRows, credited, pending, expired, inviteRows, activityRows, emailRows] = await Promise.all([
    rows<{ d: number; n: number }>(
      db,
      `SELECT ${joined.sql} AS d, COUNT(*) AS n FROM participants WHERE ${mine ? 'referred_by' : 'program_id'} = ? AND ${joinedCol} >= ? AND ${joinedCol} < ?${group()}`,
      [...joined.bindings, owner, lo, hi],
    ),
    referrals('CREDIT_AWARDED', 'credited_at'),
    referrals('CREDIT_PENDING', 'referred_at'),
    referrals('CREDIT_EXPIRED', 'referred_at'),
    invites
      ? rows<{ d: number; n: number }>(
          db,
          `SELECT ${invites.sql} AS d, COUNT(*) AS n FROM invites WHERE ${mine ? 'participant_id' : 'program_id'} = ? AND created_at >= ? AND created_at < ?${group()}`,
          [...invites.bindings, owner, lo, hi],
        )
      : Promise.resolve([]),
    rows<{ d: number; type: string; action: string; n: number }>(
      db,
      `SELECT ${act.sql} AS d, type, action, COUNT(*) AS n FROM activity_logs WHERE ${mine ? 'participant_id' : 'program_id'} = ? AND type IN ('VISIT', 'SHARE', 'INVITE') AND created_at >= ? AND created_at < ?${group(['type', 'action'])}`,
      [...act.bindings, owner, lo, hi],
    ),
    opts.emails
      ? rows<{ d: number; action: string; et: string | null; n: number }>(
          db,
          `SELECT ${emailDay.sql} AS d, action, ${emailTypeSql(db)} AS et, COUNT(*) AS n FROM activity_logs WHERE ${mine ? 'participant_id' : 'program_id'} = ? AND type = 'EMAIL' AND created_at >= ? AND created_at < ?${group(['action', 'et'])}`,
          [...emailDay.bindings, owner, lo, hi],
        )
      : Promise.resolve([]),
  ]);

  for (const r of joinedRows) at(Number(r.d)).totals.participants! += Number(r.n);
  for (const r of credited) at(Number(r.d)).totals.referrals! += Number(r.n);
  for (const r of pending) at(Number(r.d)).totals.referralCreditPendings! += Number(r.n);
  for (const r of expired) at(Number(r.d)).totals.referralCreditExpireds! += Number(r.n);
  for (const r of inviteRows) at(Number(r.d)).totals.invites! += Number(r.n);
  for (const r of activityRows) {
    const c = at(Number(r.d));
    const n = Number(r.n);
    if (r.action === ACTIONS.portalViewed) {
      c.portalViews += n;
    } else if (r.type === 'VISIT') {
      c.totals.impressions! += n;
      if (r.action === ACTIONS.visitUnique) c.totals.uniqueImpressions! += n;
    } else if (r.type === 'SHARE') {
      c.shares += n;
      const key = SHARE_KEY_BY_CHANNEL.get((shareChannel(r.action) ?? '').toLowerCase());
      if (key) c.totals[key] = (c.totals[key] ?? 0) + n;
    } else if (r.type === 'INVITE' && r.action === ACTIONS.inviteSent) {
      // Invitations are program emails too (one row per send); the invites total counts contacts
      // invited, from the invites table when there is one.
      if (!invites) c.totals.invites! += n;
      if (opts.emails) c.emails.set('invite', (c.emails.get('invite') ?? 0) + n);
    }
  }
  for (const r of emailRows) {
    if (r.action !== ACTIONS.emailSent) continue;
    const c = at(Number(r.d));
    const type = r.et ?? 'other';
    c.emails.set(type, (c.emails.get(type) ?? 0) + Number(r.n));
  }
  if (affiliate) await addMoneyCounts(db, tables, scope, lo, hi, opts.byDay, day, at);
  return out;
}

/** Reward counts in the later SDKs' buckets: unapproved, approved but not fulfilled, approved and fulfilled. */
export async function rewardStatusCounts(
  db: Db,
  tables: Tables,
  scope: Scope,
  window: { lo: number; hi: number } | null,
): Promise<{ unapproved: number; unfulfilled: number; completed: number }> {
  const out = { unapproved: 0, unfulfilled: 0, completed: 0 };
  if (!(await tables.has('participant_rewards'))) return out;
  const mine = scope.participantId !== undefined;
  const bindings: unknown[] = [mine ? scope.participantId : scope.programId];
  let sql = `SELECT approved, status, COUNT(*) AS n FROM participant_rewards WHERE ${mine ? 'participant_id' : 'program_id'} = ?`;
  if (window) {
    sql += ' AND created_at >= ? AND created_at < ?';
    bindings.push(window.lo, window.hi);
  }
  for (const r of await rows<{ approved: boolean | number; status: string; n: number }>(db, `${sql} GROUP BY approved, status`, bindings)) {
    const n = Number(r.n);
    if (!r.approved) out.unapproved += n;
    else if (r.status === 'FULFILLED') out.completed += n;
    else out.unfulfilled += n;
  }
  return out;
}
