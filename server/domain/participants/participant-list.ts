import type { Knex } from 'knex';
import type { Db } from '../../db/connect.ts';
import type { ParticipantListExtensions } from '../../../shared/schemas/participant-list.ts';
import type { ParticipantRow } from './model.ts';
import { valueHash } from './model.ts';
import { readRows } from './leaderboard.ts';

// P1 with the refloop extensions (search, filters, sort; issue #23). Every page is a few index range
// scans (migration 026): a filter on a rare value reads its own (…, created_at, id) index, a search
// is the union of index lookups (email, first and last name prefixes; exact id, share key and
// vanity key), and a cursor page seeks past the cursor row in the sort's index instead of skipping.
// A search costs in proportion to what it matches, never to the program's size.

/** What one page reads: the filters and sort of the request, the metadata filters, the cursor row. */
export interface ListPageInput {
  programId: string;
  limit: number;
  metadata: Record<string, string>;
  extensions: ParticipantListExtensions;
  after: ParticipantRow | null;
}

/** The exclusive upper end of the strings starting with `prefix`, in code point (= UTF-8 byte) order. */
export function prefixEnd(prefix: string): string {
  const cps = [...prefix];
  let last = cps.pop()!.codePointAt(0)! + 1;
  if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
  return cps.join('') + String.fromCodePoint(Math.min(last, 0x10ffff));
}

/** Lower-cases like the database's lower(): SQLite's is ASCII-only, PostgreSQL's follows the database's ctype. */
function lowerLike(db: Db, s: string): string {
  return db.dialect === 'sqlite' ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s.toLowerCase();
}

/** `SELECT id` of the program's participants the search term matches, one indexed branch each. */
function searchIds(db: Db, programId: string, term: string): { sql: string; binds: Knex.RawBinding[] } {
  const c = db.dialect === 'pg' ? ' COLLATE "C"' : '';
  const email = term.toLowerCase();
  const name = lowerLike(db, term);
  const parts: string[] = [];
  const binds: Knex.RawBinding[] = [];
  const add = (sql: string, ...values: Knex.RawBinding[]) => {
    parts.push(sql);
    binds.push(programId, ...values);
  };
  add(`SELECT id AS match_id FROM participants WHERE program_id = ? AND email_key${c} >= ? AND email_key${c} < ?`, email, prefixEnd(email));
  for (const col of ['first_name', 'last_name']) {
    add(`SELECT id FROM participants WHERE program_id = ? AND lower(${col})${c} >= ? AND lower(${col})${c} < ?`, name, prefixEnd(name));
  }
  const space = name.search(/\s/);
  if (space > 0) {
    const first = name.slice(0, space);
    const last = name.slice(space).trim();
    if (last) add(`SELECT id FROM participants WHERE program_id = ? AND lower(first_name)${c} = ? AND lower(last_name)${c} >= ? AND lower(last_name)${c} < ?`, first, last, prefixEnd(last));
  }
  if (term.length <= 32) add('SELECT id FROM participants WHERE program_id = ? AND id = ?', term);
  if (term.length <= 16) add('SELECT id FROM participants WHERE program_id = ? AND share_key = ?', email);
  if (term.length <= 20) add('SELECT participant_id FROM participant_vanity_keys WHERE program_id = ? AND key_lower = ?', email);
  return { sql: parts.join(' UNION '), binds };
}

/** Rows a filter must reach before the sort's own index is scanned for it (see `sortIndexFirst`). */
export const DENSE_FILTER = 5000;

/**
 * The page's base query: program, metadata filters, the extension filters and the search. A search
 * drives the query from its matches (SQLite: CROSS JOIN fixes that order; without statistics it
 * would rather walk the program's (created_at, id) index and probe the matches).
 */
