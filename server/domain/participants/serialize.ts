import type { Program } from '../programs/programs.ts';
import type { Db } from '../../db/connect.ts';
import { monthBoard, monthKey, monthScore, rankKey } from './boards.ts';
import type { Leaderboard } from './leaderboard.ts';
import type { ScoreLedger } from './score-ledger.ts';
import { selectRows } from '../../db/rows.ts';
import type { Participant, Referrer } from '../../../shared/schemas/participant.ts';
import { parseJson, programLanguages, recentSince, shareBase, withShareKey, type ParticipantHooks, type ParticipantRow, type Q } from './model.ts';

/** Options of one serialization batch. */
export interface SerializeOptions {
  /** Adds `isNew` (creation calls). */
  isNew?: boolean;
  /** On a leaderboard page, `rank` is the position on that board: one rank per row. */
  boardRanks?: number[];
  /**
   * `false` leaves the `rewards` list out (webhook payloads, docs/webhooks.md): PR1 pages through a
   * participant's rewards, and an event names the one reward it is about.
   */
  rewards?: boolean;
  /** Adds `referee`, the summary of the participant this one referred (row id → referee id; webhook rewards). */
  referees?: Map<string, string>;
  /** Current rows the caller already holds, used for referrer and referee summaries instead of reading them. */
  known?: Map<string, ParticipantRow>;
  /** Score moves of the running transaction not yet flushed: ranks count them (webhook payloads). */
  ledger?: ScoreLedger;
}

/** `Participant` of a webhook payload: every field but the `rewards` list, and `referee` where it applies. */
export type EventParticipant = Omit<Participant, 'rewards'> & { referee?: Referrer | null };

/** What the serializer needs from the service. */
export interface SerializeContext {
  db: Db;
  leaderboard: Leaderboard;
  hooks: ParticipantHooks;
  publicUrl: string;
  now: number;
}

/**
 * The one Participant serializer (rest-v2 §2.8): every field we hold data for, with ranks, referrer
 * summaries and rewards loaded for the whole batch in three round trips (referrers, ranks, rewards).
 */
