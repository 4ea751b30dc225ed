// The participant API's program and the signed-in participant's data in it (issue #5): campaign,
// leaderboard, referrals, invites, rewards, referral summary, resources and vanity links.
import { z } from 'zod';
import { VANITY_KEY_PATTERN } from './participant.ts';
import { campaignReward } from './reward-config.ts';
import { REFERRAL_PAGE, sendInvitesBody } from './referral.ts';
import { participantRewardListQuery } from './reward.ts';
import { programResourceFile, programResourceType, type ProgramResource } from './resource.ts';

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
    isStarter: true,
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
