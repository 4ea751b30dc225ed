import { z } from 'zod';
import { ATTRIBUTION_LIMITS, ATTRIBUTION_PROVIDERS, UTM_KEYS, cleanUrl, stripControls } from '../attribution.ts';
import { VANITY_KEY_PATTERN, participant, participantMetadataInput, participantMetadataPatch } from './participant.ts';
import { SHARE_CHANNELS } from './program-config.ts';
import { campaignReward } from './reward-config.ts';
import { REFERRAL_PAGE, sendInvitesBody } from './referral.ts';
import { participantRewardListQuery } from './reward.ts';
import { affiliateSummary } from './payout.ts';
import { programResourceFile, programResourceType, type ProgramResource } from './resource.ts';

// The participant API under /mobile/v2 (docs/participant-api.md): request and response bodies,
// shared by the server, the widget's client and /openapi/mobile-v2.json.

/** A client instance id: a UUID, stored lower-case (the native SDKs' `mobileInstanceId`; the widget's per-install id). */
export const instanceId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Must be a UUID.')
  .transform((s) => s.toLowerCase());

/** `POST /mobile/v2/sessions` body. */
export const mobileSessionCreate = z.strictObject({ instanceId }).meta({ id: 'MobileSessionCreate' });

/** A session token for one client instance of one program. */
export const mobileSession = z
  .object({
    sessionToken: z.string().meta({ description: 'Send as X-Session-Token on every other call.' }),
    expiresIn: z.number().int().meta({ description: 'Seconds (3600).' }),
    expiresAt: z.number().int().meta({ description: 'Epoch ms.' }),
    programId: z.string(),
  })
  .meta({ id: 'MobileSession' });

const url = z
  .string()
  .max(8192)
  .transform((v) => cleanUrl(v))
  .meta({ description: 'Stored as origin and path only; a query string or fragment is dropped, an unparseable URL ignored.' });
const utmValue = z
  .string()
  .max(1024)
  .transform((v) => stripControls(v).slice(0, ATTRIBUTION_LIMITS.utmValue));

/** An attribution as `shared/attribution.ts` produces it; the server cleans the URLs again. */
export const attribution = z
  .strictObject({
    referralCode: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'A share key, vanity key or participant id.').optional(),
    campaignId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().meta({ description: 'The program a hosted share URL named; another program’s code is ignored.' }),
    clickId: z.string().regex(/^[\x21-\x7e]{1,128}$/).optional(),
    unique: z.boolean().optional(),
    utm: z.strictObject(Object.fromEntries(UTM_KEYS.map((k) => [k, utmValue.optional()])) as Record<(typeof UTM_KEYS)[number], z.ZodOptional<typeof utmValue>>).optional(),
    destination: url.optional(),
    referrer: url.optional(),
  })
  .meta({ id: 'Attribution' });

/** `POST /mobile/v2/visits` body. */
export const visitCreate = z
  .strictObject({
    visitId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'A client-generated id: the same id for every retry of one visit.')
      .meta({ description: 'Client-generated, the same for every retry of one visit. A time-ordered UUID (version 7) is recommended: it is stored in a time-ordered index.' }),
    attribution: attribution.nullable(),
    provider: z.enum(ATTRIBUTION_PROVIDERS).optional().meta({ description: 'The attribution provider the parameters came from, if any.' }),
    firstVisit: z
      .string()
      .max(256)
      .optional()
      .meta({ description: 'The firstVisit receipt this client holds from an earlier answer: while it is valid (same program, inside the cookie window) it stays the first visit.' }),
  })
  .meta({ id: 'VisitCreate' });

/** Signed visit receipts to keep and attach to participant creation. */
export const visitReceipts = z
  .object({
    firstVisit: z.string().meta({ description: 'The earliest referred visit within the cookie window: the receipt the client sent while still valid, else this visit.' }),
    lastVisit: z.string().meta({ description: 'This visit.' }),
  })
  .meta({ id: 'VisitReceipts' });

