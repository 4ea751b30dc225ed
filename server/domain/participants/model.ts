import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { PendingCounts, Program } from '../programs/programs.ts';
import type { ScoredRow } from './boards.ts';
import type { ScoreLedger } from './score-ledger.ts';
import type { EventParticipant } from './serialize.ts';
import { ValidationError } from '../../errors.ts';

/** A participants row as stored (snake_case, JSON columns still text). */
export interface ParticipantRow extends ScoredRow {
  program_id: string;
  email: string;
  email_key: string;
  first_name: string | null;
  last_name: string | null;
  share_key: string;
  vanity_keys: string | null;
  referred_by: string | null;
  referral_status: 'CREDIT_PENDING' | 'CREDIT_AWARDED' | 'CREDIT_EXPIRED' | 'INVITE_SENT' | null;
  referral_source: 'DIRECT' | 'PARTICIPANT';
  referred_at: number | null;
  credited_at: number | null;
  invite_count: number;
  share_count: string | null;
  recent_referrals: string | null;
  recent_referrals_at: string | null;
  fraud_risk_level: 'LOW' | 'MEDIUM' | 'HIGH';
  fraud_reason_code: string | null;
  /** JSON array of participant ids matched by anti-fraud (migration 010); null when none. */
  fraud_matches?: string | null;
  is_winner: boolean | number;
  ip_address: string | null;
  fingerprint: string | null;
  mobile_instance_id: string | null;
  metadata: string | null;
  notes: string | null;
  unsubscribed: boolean | number;
  language: string | null;
  paypal_email: string | null;
  is_affiliate: boolean | number;
  affiliate_status: 'APPROVED' | 'SUSPENDED' | 'BANNED' | null;
  affiliate_enrollment_source: string | null;
  updated_at: number;
}

/** A knex handle or a transaction: every domain read takes one so it can join the caller's transaction. */
export type Q = Knex | Knex.Transaction;

/**
 * Work other modules attach to participant moments; each runs inside the caller's transaction,
 * after the participant rows changed and before the score histograms and program counters are
 * applied (those shared rows are locked last), so ranks read inside a hook are not yet updated.
 * Hooks that change program counters do so through `ledger` (never by writing the program row),
 * which keeps that lock order.
 */
export interface ParticipantHooks {
  /**
   * After a participant is inserted (upfront rewards, activity); fraud screening runs earlier, in
   * `screening`. `referrer` is the participant's referrer as this transaction left it (its counts
   * already moved; null when not referred): hooks take it from here instead of reading it again.
   */
  created: Array<(trx: Knex.Transaction, program: Program, participant: ParticipantRow, ledger: ScoreLedger, referrer: ParticipantRow | null) => Promise<void>>;
  /** A referral just became CREDIT_AWARDED; `referrer` already carries the new counts (rewards issuing). */
  referralCredited: Array<(trx: Knex.Transaction, program: Program, referrer: ParticipantRow, referred: ParticipantRow, ledger: ScoreLedger) => Promise<void>>;
  /**
   * A referral moved to another referrer or changed status (P5, triggers, expiry); credits also run
   * `referralCredited`. `referred` is the updated row. Activity logging.
   */
  referralChanged: Array<
    (trx: Knex.Transaction, program: Program, referred: ParticipantRow, change: { fromReferrer: string | null; toReferrer: string | null; from: ParticipantRow['referral_status']; to: ParticipantRow['referral_status'] }) => Promise<void>
  >;
  /** Before participants are deleted: remove rows that point at them (rewards, invites, commissions). */
  deleting: Array<(trx: Knex.Transaction, program: Program, participantIds: string[], ledger: ScoreLedger) => Promise<void>>;
  /** Issued rewards of several participants, for `Participant.rewards`; set by the rewards engine. */
  rewardsOf: ((q: Q, participantIds: string[]) => Promise<Map<string, Array<Record<string, unknown>>>>) | null;
  /**
   * Anti-fraud verdicts, asked BEFORE a participant is inserted (P3) and before a referral moves to
   * another referrer (P5): a `block` answers 422 with nothing written (server/domain/referral/fraud.ts).
   */
  screening: Array<(trx: Knex.Transaction, program: Program, candidate: ScreeningCandidate, referrer: ParticipantRow | null) => Promise<ScreeningDecision | null>>;
  /** P5 `fraudRiskLevel`: the owner's manual override; set by the fraud engine. */
  fraudOverride: ((trx: Knex.Transaction, program: Program, participant: ParticipantRow, level: ParticipantRow['fraud_risk_level'], actor: string | null) => Promise<ScreeningDecision>) | null;
  /** `Participant.allMatchingFraudsters` of several participants; set by the fraud engine. */
  fraudMatchesOf: ((q: Q, rows: ParticipantRow[]) => Promise<Map<string, Array<{ id: string; email: string }>>>) | null;
  /** `Participant.payoutSettings.requiredActions` of several participants; set by the payout destinations of the affiliate engine. */
  requiredActionsOf: ((q: Q, program: Program, rows: ParticipantRow[]) => Promise<Map<string, string[]>>) | null;
  /**
   * Runs a sign-up's work with the activity rows its hooks record on `trx` written in one statement
   * when it succeeds (`Activity.batched`); set where the activity log is wired. A sign-up records
   * up to six rows from four hooks, and nothing in it reads the log back.
   */
  activityBatch: (<T>(trx: Knex.Transaction, work: () => Promise<T>) => Promise<T>) | null;
}

