// RF1/RF2, the referral lists: one UNION of referred participants and not-yet-joined invitations,
// filtered, sorted (ties by id) and paged by `nextId` or `offset`.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { Participants } from '../participants/service.ts';
import { emailKey, fieldError } from '../participants/model.ts';
import type { Program } from '../programs/programs.ts';
import type { Referral, ReferralList, ReferralListQuery } from '../../../shared/schemas/referral.ts';

/** One row of the referral lists before it is put on the wire (for callers that mask emails). */
export interface ReferralRecord {
  id: string;
  kind: 'REFERRAL' | 'INVITE';
  email: string;
  referrerId: string;
}

/** Options of a referral list read. */
export interface ReferralListOptions {
  /** RF2 (and the participant API): only this participant's referrals and invitations. */
  referrer?: string;
  /** How an email appears (the participant API masks; REST shows addresses as stored). */
  presentEmail?: (row: ReferralRecord) => string;
}

interface UnionRow {
  id: string;
  email: string;
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  status: Referral['referralStatus'];
  referrer_id: string;
  created_at: number | string;
  updated_at: number | string;
  triggered_at: number | string;
}

/**
 * RF1/RF2: referred participants and not-yet-joined invitations, filtered, sorted (ties by id) and
 * paged by `nextId` (the first row of the page, inclusive; wins over `offset`) or by `offset`.
 */
export async function readReferralList(db: Db, participants: Participants, program: Program, query: ReferralListQuery, opts: ReferralListOptions = {}): Promise<ReferralList> {
  const knex = db.knex;
  const referrerId = opts.referrer !== undefined ? (await participants.resolve(knex, program, opts.referrer)).id : undefined;
  const pg = db.dialect === 'pg';
  const collate = pg ? ' COLLATE "C"' : '';
  const sortExpr = SORT_EXPRESSIONS[query.sortBy](collate);
  const idExpr = `r.id${collate}`;
  const dir = query.desc ? 'DESC' : 'ASC';
  const f = query.filters;

  const union = unionSql({ programId: program.id, referrerId, status: f.referralStatus, email: f.email, firstName: f.firstName, lastName: f.lastName });
  if (!union) return { referrals: [], limit: query.limit, more: false, nextId: null, ...(query.nextId ? {} : { nextOffset: null }) };
  const bindings: unknown[] = [...union.bindings];
  let where = '';
  if (query.nextId) {
    const cursor = unionSql({ programId: program.id, id: query.nextId })!;
    const found = await raw<{ v: unknown; id: string }>(knex, pg, `SELECT ${sortExpr} AS v, r.id AS id FROM (${cursor.sql}) r`, cursor.bindings);
    if (!found[0]) throw fieldError('query.nextId', 'nextId must be the id of a referral or invitation of this program (a previous response’s nextId).');
    const cmp = query.desc ? '<' : '>';
    where = `WHERE (${sortExpr} ${cmp} ? OR (${sortExpr} = ? AND ${idExpr} ${cmp}= ?))`;
    bindings.push(found[0].v, found[0].v, found[0].id);
  }
  const offset = query.nextId ? 0 : (query.offset ?? 0);
  bindings.push(query.limit + 1, offset);
  const rows = await raw<UnionRow>(knex, pg, `SELECT r.* FROM (${union.sql}) r ${where} ORDER BY ${sortExpr} ${dir}, ${idExpr} ${dir} LIMIT ? OFFSET ?`, bindings);
  const more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const referrals = page.map((r): Referral => {
    const kind = r.status === 'INVITE_SENT' && r.id.startsWith('inv_') ? 'INVITE' : 'REFERRAL';
    return {
      id: r.id,
      email: opts.presentEmail ? opts.presentEmail({ id: r.id, kind, email: r.email, referrerId: r.referrer_id }) : r.email,
      ...(r.first_name ? { firstName: r.first_name } : {}),
      ...(r.last_name ? { lastName: r.last_name } : {}),
      referralStatus: r.status,
      referredBy: r.referrer_id,
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    };
  });
  return {
    referrals,
    limit: query.limit,
    more,
    nextId: more ? rows[query.limit]!.id : null,
    // A page read by nextId does not know its offset; only offset (or first) pages report nextOffset.
    ...(query.nextId ? {} : { nextOffset: more ? offset + query.limit : null }),
  };
}