/** `POST /mobile/v2/visits` answer. */
export const visitResponse = z
  .object({
    status: z.enum(['RECORDED', 'PROCESSING']).meta({ description: 'PROCESSING: not yet durable; keep the visit queued and send the same visitId again later.' }),
    visitId: z.string(),
    receipts: visitReceipts.nullable().optional().meta({ description: 'On RECORDED: null when the referral code names no participant of this program.' }),
  })
  .meta({ id: 'VisitResponse' });

/** The fields of a participant its owner sees about themselves (no fraud, device or owner-only data). */
export const mobileParticipant = participant
  .pick({
    id: true,
    email: true,
    firstName: true,
    lastName: true,
    shareUrl: true,
    referralCount: true,
    monthlyReferralCount: true,
    prevMonthlyReferralCount: true,
    rank: true,
    monthlyRank: true,
    prevMonthlyRank: true,
    impressionCount: true,
    uniqueImpressionCount: true,
    inviteCount: true,
    leadCount: true,
    createdAt: true,
    referralSource: true,
    referralStatus: true,
    referredBy: true,
    shareCount: true,
    metadata: true,
    unsubscribed: true,
    vanityKeys: true,
    paypalEmailAddress: true,
    payoutSettings: true,
    unreadCommissionsCount: true,
    unreadPayoutsCount: true,
    isAffiliate: true,
    affiliateStatus: true,
    language: true,
  })
  .meta({ id: 'MobileParticipant' });

/** `POST /mobile/v2/participant-token` body: auto-authentication (web-sdk.md §5). */
export const participantAutoAuth = z
  .strictObject({
    email: z
      .string()
      .min(3)
      .max(254)
      .refine((v) => v.includes('@'), 'Must be an email address.')
      .meta({ description: 'Exactly the string the hash was computed over (no case change).' }),
    hash: z.string().regex(/^[0-9a-fA-F]{64}$/, 'Lower-case hex HMAC-SHA256 of the email keyed with the participant auth secret.'),
  })
  .meta({ id: 'ParticipantAutoAuth' });

/** A participant token for the participant API. */
export const mobileParticipantToken = z
  .object({
    participantToken: z.string().meta({ description: 'A JWT (HS256) with sub = participant id and pid = program id; send as Authorization: Bearer.' }),
    expiresIn: z.number().int().meta({ description: 'Seconds (2592000 = 30 days).' }),
    participant: mobileParticipant,
  })
  .meta({ id: 'MobileParticipantToken' });

/** REST P10 `POST /campaign/{id}/mobile-participant-token` answer (rest-v2 §2.28). */
export const mobileParticipantTokenResponse = z
  .object({ participantToken: z.string(), expiresIn: z.number().int(), participant, isNew: z.boolean() })
  .meta({ id: 'MobileParticipantTokenResponse' });

/** REST extension: the participant auth secret, shown once when created. */
export const participantAuthSecret = z
  .object({
    participantAuthSecret: z.string().meta({ description: 'Shown only in this answer; stored sealed. Hash emails with it on your server, never in a browser.' }),
    createdAt: z.number().int(),
  })
  .meta({ id: 'ParticipantAuthSecret' });

/** REST extension: the answer to rotating the participant-token signing secret. */
export const participantTokenSecretRotated = z
  .object({
    success: z.literal(true),
    rotatedAt: z.number().int().meta({ description: 'Epoch ms; every participant token issued before this moment is revoked.' }),
  })
  .meta({ id: 'ParticipantTokenSecretRotated' });

/** A participant as the participant API shows them to themselves. */
export type MobileParticipant = z.infer<typeof mobileParticipant>;
/** A validated visit body. */
export type VisitCreate = z.output<typeof visitCreate>;
/** A visit answer. */
export type VisitResponse = z.infer<typeof visitResponse>;

/** The participant-facing subset of a REST participant. */
export function toMobileParticipant(p: Record<string, unknown>): MobileParticipant {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(mobileParticipant.shape)) if (p[k] !== undefined) out[k] = p[k];
  return out as MobileParticipant;
}

// ── Participant creation, referrer checks and the signed-in participant (issue #5) ────────────

