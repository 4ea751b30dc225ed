// A source participant (rest-v2 §2.8, as the source's participants list answers it) as our row: the
// same id, share key, vanity keys, referrer, counters and states, or the reason it cannot be one.
import { participantCreate } from '../../../shared/schemas/participant.ts';
import { emailKey, metadataStrings } from '../participants/model.ts';

/** A participant as the source's `GET /campaign/{id}/participants` lists it (the fields we read). */
export interface SourceParticipant {
  id: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  shareUrl?: string;
  createdAt?: number;
  referralCount?: number;
  monthlyReferralCount?: number;
  prevMonthlyReferralCount?: number;
  leadCount?: number;
  impressionCount?: number;
  uniqueImpressionCount?: number;
  inviteCount?: number;
  referralSource?: string;
  referralStatus?: string;
  referredBy?: string;
  fraudRiskLevel?: string;
  fraudReasonCode?: string;
  isWinner?: boolean;
  shareCount?: Record<string, number>;
  ipAddress?: string | null;
  fingerprint?: string | null;
  mobileInstanceId?: string | null;
  metadata?: Record<string, unknown>;
  notes?: string | null;
  unsubscribed?: boolean;
  vanityKeys?: string[];
  paypalEmailAddress?: string;
  isAffiliate?: boolean;
  affiliateStatus?: string | null;
  affiliateEnrollmentSource?: string | null;
  unreadCommissionsCount?: number;
  unreadPayoutsCount?: number;
  language?: string;
  rewards?: SourceReward[];
  /** Ids of the (100 most recent) participants they referred, newest first. */
  referrals?: string[];
}

/** An issued reward as a participant's `rewards` lists it (rest-v2 §2.11). */
export interface SourceReward {
  id: string;
  rewardId: string;
  status?: string;
  approved?: boolean;
  amount?: number | null;
  currencyISO?: string | null;
  approvedAt?: number | null;
  fulfilledAt?: number | null;
  isFulfilled?: boolean;
  isAvailable?: boolean;
  isReferrer?: boolean;
  referrerId?: string;
  referredId?: string;
  unread?: boolean;
  commissionStructure?: unknown;
}

/** Ids, share keys and vanity keys: what a column and a link can hold. */
const ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Whether a source record's id can be kept as ours (every imported kind's id column holds 32 of [A-Za-z0-9_-]). */
export const keepableId = (id: unknown): id is string => typeof id === 'string' && ID.test(id);
const KEY = /^[A-Za-z0-9_-]{1,64}$/;
const STATUSES = new Set(['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED']);
const RISK = new Set(['LOW', 'MEDIUM', 'HIGH']);
const AFFILIATE_STATUSES = new Set(['APPROVED', 'SUSPENDED', 'BANNED']);

/** The share key inside a participant's `shareUrl` (`?grsf=KEY`, as GrowSurf and refloop build it; `?ref=KEY` too). */
export function shareKeyOf(shareUrl: string | undefined): string | null {
  if (!shareUrl) return null;
  try {
    const u = new URL(shareUrl);
    return u.searchParams.get('grsf') ?? u.searchParams.get('ref');
  } catch {
    return null;
  }
}