/** Who a screening hook looks at: the in-request anti-fraud values on P3 (compared even when GDPR mode stores none), the stored ones on P5. */
export interface ScreeningCandidate {
  /** The participant's id (already chosen on P3). */
  id: string;
  email: string;
  ipAddress: string | null;
  fingerprint: string | null;
  mobileInstanceId: string | null;
  /** The stored row when an existing participant's referral changes; null on sign-up. */
  existing: ParticipantRow | null;
  /** Sign-ups from browsers and apps: what the participant API learned about the request (never stored). */
  request?: RequestEvidence;
}

/** What a participant-API sign-up request showed beyond the stored anti-fraud values. */
export interface RequestEvidence {
  /** ISO 3166-1 alpha-2 from the operator's trusted proxy header (GEO_COUNTRY_HEADER); null when unknown. */
  country: string | null;
  /** options.fraud.recaptcha was on but the verification service could not be reached. */
  recaptchaUnverified: boolean;
}

/** A screening hook's verdict; the core applies it and calls `afterWrite` once the row is written. */
export interface ScreeningDecision {
  /** Refuse the sign-up with 422 ParticipantBlockedError; nothing is written. */
  block: boolean;
  reasonCode: string;
  /** Record the referral CREDIT_PENDING instead of crediting it automatically (the caller named no status). */
  holdCredit: boolean;
  /** Columns to set on the participant (fraud level, reason, matches), or null to leave them. */
  columns: Partial<Pick<ParticipantRow, 'fraud_risk_level' | 'fraud_reason_code' | 'fraud_matches'>> | null;
  /** Records the decision (reasons, activity, webhook) in the same transaction, after the row is final. */
  afterWrite(trx: Knex.Transaction, program: Program, participant: ParticipantRow): Promise<void>;
}

/** Where webhook events go; `deps.webhooks` in the app. */
export interface EventSink {
  /** NEW_PARTICIPANT_ADDED, when a webhook listens. */
  participantAdded(trx: Q, program: Program, participant: EventParticipant, ledger?: PendingCounts): Promise<unknown>;
}

/** Most recent referral ids kept on the referrer (rest-v2 §5 #19). */
export const RECENT_REFERRALS = 100;

/** A referrer's recent referrals, newest first: [referred participant id, referral time]. */
export type RecentReferrals = Array<[id: string, at: number]>;

/** The two stored columns of a recent-referrals list. */
export function encodeRecent(list: RecentReferrals): Pick<ParticipantRow, 'recent_referrals' | 'recent_referrals_at'> {
  const kept = list.slice(0, RECENT_REFERRALS);
  return kept.length
    ? { recent_referrals: kept.map(([id]) => id).join(','), recent_referrals_at: kept.map(([, at]) => String(at)).join(',') }
    : { recent_referrals: null, recent_referrals_at: null };
}

/** The recent-referrals list of a row. */
export function decodeRecent(row: Pick<ParticipantRow, 'recent_referrals' | 'recent_referrals_at'>): RecentReferrals {
  if (!row.recent_referrals) return [];
  const ids = row.recent_referrals.split(',');
  const at = (row.recent_referrals_at ?? '').split(',');
  return ids.map((id, i) => [id, Number(at[i] ?? 0)]);
}