const participantEmail = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Must be an email address.' }));
const personName = z.string().trim().min(1).max(255);
/** A referral code a client may name a referrer by: participant id, share key or vanity key (never an email). */
const referralCode = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'A participant id, share key or vanity key.')
  .meta({ description: 'The referrer’s participant id, share key or vanity key. Emails are refused so the API cannot be used to test addresses.' });
const receiptList = z
  .array(z.string().max(256))
  .max(20)
  .meta({ description: 'Visit receipts (firstVisit, lastVisit) from POST /visits; the program’s attribution model picks one. Invalid ones are ignored.' });

/** `POST /mobile/v2/participants` body (addParticipant). */
export const mobileParticipantCreate = z
  .strictObject({
    email: participantEmail,
    firstName: personName.optional(),
    lastName: personName.optional(),
    metadata: participantMetadataInput.optional(),
    mobileInstanceId: instanceId.optional().meta({ description: 'The app install (native SDKs) or the widget’s per-install id; sent to the fraud checks.' }),
    fingerprint: z.string().min(1).max(255).optional(),
    receipts: receiptList.optional(),
    recaptchaToken: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .meta({ description: 'Pages of a program with options.fraud.recaptcha on: a reCAPTCHA token for the site key in GET /window (`recaptchaSiteKey`), action `signup`. Native apps (X-Public-Key) do not send one.' }),
    gdprConsent: z
      .boolean()
      .optional()
      .meta({
        description:
          'The participant ticked the consent checkbox of design signup.gdpr: recorded with the program’s consent text and the time in metadata.gdprAgreements. Required from pages while the checkbox is on and required (400).',
      }),
  })
  .meta({ id: 'MobileParticipantCreate' });

/** `POST /mobile/v2/participants` answer. */
export const mobileParticipantCreated = z
  .object({
    requiresParticipantToken: z.boolean().meta({ description: 'True when the email already belongs to a participant: nothing is returned; get a token from your backend (REST P10), auto-authentication or a sign-in link (POST /participant/login-link).' }),
    participant: mobileParticipant.nullable(),
    participantToken: z.string().optional(),
    expiresIn: z.number().int().optional(),
  })
  .meta({ id: 'MobileParticipantCreated' });

/** `POST /mobile/v2/participant/login-link` body: ask for a one-time sign-in link by email. */
export const mobileLoginLinkRequest = z
  .strictObject({
    email: participantEmail,
    returnUrl: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: 'The page the link returns to (grsfLogin=<token> is added). Used only when it is on one of the program’s allowed sites; otherwise the installation shareUrl.' }),
  })
  .meta({ id: 'MobileLoginLinkRequest' });

/** `POST /mobile/v2/participant/login-link` answer: the same whether or not the email belongs to a participant. */
export const mobileLoginLinkSent = z
  .object({ sent: z.literal(true).meta({ description: 'Always true: the answer never reveals whether the email belongs to a participant.' }) })
  .meta({ id: 'MobileLoginLinkSent' });

/** `POST /mobile/v2/participant/login-link/redeem` body. */
export const mobileLoginLinkRedeem = z
  .strictObject({ token: z.string().min(1).max(128).meta({ description: 'The grsfLogin value from the sign-in link.' }) })
  .meta({ id: 'MobileLoginLinkRedeem' });

/** `POST /mobile/v2/referred-participants` body (addReferredParticipant). */
export const mobileReferredParticipantCreate = mobileParticipantCreate
  .extend({ referredBy: referralCode.optional().meta({ description: 'An explicit referrer; wins over receipts.' }) })
  .meta({ id: 'MobileReferredParticipantCreate' });

/** Why addReferredParticipant added nobody. */
export const NOT_ADDED_REASONS = ['no_referrer', 'invalid_referrer', 'participant_already_exists'] as const;

