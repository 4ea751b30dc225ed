import { z } from 'zod';
import { campaignReward, rewardConfigCreate } from './reward-config.ts';

/** Program (campaign) types. */
export const programType = z.enum(['REFERRAL', 'AFFILIATE']);
/** Program statuses as read; PENDING and CANCELLED exist in newer clients' read enum but we never produce them. */
export const programStatus = z.enum(['DRAFT', 'IN_PROGRESS', 'COMPLETE', 'DELETED']);
/** Program goals accepted at creation (create-only). */
export const programGoal = z.enum([
  'CUSTOMERS',
  'USERS',
  'SUBSCRIBERS',
  'WAITLIST',
  'B2B_SAAS_SELF_SERVICE',
  'B2B_SAAS_ENTERPRISE',
  'B2C_SUBSCRIPTIONS',
  'FINANCIAL_SERVICES',
  'ONLINE_EDUCATION',
  'INSURANCE',
  'ONLINE_INSURANCE',
  'TELEHEALTH',
  'HEALTHCARE_PROVIDERS',
]);

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
/** An ISO 4217 currency code, upper-cased. */
export const currencyCode = z
  .string()
  .length(3)
  .transform((s) => s.toUpperCase())
  .refine((s) => CURRENCIES.has(s), { message: 'Must be an ISO 4217 currency code such as USD.' });

/** `Campaign` as the API returns it; `rewards` holds the reward configurations. */
export const campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    type: programType,
    status: programStatus,
    referralCount: z.number().int(),
    participantCount: z.number().int(),
    impressionCount: z.number().int(),
    inviteCount: z.number().int(),
    winnerCount: z.number().int(),
    currencyISO: z.string().nullable(),
    rewards: z.array(campaignReward),
    companyName: z.string().nullable().meta({ description: 'refloop extension: the company name set on create (C3) or update (C4), which the hosted pages and emails show; null when unset. GrowSurf accepts it but does not return it.' }),
    companyLogoImageUrl: z.string().nullable().meta({ description: 'refloop extension: the company logo URL set on create (C3) or update (C4); null when unset.' }),
  })
  .meta({ id: 'Campaign' });

/** `GET /campaigns` response. */
export const campaignList = z.object({ campaigns: z.array(campaign) }).meta({ id: 'CampaignListResponse' });

/** `POST /campaigns` body (editor-tab documents are not accepted here). */
export const campaignCreate = z
  .strictObject({
    type: programType,
    name: z.string().trim().min(1).max(255).optional(),
    companyName: z.string().trim().min(1).max(255).optional(),
    companyLogoImageUrl: z.url({ protocol: /^https?$/ }).max(2048).optional(),
    currencyISO: currencyCode.optional(),
    goal: programGoal.optional(),
    // Created with the program in its transaction; absent → starter rewards by goal (rest-v2 §3.2).
    rewards: z.array(rewardConfigCreate).max(20).optional(),
  })
  .meta({ id: 'CampaignCreate' });

/** A field that may not be sent on update: present → 400 with a message saying why. */
function immutable(field: string, message: string) {
  return z
    .unknown()
    .optional()
    .refine((v) => v === undefined, { message })
    .meta({ description: `Immutable: ${field} is rejected on update.` })
    .transform(() => undefined);
}

/** `PATCH /campaign/{id}` body: only these; `status` may be IN_PROGRESS (launch/resume) or COMPLETE (end). */
export const campaignUpdate = z
  .strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    companyName: z.string().trim().min(1).max(255).optional(),
    companyLogoImageUrl: z.url({ protocol: /^https?$/ }).max(2048).optional(),
    status: z.enum(['IN_PROGRESS', 'COMPLETE']).optional(),
    currencyISO: immutable('currencyISO', 'The program currency is chosen at creation and cannot change.'),
    type: immutable('type', 'The program type cannot change.'),
    goal: immutable('goal', 'The goal is only accepted when the program is created.'),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Send at least one field to change.' })
  .meta({ id: 'CampaignUpdate' });

export type Campaign = z.infer<typeof campaign>;
export type CampaignCreate = z.infer<typeof campaignCreate>;
export type CampaignUpdate = z.infer<typeof campaignUpdate>;