function filtered(db: Db, input: ListPageInput): Knex.QueryBuilder {
  const { programId, extensions: x } = input;
  let q: Knex.QueryBuilder;
  if (x.search) {
    const ids = searchIds(db, programId, x.search);
    const from = db.knex.select('participants.*').from(db.knex.raw(`(${ids.sql}) AS m`, ids.binds));
    q = db.dialect === 'sqlite' ? from.crossJoin('participants', 'participants.id', 'm.match_id') : from.join('participants', 'participants.id', 'm.match_id');
  } else {
    q = db.knex('participants');
  }
  q.where('participants.program_id', programId);
  for (const [key, value] of Object.entries(input.metadata)) {
    q.whereIn('participants.id', (sub) => {
      sub.select('participant_id').from('participant_metadata').where({ program_id: programId, meta_key: key, value_hash: valueHash(value), value });
    });
  }
  if (x.referred !== undefined) q.whereRaw(x.referred ? 'referred_by IS NOT NULL' : 'referred_by IS NULL');
  if (x.referralStatus) q.where('referral_status', x.referralStatus);
  if (x.fraudRiskLevel) {
    q.where('fraud_risk_level', x.fraudRiskLevel);
    // The literal term lets SQLite use the partial index (its WHERE must appear in the query's).
    if (x.fraudRiskLevel !== 'LOW') q.whereRaw("fraud_risk_level <> 'LOW'");
  }
  if (x.isAffiliate !== undefined) q.where('is_affiliate', db.dialect === 'sqlite' ? (x.isAffiliate ? 1 : 0) : x.isAffiliate);
  return q;
}

/**
 * Whether the email or referral-count order should come from its own index (filtering as it walks)
 * rather than from a filter's index plus a sort. SQLite keeps no statistics, so it is asked: a
 * filter with an index that matches fewer than DENSE_FILTER rows is read whole and sorted (cheap);
 * one that matches more is dense enough that walking the sort's index meets a page soon. PostgreSQL
 * plans from its statistics.
 */
async function sortIndexFirst(db: Db, input: ListPageInput): Promise<boolean> {
  const x = input.extensions;
  if (db.dialect !== 'sqlite' || x.search) return true;
  const indexed = x.referralStatus || x.referred === true || (x.fraudRiskLevel && x.fraudRiskLevel !== 'LOW') || x.isAffiliate !== undefined;
  if (!indexed) return true;
  const probe = filtered(db, input).select(db.knex.raw('1')).limit(DENSE_FILTER);
  const [row] = await readRows<{ n: number }>(db, db.knex, db.knex.count({ n: '*' }).from(probe.as('f')));
  return Number(row?.n ?? 0) >= DENSE_FILTER;
}

/** Up to `limit + 1` rows of the page after `input.after`, in the requested order. */
export async function listPageRows(db: Db, input: ListPageInput): Promise<ParticipantRow[]> {
  const want = input.limit + 1;
  const after = input.after;
  const read = (q: Knex.QueryBuilder) => readRows<ParticipantRow>(db, db.knex, q);
  const sort = input.extensions.sort ?? 'createdAt';
  if (sort === 'createdAt') {
    const q = filtered(db, input);
    if (after) q.whereRaw('(created_at, id) < (?, ?)', [Number(after.created_at), after.id]);
    return read(q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(want));
  }
  // `+column` keeps SQLite from ordering by the column's index, so it reads the filter's instead.
  const plus = (await sortIndexFirst(db, input)) ? '' : '+';
  if (sort === 'email') {
    const q = filtered(db, input);
    if (after) q.where('email_key', '>', after.email_key);
    return read(q.orderByRaw(`${plus}email_key`).limit(want));
  }
  // referralCount: most first, ties oldest first. Positive counts read the leaderboard's partial
  // index (referral_count > 0 must appear literally for SQLite to use it), zero counts the
  // (created_at, id) index; a cursor continues inside its own count first.
  const rows: ParticipantRow[] = [];
  const c = after ? Number(after.referral_count) : null;
  if (after && c !== null) {
    const q = filtered(db, input).where('referral_count', c);
    if (c > 0) q.whereRaw('referral_count > 0');
    q.whereRaw('(created_at, id) > (?, ?)', [Number(after.created_at), after.id]);
    rows.push(...(await read(q.orderBy(['created_at', 'id']).limit(want))));
  }
  if (c === null || c > 0) {
    if (rows.length < want) {
      const q = filtered(db, input).whereRaw('referral_count > 0');
      if (c !== null) q.where('referral_count', '<', c);
      rows.push(...(await read(q.orderByRaw(`${plus}referral_count DESC, created_at, id`).limit(want - rows.length))));
    }
    if (rows.length < want) {
      const q = filtered(db, input).whereRaw('referral_count = 0');
      rows.push(...(await read(q.orderBy(['created_at', 'id']).limit(want - rows.length))));
    }
  }
  return rows;
}