/** `POST /mobile/v2/referred-participants` answer. */
export const mobileReferredParticipantCreated = z
  .object({
    added: z.boolean(),
    participant: mobileParticipant.nullable(),
    referredBy: z.string().optional().meta({ description: 'The referrer’s participant id, only when the client already named it by id or receipt (never resolved from a share or vanity key).' }),
    validReferral: z.boolean(),
    notAddedReason: z.enum(NOT_ADDED_REASONS).optional(),
    participantToken: z.string().optional().meta({ description: 'For a newly created participant of a referral program, or a new affiliate; a referred customer of an affiliate program gets none.' }),
    expiresIn: z.number().int().optional(),
  })
  .meta({ id: 'MobileReferredParticipantCreated' });

/** `POST /mobile/v2/referrer/validate` body (validateReferrer). */
export const mobileReferrerValidate = z
  .strictObject({ referredBy: referralCode.optional(), receipts: receiptList.optional() })
  .meta({ id: 'MobileReferrerValidate' });

/** `POST /mobile/v2/referrer/validate` answer: nothing about the referrer beyond what the client sent. */
export const mobileReferrerValidation = z
  .object({ valid: z.boolean(), referredBy: z.string().optional().meta({ description: 'As in MobileReferredParticipantCreated.' }) })
  .meta({ id: 'MobileReferrerValidation' });

/** `PATCH /mobile/v2/participant` body: what a participant may change about themselves. */
export const mobileParticipantUpdate = z
  .strictObject({
    firstName: z.string().trim().max(255).optional(),
    lastName: z.string().trim().max(255).optional(),
    metadata: participantMetadataPatch.optional(),
  })
  .refine((b) => b.firstName !== undefined || b.lastName !== undefined || b.metadata !== undefined, { message: 'Send firstName, lastName or metadata.' })
  .meta({ id: 'MobileParticipantUpdate' });

/** Share types trackShare accepts: the copy buttons of the SDKs and the design's share channels. */
export const SHARE_TYPES = ['copyRefLink', 'copy', ...SHARE_CHANNELS] as const;

/** `POST /mobile/v2/participant/shares` body (trackShare). */
export const mobileShareTrack = z
  .strictObject({ type: z.enum(SHARE_TYPES, { error: `type must be one of ${SHARE_TYPES.join(', ')}.` }) })
  .meta({ id: 'MobileShareTrack' });

/** `POST /mobile/v2/participant/shares` answer. */
export const mobileShareTracked = z
  .object({ success: z.literal(true), shareCount: z.record(z.string(), z.number().int()) })
  .meta({ id: 'MobileShareTracked' });

// ── Program, leaderboard, referrals, invites, rewards, summary and resources (issue #5) ───────

const queryFlag = z.enum(['true', 'false']).transform((v) => v === 'true');

/** A reward configuration as participants see it (no coupon codes, metadata or tax valuations). */
export const mobileCampaignReward = campaignReward
  .pick({
    id: true,
    type: true,
    event: true,
    title: true,
    description: true,
    referralDescription: true,
    imageUrl: true,
    isUnlimited: true,
    limit: true,
    limitDuration: true,
    conversionsRequired: true,
    numberOfWinners: true,
    referredRewardUpfront: true,
    nextMilestonePrefix: true,
    nextMilestoneSuffix: true,
    commissionStructure: true,
    order: true,
  })
  .meta({ id: 'MobileCampaignReward' });

/** `GET /mobile/v2/campaign` answer (getCampaign): the program's public details and visible rewards. */
export const mobileCampaign = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['REFERRAL', 'AFFILIATE']),
    status: z.string(),
    currencyISO: z.string(),
    companyName: z.string().nullable(),
    companyLogoImageUrl: z.string().nullable(),
    rewards: z.array(mobileCampaignReward),
  })
  .meta({ id: 'MobileCampaign' });

/** Boards the participant API shows. */
export const MOBILE_LEADERBOARD_TYPES = ['ALL_TIME', 'CURRENT_MONTH', 'PREV_MONTH', 'TOTAL_IMPRESSION_COUNT', 'UNIQUE_IMPRESSION_COUNT', 'BY_REFERRALS', 'BY_LEADS'] as const;
/** Deepest row `page` × `limit` may reach; beyond it, page with offsetKey. */
export const MOBILE_LEADERBOARD_DEPTH = 500;

