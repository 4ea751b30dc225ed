import type { Knex } from 'knex';
import type { Program } from '../programs/programs.ts';
import type { CsvValue } from '../../../shared/csv.ts';
import { isoTime, type CsvExport, type ExportCursor } from '../platform/csv-stream.ts';
import type { ParticipantRow } from './model.ts';

// The participants and referrals CSV exports (issue #23, docs/decisions.md "Data export and
// import"): keyset pages in (created_at, id) order on the program's indexes
// (participants_program_created; participants_list_referred for referrals, whose WHERE repeats the
// partial index's condition so SQLite uses it). Referrers' emails come from one lookup per page.

/** Pages strictly after `after` in (created_at, id) order. */
export function afterCursor(q: Knex.QueryBuilder, after: ExportCursor, table: string): Knex.QueryBuilder {
  return after ? q.whereRaw(`(${table}.created_at, ${table}.id) > (?, ?)`, [after.createdAt, after.id]) : q;
}

/** The cursor of a row with `created_at` and `id`. */
export function rowCursor(r: { created_at: number | string; id: string }): ExportCursor {
  return { createdAt: Number(r.created_at), id: r.id };
}

/** Emails of the given participant ids, one query. */
async function emailsOf(knex: Knex, ids: Array<string | null>): Promise<Map<string, string>> {
  const want = [...new Set(ids.filter((x): x is string => !!x))];
  if (!want.length) return new Map();
  const rows: Array<{ id: string; email: string }> = await knex('participants').whereIn('id', want).select('id', 'email');
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** Columns of the participants export; `metadata` is the participant's metadata as one JSON object. */
export const PARTICIPANT_EXPORT_HEADER = [
  'id',
  'email',
  'firstName',
  'lastName',
  'shareKey',
  'vanityKeys',
  'referrerId',
  'referrerEmail',
  'referralStatus',
  'referralSource',
  'referralCount',
  'monthlyReferralCount',
  'fraudRiskLevel',
  'isAffiliate',
  'affiliateStatus',
  'unsubscribed',
  'language',
  'metadata',
  'createdAt',
] as const;

/** The columns the participants export reads (not `*`: fewer strings per page for the collector). */
const PARTICIPANT_COLUMNS = ['id', 'email', 'first_name', 'last_name', 'share_key', 'vanity_keys', 'referred_by', 'referral_status', 'referral_source', 'referral_count', 'monthly_referral_count', 'fraud_risk_level', 'is_affiliate', 'affiliate_status', 'unsubscribed', 'language', 'metadata', 'created_at'] as const;

/** The program's participants, oldest first (so a referrer is listed before the people they referred). */
export function participantExport(knex: Knex, program: Program): CsvExport<Pick<ParticipantRow, (typeof PARTICIPANT_COLUMNS)[number]>> {
  return {
    header: PARTICIPANT_EXPORT_HEADER,
    page: (after, limit) => afterCursor(knex('participants as p').where('p.program_id', program.id), after, 'p').orderBy([{ column: 'p.created_at' }, { column: 'p.id' }]).limit(limit).select(PARTICIPANT_COLUMNS.map((c) => `p.${c}`)),
    cursor: rowCursor,
    async cells(rows) {
      const emails = await emailsOf(knex, rows.map((r) => r.referred_by));
      return rows.map((r): CsvValue[] => [
        r.id,
        r.email,
        r.first_name,
        r.last_name,
        r.share_key,
        r.vanity_keys ? (JSON.parse(r.vanity_keys) as string[]).join(' ') : '',
        r.referred_by,
        r.referred_by ? (emails.get(r.referred_by) ?? '') : '',
        r.referral_status,
        r.referral_source,
        Number(r.referral_count),
        Number(r.monthly_referral_count),
        r.fraud_risk_level,
        Boolean(r.is_affiliate),
        r.affiliate_status,
        Boolean(r.unsubscribed),
        r.language,
        r.metadata ?? '',
        isoTime(r.created_at),
      ]);
    },
  };
}

/** Columns of the referrals export: one row per referred participant. */
export const REFERRAL_EXPORT_HEADER = ['referredId', 'referredEmail', 'referrerId', 'referrerEmail', 'referralStatus', 'referralSource', 'referredAt', 'creditedAt', 'createdAt'] as const;

type ReferralRow = Pick<ParticipantRow, 'id' | 'email' | 'referred_by' | 'referral_status' | 'referral_source' | 'referred_at' | 'credited_at' | 'created_at'>;

/** The program's referrals (participants with a referrer), in the order the referred joined. */
export function referralExport(knex: Knex, program: Program): CsvExport<ReferralRow> {
  return {
    header: REFERRAL_EXPORT_HEADER,
    page: (after, limit) =>
      afterCursor(knex('participants as p').where('p.program_id', program.id).whereRaw('p.referred_by IS NOT NULL'), after, 'p')
        .orderBy([{ column: 'p.created_at' }, { column: 'p.id' }])
        .limit(limit)
        .select('p.id', 'p.email', 'p.referred_by', 'p.referral_status', 'p.referral_source', 'p.referred_at', 'p.credited_at', 'p.created_at'),
    cursor: rowCursor,
    async cells(rows) {
      const emails = await emailsOf(knex, rows.map((r) => r.referred_by));
      return rows.map((r): CsvValue[] => [r.id, r.email, r.referred_by, emails.get(r.referred_by!) ?? '', r.referral_status, r.referral_source, isoTime(r.referred_at), isoTime(r.credited_at), isoTime(r.created_at)]);
    },
  };
}