/** Non-negative integer of a counter field (a missing or odd value counts as 0). */
const count = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/** The row a source participant becomes in program `programId`, or why it cannot. */
export function participantRow(
  p: SourceParticipant,
  programId: string,
  ctx: { now: number; monthKey: number; baseLanguage: string; languages: readonly string[]; affiliate: boolean },
): { row: Record<string, unknown>; vanityKeys: string[]; metadata: Record<string, string> } | { refused: string } {
  if (!keepableId(p.id)) return { refused: 'The id is not one refloop can keep (1–32 of A–Z, a–z, 0–9, _ and -).' };
  const email = participantCreate.shape.email.safeParse(p.email);
  if (!email.success) return { refused: `The email address ${JSON.stringify(String(p.email ?? '')).slice(0, 80)} is not valid.` };
  const shareKey = shareKeyOf(p.shareUrl);
  if (!shareKey || !KEY.test(shareKey) || shareKey.length > 16) return { refused: 'Its share link carries no share key refloop can keep, so its links could not resolve here.' };
  const vanityKeys = Array.isArray(p.vanityKeys) ? p.vanityKeys.filter((k): k is string => typeof k === 'string') : [];
  const badVanity = vanityKeys.find((k) => !KEY.test(k));
  if (badVanity) return { refused: `The vanity key ${JSON.stringify(badVanity).slice(0, 80)} is not one refloop can keep.` };
  const metadata = metadataStrings(Object.fromEntries(Object.entries(p.metadata ?? {}).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))) as Record<string, string>);
  const referred = typeof p.referredBy === 'string' && p.referredBy !== '' && STATUSES.has(p.referralStatus ?? '');
  const createdAt = typeof p.createdAt === 'number' && p.createdAt > 0 ? Math.floor(p.createdAt) : ctx.now;
  const language = typeof p.language === 'string' && p.language !== ctx.baseLanguage && ctx.languages.includes(p.language) ? p.language : null;
  const recent = Array.isArray(p.referrals) ? p.referrals.filter(keepableId).slice(0, 100) : [];
  const row: Record<string, unknown> = {
    id: p.id,
    program_id: programId,
    email: email.data,
    email_key: emailKey(email.data),
    first_name: p.firstName ?? null,
    last_name: p.lastName ?? null,
    share_key: shareKey,
    referred_by: referred ? p.referredBy : null,
    referral_status: referred ? p.referralStatus : null,
    referral_source: referred ? 'PARTICIPANT' : 'DIRECT',
    // The API does not say when a referral was made or credited: the referred person's sign-up is that moment.
    referred_at: referred ? createdAt : null,
    credited_at: referred && p.referralStatus === 'CREDIT_AWARDED' ? createdAt : null,
    referral_count: count(p.referralCount),
    month_key: ctx.monthKey,
    monthly_referral_count: count(p.monthlyReferralCount),
    prev_monthly_referral_count: count(p.prevMonthlyReferralCount),
    lead_count: count(p.leadCount),
    impression_count: count(p.impressionCount),
    unique_impression_count: count(p.uniqueImpressionCount),
    invite_count: count(p.inviteCount),
    fraud_risk_level: RISK.has(p.fraudRiskLevel ?? '') ? p.fraudRiskLevel : 'LOW',
    fraud_reason_code: typeof p.fraudReasonCode === 'string' ? p.fraudReasonCode.slice(0, 64) : null,
    is_winner: !!p.isWinner,
    ip_address: typeof p.ipAddress === 'string' ? p.ipAddress.slice(0, 64) : null,
    fingerprint: typeof p.fingerprint === 'string' ? p.fingerprint.slice(0, 255) : null,
    mobile_instance_id: typeof p.mobileInstanceId === 'string' ? p.mobileInstanceId.slice(0, 36) : null,
    notes: typeof p.notes === 'string' ? p.notes.slice(0, 500) : null,
    unsubscribed: !!p.unsubscribed,
    language,
    paypal_email: typeof p.paypalEmailAddress === 'string' ? p.paypalEmailAddress.slice(0, 254) : null,
    is_affiliate: ctx.affiliate && !!p.isAffiliate,
    affiliate_status: ctx.affiliate && AFFILIATE_STATUSES.has(p.affiliateStatus ?? '') ? p.affiliateStatus : null,
    affiliate_enrollment_source: ctx.affiliate && typeof p.affiliateEnrollmentSource === 'string' ? p.affiliateEnrollmentSource.slice(0, 24) : null,
    ...(ctx.affiliate ? { unread_commissions_count: count(p.unreadCommissionsCount), unread_payouts_count: count(p.unreadPayoutsCount) } : {}),
    vanity_keys: vanityKeys.length ? JSON.stringify(vanityKeys) : null,
    share_count: p.shareCount && typeof p.shareCount === 'object' && Object.keys(p.shareCount).length ? JSON.stringify(p.shareCount) : null,
    metadata: Object.keys(metadata).length ? JSON.stringify(metadata) : null,
    // The source's order of the referrals it lists; their times are filled in once every row is here.
    recent_referrals: recent.length ? recent.join(',') : null,
    recent_referrals_at: null,
    created_at: createdAt,
    updated_at: ctx.now,
  };
  return { row, vanityKeys, metadata };
}