/** `GET /mobile/v2/leaderboard` query. */
export const mobileLeaderboardQuery = z
  .object({
    leaderboardType: z.enum(MOBILE_LEADERBOARD_TYPES).optional().meta({ description: 'Default: the design’s defaultSelector (ALL_TIME unless changed).' }),
    limit: z.coerce.number().int().min(1).max(50).default(10),
    page: z.coerce.number().int().min(1).max(MOBILE_LEADERBOARD_DEPTH).optional().meta({ description: '1-based; ignored when offsetKey is sent.' }),
    offsetKey: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional().meta({ description: 'The previous page’s nextOffsetKey.' }),
  })
  .superRefine((q, ctx) => {
    if (!q.offsetKey && (q.page ?? 1) * q.limit > MOBILE_LEADERBOARD_DEPTH) {
      ctx.addIssue({ code: 'custom', path: ['page'], message: `page × limit may reach row ${MOBILE_LEADERBOARD_DEPTH}; page further with offsetKey.` });
    }
  });

/** One leaderboard row: rank, the name as the design's nameFormat shows it, and a masked email. */
export const mobileLeaderboardRow = z
  .object({
    rank: z.number().int().nullable(),
    name: z.string().nullable().meta({ description: 'By design.leaderboard.nameFormat; null when ANONYMOUS or no name was given.' }),
    email: z.string().meta({ description: 'Masked: a***@example.com.' }),
    score: z.number(),
    isYou: z.boolean().meta({ description: 'True on the signed-in participant’s own row (the call carried their participant token); drawn with design.leaderboard.youLabel.' }),
  })
  .meta({ id: 'MobileLeaderboardRow' });

/** `GET /mobile/v2/leaderboard` answer. */
export const mobileLeaderboard = z
  .object({
    leaderboardType: z.enum(MOBILE_LEADERBOARD_TYPES),
    rows: z.array(mobileLeaderboardRow),
    limit: z.number().int(),
    nextOffsetKey: z.string().nullable(),
  })
  .meta({ id: 'MobileLeaderboard' });

/** `GET /mobile/v2/participant/referrals` query (no email filters: a participant cannot probe addresses). */
export const mobileReferralQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(REFERRAL_PAGE.max).default(REFERRAL_PAGE.default),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
    sortBy: z.enum(['createdAt', 'updatedAt', 'firstName', 'lastName', 'referralStatus', 'referralTriggeredAt']).optional(),
    desc: queryFlag.optional(),
  })
  .transform((q) => ({
    limit: q.limit,
    offset: q.offset,
    nextId: undefined,
    sortBy: q.sortBy ?? ('createdAt' as const),
    desc: q.desc ?? q.sortBy === undefined,
    filters: { email: undefined, firstName: undefined, lastName: undefined, referralStatus: undefined },
  }));

/** `POST /mobile/v2/participant/invites` body: RF3's fields plus `private`. */
export const mobileInvitesSend = sendInvitesBody
  .extend({ private: z.boolean().optional().meta({ description: 'A private invitation is never disclosed back to the sender (mobile rule 6).' }) })
  .meta({ id: 'MobileSendInvites' });

/** `GET /mobile/v2/participant/rewards` query. */
export const mobileRewardQuery = participantRewardListQuery;

/** `POST /mobile/v2/participant/rewards/read` body. */
export const mobileRewardsRead = z
  .strictObject({ rewardIds: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)).min(1).max(100).optional().meta({ description: 'Omit to mark every reward read.' }) })
  .meta({ id: 'MobileRewardsRead' });

/** `POST /mobile/v2/participant/rewards/read` answer. */
export const mobileRewardsReadResult = z.object({ success: z.literal(true), updated: z.number().int() }).meta({ id: 'MobileRewardsReadResult' });

