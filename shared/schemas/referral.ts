import { z } from 'zod';
import { referralStatus } from './participant.ts';

// Referrals and invites (rest-v2 §2.14, §2.27 ReferralList, §3.10 RF1–RF3) and emailing one
// participant (§3.8 P11, §2.28 EmailParticipantResponse).

/** Fields RF1/RF2 can sort by (§4 "Referral sort field"). */
export const referralSortField = z.enum(['updatedAt', 'createdAt', 'email', 'firstName', 'lastName', 'referralStatus', 'referralTriggeredAt']);

/** `Referral` (§2.14): a referred participant (CREDIT_*) or an invitation not yet joined (INVITE_SENT). */
export const referral = z
  .object({
    id: z.string().meta({ description: 'The referred participant’s id; for INVITE_SENT rows the invitation id (`inv_…`).' }),
    email: z.string(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    referralStatus,
    referredBy: z.string().meta({ description: 'The referrer’s (or inviting participant’s) id.' }),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'Referral' });

/** `ReferralList` (§2.27): `nextId` and `nextOffset` are null on the last page. */
export const referralList = z
  .object({
    referrals: z.array(referral),
    limit: z.number().int(),
    more: z.boolean(),
    nextId: z.string().nullable().optional().meta({ description: 'Id of the first row of the next page; send it back as `nextId`.' }),
    nextOffset: z.number().int().nullable().optional().meta({ description: 'Offset of the next page; absent when this page was read by `nextId`.' }),
  })
  .meta({ id: 'ReferralList' });

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
const filter = (max: number) => z.string().trim().min(1).max(max).optional();

/** Referral list page size (ours: the references give only the maximum). */
export const REFERRAL_PAGE = { default: 20, max: 100 } as const;

/** RF1/RF2 query. Without `sortBy` the order is createdAt, newest first; with it, `desc` defaults to false. */
export const referralListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(REFERRAL_PAGE.max).default(REFERRAL_PAGE.default),
    nextId: z.string().min(1).max(64).optional().meta({ description: 'Id of the first row of the page to read (a previous response’s nextId). Wins over offset.' }),
    offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
    sortBy: referralSortField.optional(),
    desc: queryBool.optional(),
    email: filter(254).meta({ description: 'Exact address, compared case-insensitively.' }),
    firstName: filter(255).meta({ description: 'Exact first name, compared case-insensitively.' }),
    lastName: filter(255).meta({ description: 'Exact last name, compared case-insensitively.' }),
    referralStatus: referralStatus.optional(),
  })
  .transform((q) => ({
    limit: q.limit,
    nextId: q.nextId,
    offset: q.offset,
    sortBy: q.sortBy ?? ('createdAt' as const),
    desc: q.desc ?? q.sortBy === undefined,
    filters: { email: q.email, firstName: q.firstName, lastName: q.lastName, referralStatus: q.referralStatus },
  }));

const address = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Must be an email address.' }));

/** RF3 `POST …/participant/{participantIdOrEmail}/invites` body. */
export const sendInvitesBody = z
  .strictObject({
    emailAddresses: z.array(address).min(1).max(50),
    messageText: z.string().max(2000).meta({ description: 'The sender’s note, shown in the invite template as {{messageText}} (plain text; may be empty).' }),
    subjectText: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .optional()
      .meta({ description: 'Subject line as written (no merge tags); omitted → the invite template’s subject.' }),
  })
  .meta({ id: 'SendInvites' });

/** How invitations travel (`messageType`): only email today. */
export const inviteMessageType = z.enum(['EMAIL']);

/** `SendInvitesResponse` (§2.28). */
export const sendInvitesResponse = z
  .object({
    success: z.boolean(),
    invitesSent: z.number().int().meta({ description: 'Invitation emails queued; addresses of existing participants, repeats within a day, blocked addresses and the sender’s own are skipped.' }),
    messageType: inviteMessageType,
  })
  .meta({ id: 'SendInvitesResponse' });

/** Templates P11 may send on referral programs (§3.8). */
export const REFERRAL_EMAIL_TYPES = [
  'welcomeNonReferred',
  'referralLinkViewedFirstTime',
  'referralLinkUsed',
  'referredSignup',
  'welcomeReferred',
  'goalAchieved',
  'campaignEndedWinners',
  'campaignEndedNonWinners',
  'progressUpdateMonthly',
] as const;
/** Templates P11 may send on affiliate programs (§3.8). */
export const AFFILIATE_EMAIL_TYPES = [
  'welcomeNonReferred',
  'referralLinkViewedFirstTime',
  'referredSignup',
  'commissionGenerated',
  'commissionAdjusted',
  'payoutPending',
  'payoutSentSuccess',
  'progressUpdateMonthly',
] as const;
/** Every template key P11 accepts for some program type; transactional templates and `invite` are never sendable. */
export const participantEmailType = z.enum([...new Set([...REFERRAL_EMAIL_TYPES, ...AFFILIATE_EMAIL_TYPES])] as [string, ...string[]]);

/** P11 `POST …/participant/{participantIdOrEmail}/email` body: a template (`emailType`) or free-form (`subject` + `body`), never both. */
export const emailParticipantBody = z
  .strictObject({
    emailType: participantEmailType.optional().meta({ description: 'Template mode: a template key of the program’s type; its isEnabled does not matter.' }),
    subject: z.string().trim().min(1).max(255).optional().meta({ description: 'Free-form mode; {{…}} merge tags allowed.' }),
    body: z.string().min(1).max(50_000).optional().meta({ description: 'Free-form mode: HTML; {{…}} merge tags allowed (values are HTML-escaped).' }),
    preheader: z.string().max(255).optional().meta({ description: 'Free-form mode only.' }),
  })
  .superRefine((b, ctx) => {
    const template = b.emailType !== undefined;
    const free = b.subject !== undefined || b.body !== undefined || b.preheader !== undefined;
    if (template && free) {
      for (const f of ['subject', 'body', 'preheader'] as const) {
        if (b[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'Send either emailType or subject and body, not both.' });
      }
      return;
    }
    if (!template && !free) {
      ctx.addIssue({ code: 'custom', path: ['emailType'], message: 'Send emailType (a template) or subject and body (free-form).' });
      return;
    }
    if (free) {
      if (b.subject === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: ['subject'], message: 'Required with body.' });
      if (b.body === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: ['body'], message: 'Required with subject.' });
    }
  })
  .meta({ id: 'EmailParticipant' });

/** `EmailParticipantResponse` (§2.28). */
export const emailParticipantResponse = z.object({ success: z.boolean(), status: z.enum(['queued']) }).meta({ id: 'EmailParticipantResponse' });

export type Referral = z.infer<typeof referral>;
export type ReferralList = z.infer<typeof referralList>;
export type ReferralListQuery = z.output<typeof referralListQuery>;
export type ReferralSortField = z.infer<typeof referralSortField>;
export type SendInvites = z.infer<typeof sendInvitesBody>;
export type SendInvitesResponse = z.infer<typeof sendInvitesResponse>;
export type EmailParticipant = z.infer<typeof emailParticipantBody>;