/** Ids of the recent referrals made at or after `since` (a prefix: the list is newest first). */
export function recentSince(row: Pick<ParticipantRow, 'recent_referrals' | 'recent_referrals_at'>, ids: string[], since: number): string[] {
  if (!ids.length || !row.recent_referrals_at) return [];
  let n = 0;
  let from = 0;
  const text = row.recent_referrals_at;
  while (n < ids.length) {
    const end = text.indexOf(',', from);
    const at = Number(end < 0 ? text.slice(from) : text.slice(from, end));
    if (!(at >= since)) break;
    n++;
    if (end < 0) break;
    from = end + 1;
  }
  return ids.slice(0, n);
}

const SHARE_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random share key: 10 characters of [a-z0-9] (≈ 51 bits), unique per program by index. */
export function newShareKey(): string {
  const bytes = crypto.randomBytes(20);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < 10; i++) if (bytes[i]! < 252) out += SHARE_ALPHABET[bytes[i]! % 36];
  return out.length === 10 ? out : newShareKey();
}

/** Lower-cased email: how emails are compared and made unique. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** Short hash of a metadata value for the filter index. */
export function valueHash(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex').slice(0, 16);
}

/** Metadata values as stored: strings. */
export function metadataStrings(input: Record<string, string | number | boolean>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) out[k] = String(v);
  return out;
}

/** Parses a JSON text column, falling back when empty. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** The program's landing URL for referral links: installation.shareUrl, else the hosted share page. */
export function shareBase(program: Program, publicUrl: string): string {
  const configured = (program.documents.installation as { shareUrl?: unknown }).shareUrl;
  return typeof configured === 'string' && configured ? configured : `${publicUrl.replace(/\/+$/, '')}/r/${program.id}`;
}

/** `base` with `grsf=<shareKey>` added to its query string (before any fragment). */
export function withShareKey(base: string, shareKey: string): string {
  const hash = base.indexOf('#');
  const head = hash >= 0 ? base.slice(0, hash) : base;
  const frag = hash >= 0 ? base.slice(hash) : '';
  const sep = !head.includes('?') ? '?' : head.endsWith('?') || head.endsWith('&') ? '' : '&';
  return `${head}${sep}grsf=${encodeURIComponent(shareKey)}${frag}`;
}

/** The program's languages: base first (options.languages, else English only). */
export function programLanguages(program: Program): { base: string; all: string[] } {
  const l = (program.documents.options as { languages?: { baseLanguage?: string; additionalLanguages?: string[] } }).languages;
  const base = l?.baseLanguage ?? 'en';
  return { base, all: [base, ...(l?.additionalLanguages ?? []).filter((x) => x !== base)] };
}

/** 400 unless `language` is one of the program's languages. */
export function assertProgramLanguage(program: Program, language: string): void {
  const { all } = programLanguages(program);
  if (!all.includes(language)) {
    throw new ValidationError(`language must be one of this program’s languages: ${all.join(', ')}.`, [
      { field: 'language', code: 'INVALID_VALUE', message: `Must be one of ${all.join(', ')}.` },
    ]);
  }
}

/** True when the program keeps no IP address, fingerprint or mobile instance id (options.enforceGdprCompliance). */
export function gdprStrict(program: Program): boolean {
  return (program.documents.options as { enforceGdprCompliance?: unknown }).enforceGdprCompliance === true;
}

/** The status a new referral gets when the caller names none: ON_SIGNUP credits at once, CUSTOM waits for the trigger call. */
export function derivedReferralStatus(program: Program): 'CREDIT_AWARDED' | 'CREDIT_PENDING' {
  const trigger = (program.documents.installation as { referralTrigger?: unknown }).referralTrigger ?? (program.type === 'AFFILIATE' ? 'CUSTOM' : 'ON_SIGNUP');
  return trigger === 'ON_SIGNUP' ? 'CREDIT_AWARDED' : 'CREDIT_PENDING';
}

/** A 400 for one field. */
export function fieldError(field: string, message: string, code = 'INVALID'): ValidationError {
  return new ValidationError(message, [{ field, code, message }]);
}

/**
 * Transactions that write history moved in from another product (`refloop import csv`): a
 * participant added in one is not welcomed, announced to webhooks or paid a sign-up (LEAD)
 * commission, because that happened, or did not, on the source long ago. A transaction is marked by
 * whoever opened it for itself alone (never a group-commit transaction that others share).
 */
export const historyWrites = new WeakSet<object>();