/** `GET /mobile/v2/participant/referral-summary` answer (referral programs). */
export const mobileReferralSummary = z
  .object({
    referrals: z.number().int(),
    leads: z.number().int(),
    expiredReferrals: z.number().int(),
    clicks: z.number().int().meta({ description: 'impressionCount: every view of the share link.' }),
    rewardsEarned: z.number().int(),
    pendingRewards: z.number().int().meta({ description: 'Earned rewards not yet fulfilled.' }),
    invitesSent: z.number().int(),
  })
  .meta({ id: 'MobileReferralSummary' });

/** `POST /mobile/v2/resources/{resourceId}/download-url` answer. */
export const mobileDownloadUrl = z.object({ url: z.string(), expiresIn: z.number().int() }).meta({ id: 'MobileDownloadUrl' });

/** One published resource as a participant sees it: no storage key, signed link, moderation or publishing data. */
export const mobileResource = z
  .object({
    id: z.string(),
    type: programResourceType,
    title: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable(),
    url: z.string().nullable().meta({ description: 'LINK only. A FILE has no URL here: ask MRS1 for a fresh short-lived link each time it is opened.' }),
    text: z.string().nullable().meta({ description: 'TEXT only.' }),
    file: programResourceFile
      .pick({ fileName: true, mimeType: true, bytes: true })
      .nullable()
      .meta({ description: 'FILE only: what the download will be.' }),
  })
  .meta({ id: 'MobileResource' });

/** `GET /mobile/v2/resources` answer: the program's published resources in list order. */
export const mobileResourceList = z.object({ resources: z.array(mobileResource) }).meta({ id: 'MobileResourceList' });

/** A REST `ProgramResource` as participants see it, or null when they may not (unpublished, or a file not approved). */
export function toMobileResource(r: ProgramResource): z.infer<typeof mobileResource> | null {
  if (!r.isPublished || (r.type === 'FILE' && r.file?.moderationStatus !== 'APPROVED')) return null;
  const file = r.type === 'FILE' && r.file ? { fileName: r.file.fileName, mimeType: r.file.mimeType, bytes: r.file.bytes } : null;
  return { id: r.id, type: r.type, title: r.title, description: r.description, category: r.category, url: r.type === 'LINK' ? r.url : null, text: r.type === 'TEXT' ? r.text : null, file };
}

/** `POST /mobile/v2/participant/vanity-links` body: replaces the signed-in participant's vanity keys. */
export const mobileVanityLinksSet = z
  .strictObject({
    vanityKeys: z
      .array(z.string().regex(VANITY_KEY_PATTERN, 'Each vanity key is 1–20 characters of A–Z, a–z, 0–9, _ and -.'))
      .max(5)
      .meta({ description: 'Replaces every vanity key; [] removes them all. A key another participant holds is 409.' }),
  })
  .meta({ id: 'MobileVanityLinksSet' });

/** The signed-in participant's vanity keys and the share links they make. */
export const mobileVanityLinks = z
  .object({ vanityKeys: z.array(z.string()), links: z.array(z.object({ vanityKey: z.string(), url: z.string() })) })
  .meta({ id: 'MobileVanityLinks' });

// ── The window payload (issue #5) ──────────────────────────────────────────────────────────────

/** A payout provider the window may offer; `canConfirm` says whether the participant can confirm it now. */
export const mobilePayoutProvider = z.object({ provider: z.string(), canConfirm: z.boolean() }).meta({ id: 'MobilePayoutProvider' });

/** The traffic report (mobile rule 11): the signed-in participant's link visits over the last 30 days. */
/** Date ranges of the traffic report (design trafficInsights.dateRangeLabels). */
export const TRAFFIC_RANGES = ['LAST_7_DAYS', 'LAST_30_DAYS', 'LAST_90_DAYS', 'ALL_TIME'] as const;

/** The traffic report's breakdowns, in design.trafficInsights.breakdowns order. */
export const TRAFFIC_BREAKDOWNS = ['utm', 'referrer', 'destination', 'geo', 'technology', 'trigger'] as const;
const trafficBreakdown = z.array(z.object({ value: z.string().nullable(), visits: z.number().int() }));