export async function serializeParticipants(q: Q, program: Program, rows: ParticipantRow[], ctx: SerializeContext, opts: SerializeOptions = {}): Promise<Participant[]> {
  if (rows.length === 0) return [];
  const cur = monthKey(ctx.now);
  const d = new Date(ctx.now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const boards = { all: 'ALL_TIME', month: monthBoard(cur), prev: monthBoard(cur - 1) };
  // Referrer and referee summaries: a row serialized in the same batch or held by the caller is
  // taken from there (those rows are current; a reward's two recipients are usually referrer and
  // referred), the others are read.
  const referrers = new Map<string, ParticipantRow>();
  const given = new Map(opts.known);
  for (const r of rows) given.set(r.id, r);
  const referrerIds: string[] = [];
  const summarised = rows.map((r) => r.referred_by).concat(opts.referees ? [...opts.referees.values()] : []);
  for (const id of new Set(summarised.filter((x): x is string => !!x))) {
    const r = given.get(id);
    if (r) referrers.set(id, r);
    else referrerIds.push(id);
  }
  if (referrerIds.length) {
    // By primary key only: with program_id in the query SQLite may walk the program's whole index.
    const found = await selectRows<ParticipantRow>(ctx.db, q, `SELECT * FROM participants WHERE id IN (${referrerIds.map(() => '?').join(', ')})`, referrerIds);
    for (const r of found) if (r.program_id === program.id) referrers.set(r.id, r);
  }
  const pairs: Array<[string, number]> = [];
  for (const r of [...rows, ...referrers.values()]) {
    pairs.push([boards.all, Number(r.referral_count)], [boards.month, monthScore(r, cur)], [boards.prev, monthScore(r, cur - 1)]);
  }
  const higher = await ctx.leaderboard.higherCounts(q, program.id, pairs);
  const rankOf = (board: string, score: number) => 1 + (higher.get(rankKey(board, score)) ?? 0) + (opts.ledger?.pendingAbove(board, score) ?? 0);
  const withRewards = opts.rewards !== false;
  const rewards = withRewards && ctx.hooks.rewardsOf ? await ctx.hooks.rewardsOf(q, rows.map((r) => r.id)) : null;
  const fraudMatches = ctx.hooks.fraudMatchesOf ? await ctx.hooks.fraudMatchesOf(q, rows) : null;
  const requiredActions = ctx.hooks.requiredActionsOf ? await ctx.hooks.requiredActionsOf(q, program, rows) : null;
  const base = shareBase(program, ctx.publicUrl);
  const language = programLanguages(program).base;
  const affiliateProgram = program.type === 'AFFILIATE';

  // Objects are built by assignment in the wire's key order: V8 copies `...spread` and
  // `...(cond ? {…} : {})` through its generic path, which cost more than the rest of the build.
  const addCommon = (o: Record<string, unknown>, r: ParticipantRow, rank?: number) => {
    const referrals = r.recent_referrals ? r.recent_referrals.split(',') : [];
    const monthly = monthScore(r, cur);
    const prev = monthScore(r, cur - 1);
    o.referralCount = Number(r.referral_count);
    o.monthlyReferralCount = monthly;
    o.prevMonthlyReferralCount = prev;
    o.rank = rank ?? rankOf(boards.all, Number(r.referral_count));
    o.monthlyRank = rankOf(boards.month, monthly);
    o.prevMonthlyRank = rankOf(boards.prev, prev);
    o.impressionCount = Number(r.impression_count);
    o.uniqueImpressionCount = Number(r.unique_impression_count);
    o.inviteCount = Number(r.invite_count);
    o.leadCount = Number(r.lead_count);
    o.referrals = referrals;
    o.monthlyReferrals = recentSince(r, referrals, monthStart);
  };
  // Every participant has a share key, so every object carries its link: affiliate-program customers
  // and not-approved affiliates too (the official clients require shareUrl; rest-v2 §2.8).
  const shareUrlOf = (r: ParticipantRow) => withShareKey(base, r.share_key);

  const referrerOf = (r: ParticipantRow): Referrer => {
    const o: Record<string, unknown> = {
      id: r.id,
      createdAt: Number(r.created_at),
      email: r.email,
      firstName: r.first_name,
      lastName: r.last_name,
      fingerprint: r.fingerprint,
      ipAddress: r.ip_address,
    };
    if (r.fraud_reason_code) o.fraudReasonCode = r.fraud_reason_code;
    o.fraudRiskLevel = r.fraud_risk_level;
    o.isWinner = !!r.is_winner;
    o.metadata = parseJson<Record<string, string>>(r.metadata, {});
    addCommon(o, r);
    o.referralSource = r.referral_source;
    if (r.referred_by && r.referral_status) o.referralStatus = r.referral_status;
    o.shareCount = parseJson<Record<string, number>>(r.share_count, {});
    o.shareUrl = shareUrlOf(r);
    o.unsubscribed = !!r.unsubscribed;
    return o as unknown as Referrer;
  };

  return rows.map((r, i) => {
    const ref = r.referred_by ? referrers.get(r.referred_by) : undefined;
    const refereeId = opts.referees?.get(r.id);
    const p: Record<string, unknown> = { id: r.id, email: r.email, firstName: r.first_name, lastName: r.last_name, shareUrl: shareUrlOf(r) };
    addCommon(p, r, opts.boardRanks?.[i]);
    if (withRewards) p.rewards = rewards?.get(r.id) ?? [];
    p.createdAt = Number(r.created_at);
    p.referralSource = r.referral_source;
    if (r.referred_by && r.referral_status) {
      p.referralStatus = r.referral_status;
      p.referredBy = r.referred_by;
      p.referrer = ref ? referrerOf(ref) : null;
    }
    if (refereeId) {
      const referee = referrers.get(refereeId);
      p.referee = referee ? referrerOf(referee) : null;
    }
    p.fraudRiskLevel = r.fraud_risk_level;
    if (r.fraud_reason_code) p.fraudReasonCode = r.fraud_reason_code;
    p.allMatchingFraudsters = fraudMatches?.get(r.id) ?? [];
    p.isWinner = !!r.is_winner;
    p.shareCount = parseJson<Record<string, number>>(r.share_count, {});
    p.ipAddress = r.ip_address;
    p.fingerprint = r.fingerprint;
    p.mobileInstanceId = r.mobile_instance_id;
    p.metadata = parseJson<Record<string, string>>(r.metadata, {});
    p.notes = r.notes;
    p.unsubscribed = !!r.unsubscribed;
    p.vanityKeys = parseJson<string[]>(r.vanity_keys, []);
    if (r.paypal_email) p.paypalEmailAddress = r.paypal_email;
    p.payoutSettings = { requiredActions: requiredActions?.get(r.id) ?? [] };
    if (opts.isNew !== undefined) p.isNew = opts.isNew;
    if (affiliateProgram) {
      p.isAffiliate = !!r.is_affiliate;
      p.affiliateStatus = r.affiliate_status ?? null;
      p.affiliateEnrollmentSource = r.affiliate_enrollment_source ?? null;
      // Columns of migration 014 (affiliate money), read off the full row.
      p.unreadCommissionsCount = Number((r as { unread_commissions_count?: number }).unread_commissions_count ?? 0);
      p.unreadPayoutsCount = Number((r as { unread_payouts_count?: number }).unread_payouts_count ?? 0);
    }
    p.language = (r.language ?? language) as Participant['language'];
    // An EventParticipant when opts.rewards is false (the caller asked for it and types it so).
    return p as unknown as Participant;
  });
}