/** Sort expressions over the union's columns; strings compare lower-cased in byte order on both databases. */
const SORT_EXPRESSIONS: Record<ReferralListQuery['sortBy'], (collate: string) => string> = {
  createdAt: () => 'r.created_at',
  updatedAt: () => 'r.updated_at',
  referralTriggeredAt: () => 'r.triggered_at',
  email: (c) => `r.email_key${c}`,
  firstName: (c) => `LOWER(COALESCE(r.first_name, ''))${c}`,
  lastName: (c) => `LOWER(COALESCE(r.last_name, ''))${c}`,
  referralStatus: (c) => `r.status${c}`,
};

/**
 * The UNION ALL of referred participants and open invitations with the same columns, with the
 * filters pushed into each branch; null when no branch can match. With `id`, the one row of that id
 * whatever its status (to position a cursor).
 */
function unionSql(f: {
  programId: string;
  referrerId?: string;
  status?: Referral['referralStatus'];
  email?: string;
  firstName?: string;
  lastName?: string;
  id?: string;
}): { sql: string; bindings: unknown[] } | null {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  if (f.status !== 'INVITE_SENT' && !(f.id?.startsWith('inv_'))) {
    let sql =
      'SELECT p.id AS id, p.email AS email, p.email_key AS email_key, p.first_name AS first_name, p.last_name AS last_name, ' +
      "COALESCE(p.referral_status, '') AS status, p.referred_by AS referrer_id, COALESCE(p.referred_at, p.created_at) AS created_at, " +
      'p.updated_at AS updated_at, COALESCE(p.credited_at, 0) AS triggered_at FROM participants p WHERE p.program_id = ?';
    bindings.push(f.programId);
    if (f.id) {
      sql += ' AND p.id = ?';
      bindings.push(f.id);
    } else sql += ' AND p.referred_by IS NOT NULL AND p.referral_status IS NOT NULL';
    if (f.referrerId) (sql += ' AND p.referred_by = ?'), bindings.push(f.referrerId);
    if (f.status) (sql += ' AND p.referral_status = ?'), bindings.push(f.status);
    if (f.email) (sql += ' AND p.email_key = ?'), bindings.push(emailKey(f.email));
    if (f.firstName) (sql += ' AND LOWER(p.first_name) = LOWER(?)'), bindings.push(f.firstName);
    if (f.lastName) (sql += ' AND LOWER(p.last_name) = LOWER(?)'), bindings.push(f.lastName);
    parts.push(sql);
  }
  // Invitations carry no names, so a name filter leaves them out.
  const inviteStatus = !f.status || f.status === 'INVITE_SENT';
  if (inviteStatus && !f.firstName && !f.lastName && (!f.id || f.id.startsWith('inv_'))) {
    let sql =
      'SELECT i.id AS id, i.email AS email, i.email_key AS email_key, CAST(NULL AS varchar(255)) AS first_name, CAST(NULL AS varchar(255)) AS last_name, ' +
      "'INVITE_SENT' AS status, i.participant_id AS referrer_id, i.created_at AS created_at, i.updated_at AS updated_at, CAST(0 AS bigint) AS triggered_at " +
      'FROM invites i WHERE i.program_id = ?';
    bindings.push(f.programId);
    if (f.id) (sql += ' AND i.id = ?'), bindings.push(f.id);
    // A contact who became a participant some other way (an email change) no longer counts as invited.
    else sql += " AND i.status = 'INVITE_SENT' AND NOT EXISTS (SELECT 1 FROM participants m WHERE m.program_id = i.program_id AND m.email_key = i.email_key)";
    if (f.referrerId) (sql += ' AND i.participant_id = ?'), bindings.push(f.referrerId);
    if (f.email) (sql += ' AND i.email_key = ?'), bindings.push(emailKey(f.email));
    parts.push(sql);
  }
  return parts.length ? { sql: parts.join(' UNION ALL '), bindings } : null;
}

async function raw<T>(knex: Knex, pg: boolean, sql: string, bindings: unknown[]): Promise<T[]> {
  const result = await knex.raw(sql, bindings as Knex.RawBinding[]);
  return (pg ? result.rows : result) as T[];
}