/** `GET /mobile/v2/participant/traffic` query. */
export const mobileTrafficQuery = z.object({ range: z.enum(TRAFFIC_RANGES).optional().meta({ description: 'Default: design.trafficInsights.defaultDateRange.' }) }).meta({ id: 'MobileTrafficQuery' });

export const mobileTrafficReport = z
  .object({
    range: z.enum(TRAFFIC_RANGES).meta({ description: 'The date range reported (the window uses design.trafficInsights.defaultDateRange).' }),
    interval: z.enum(['DAY', 'MONTH']).meta({ description: 'visitsOverTime buckets: UTC days for the 7/30/90-day ranges, UTC months for ALL_TIME.' }),
    days: z.number().int().meta({ description: 'UTC days covered, today included (ALL_TIME: since the participant joined).' }),
    visits: z.number().int(),
    uniqueVisitors: z.number().int(),
    visitsOverTime: z.array(z.object({ date: z.string().meta({ description: 'UTC day YYYY-MM-DD, or month YYYY-MM for ALL_TIME.' }), visits: z.number().int() })),
    sources: z.array(z.object({ source: z.string().nullable(), visits: z.number().int() })).meta({ description: 'utm_source, else the referring host; null when neither was known. Top 10 (the same list as breakdowns.trigger).' }),
    breakdowns: z
      .object(Object.fromEntries(TRAFFIC_BREAKDOWNS.map((k) => [k, trafficBreakdown])) as Record<(typeof TRAFFIC_BREAKDOWNS)[number], typeof trafficBreakdown>)
      .meta({
        description:
          'Top 10 values of each design.trafficInsights.breakdowns entry: utm = utm_campaign; referrer = the referring host; destination = the landing path; geo = the ISO country code from GEO_COUNTRY_HEADER; technology = mobile, tablet, desktop or app (a native app); trigger = utm_source, else the referring host. `value` is null where the visit did not tell (and for visits recorded before the breakdown existed).',
      }),
  })
  .meta({ id: 'MobileTrafficReport' });

/** `GET /mobile/v2/window` answer: everything the widget or an app's referral screen draws. */
export const mobileWindow = z
  .object({
    participant: mobileParticipant.nullable().meta({ description: 'The signed-in participant; null without a participant token.' }),
    type: z.enum(['REFERRAL', 'AFFILIATE']).meta({ description: 'The program type: which panels the window offers.' }),
    languages: z.array(z.string()).meta({ description: 'The program’s languages, base language first.' }),
    design: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The program’s design document with defaults filled (rest-v2 §2.18, as GET /v2/campaign/{id}/design): what the window draws and how.' }),
    share: z
      .object({
        preferredUrl: z.string().nullable().meta({ description: 'installation.shareUrl, when set.' }),
        fallbackUrl: z.string().meta({ description: 'The hosted share page.' }),
        channels: z.array(z.enum(SHARE_CHANNELS)).meta({ description: 'The design’s visible share channels: trackShare accepts these, copyRefLink and copy.' }),
      })
      .meta({ description: 'Mobile rule 12: link = participant.shareUrl, else preferredUrl, else fallbackUrl.' }),
    rewards: z.array(mobileCampaignReward),
    leaderboard: mobileLeaderboard.nullable().meta({ description: 'The first page of the design’s default board while design.leaderboard.isEnabled; else null.' }),
    payoutSettings: z.object({ payoutDestinations: z.object({ enabledProviders: z.array(mobilePayoutProvider) }) }),
    recaptchaSiteKey: z
      .string()
      .nullable()
      .meta({ description: 'options.fraud.recaptcha.siteKey while reCAPTCHA is on: pages then send a token (action `signup`) as recaptchaToken when adding a participant; else null.' }),
    traffic: mobileTrafficReport.nullable().meta({ description: 'Only for a signed-in participant, when design.trafficInsights.isPublicDisplayed is on and the plan is paid.' }),
    affiliate: affiliateSummary
      .nullable()
      .meta({ description: 'Affiliate programs, signed-in participant, payment method on file: the affiliate summary (as GET /participant/affiliate-summary); else null.' }),
  })
  .meta({ id: 'MobileWindow' });
