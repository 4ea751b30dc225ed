// The emails document (rest-v2 §2.19): `campaignEmails`, one template per email plus the sender,
// contact and design settings.
import { z } from 'zod';
import { text, label, nText, nUrl, color, bool } from './program-config-fields.ts';

// ── Emails (§2.19) ──────────────────────────────────────────────────────────────────────────────

const templateFields = {
  subject: label(255).describe('Supports {{…}} merge tags.'),
  preheader: text(255),
  body: label(50_000).describe('HTML; supports {{…}} merge tags such as {{firstName}}, {{shareUrl}} and {{portalUrl}} (the hosted participant portal while the program has hosted pages, else its site).'),
  isEnabled: bool.describe('Controls automatic sending only.'),
};
const emailTemplate = z.strictObject(templateFields);
const inviteTemplate = z.strictObject({ ...templateFields, useCompanyReplyTo: bool.describe('Replies go to the company (true) or to the inviting participant (false).') });
const transactionalTemplate = z.strictObject({ ...templateFields, isEnabled: bool.describe('Always true: transactional emails cannot be switched off.') });

/** `CampaignEmails`: one property per template plus `settings`; type-only templates are optional here. */
export const campaignEmails = z
  .strictObject({
    welcomeNonReferred: emailTemplate,
    welcomeReferred: emailTemplate.optional().describe('Referral programs only.'),
    referralLinkViewedFirstTime: emailTemplate,
    referralLinkUsed: emailTemplate.optional().describe('Referral programs only.'),
    referredSignup: emailTemplate,
    goalAchieved: emailTemplate.optional().describe('Referral programs only.'),
    campaignEndedWinners: emailTemplate.optional().describe('Referral programs only.'),
    campaignEndedNonWinners: emailTemplate.optional().describe('Referral programs only.'),
    progressUpdateMonthly: emailTemplate,
    commissionGenerated: emailTemplate.optional().describe('Affiliate programs only.'),
    commissionAdjusted: emailTemplate.optional().describe('Affiliate programs only.'),
    payoutPending: emailTemplate.optional().describe('Affiliate programs only.'),
    payoutSentSuccess: emailTemplate.optional().describe('Affiliate programs only.'),
    invite: inviteTemplate,
    loginLink: transactionalTemplate,
    paypalEmailConfirmation: transactionalTemplate,
    taxInfoMissing: transactionalTemplate,
    taxInfoReceived: transactionalTemplate,
    taxInfoApproved: transactionalTemplate,
    taxInfoRejected: transactionalTemplate,
    settings: z.strictObject({
      sender: z.strictObject({
        fromName: nText(100).describe('`null` = the company name, else the program name.'),
        fromEmail: z.string().max(254).describe('Read-only: the address this installation sends from.'),
        replyToEmail: z.email().max(254).nullable(),
      }),
      contact: z
        .strictObject({
          companyName: nText(255),
          addressLine1: nText(255),
          addressLine2: nText(255),
          city: nText(255),
          state: nText(255),
          postalCode: nText(32),
          country: nText(255),
        })
        .describe('Postal address printed in the footer (anti-spam laws).'),
      design: z.strictObject({ logoUrl: nUrl(500), primaryColor: color, backgroundColor: color, textColor: color, footerText: nText(1000) }),
    }),
  })
  .meta({ id: 'CampaignEmails' });

export type CampaignEmails = z.infer<typeof campaignEmails>;
/** One email template. */
export type EmailTemplate = z.infer<typeof emailTemplate>;
