// The shape of one language's default email copy (issue #27). Bodies are paragraphs: each is an
// HTML fragment with `{{…}}` merge tags, wrapped in `<p>` by ./index.ts, which also adds the parts
// that are the same in every language (the share link, the list of invited friends).
import type { Message } from '../../../../shared/i18n/index.ts';

/** One template's copy: subject, preheader and the body's paragraphs. */
export interface TemplateCopy {
  subject: string;
  preheader: string;
  body: readonly string[];
}

/** The copy keys: the §2.19 templates (those that differ by program type twice) and the built-in emails. */
export type TemplateCopyKey =
  | 'welcomeNonReferred'
  | 'welcomeNonReferredAffiliate'
  | 'welcomeReferred'
  | 'referralLinkViewedFirstTime'
  | 'referralLinkUsed'
  | 'referredSignup'
  | 'referredSignupAffiliate'
  | 'goalAchieved'
  | 'campaignEndedWinners'
  | 'campaignEndedNonWinners'
  | 'progressUpdateMonthly'
  | 'progressUpdateMonthlyAffiliate'
  | 'commissionGenerated'
  | 'commissionAdjusted'
  | 'payoutPending'
  | 'payoutSentSuccess'
  | 'invite'
  | 'loginLink'
  | 'paypalEmailConfirmation'
  | 'taxInfoMissing'
  | 'taxInfoReceived'
  | 'taxInfoApproved'
  | 'taxInfoRejected';

/**
 * The built-in emails that are no §2.19 template (the owner cannot edit them): the invitation
 * follow-up reminder (plural by `{count}` invitations), the Venmo/Wise payout confirmation
 * (`{{payoutProvider}}`) and the affiliate invite.
 */
export interface BuiltInCopy {
  followUpSubject: Message;
  followUpPreheader: string;
  followUpGreeting: string;
  followUpIntro: Message;
  followUpAsk: string;
  payoutConfirmSubject: string;
  payoutConfirmPreheader: string;
  payoutConfirmGreeting: string;
  payoutConfirmBody: string;
  payoutConfirmButton: string;
  affiliateInviteSubject: string;
  affiliateInvitePreheader: string;
  affiliateInviteGreeting: string;
  affiliateInviteBody: string;
  affiliateInviteButton: string;
  affiliateInviteExpires: string;
}

/** One language's default email copy, complete. */
export interface EmailCopy {
  templates: Readonly<Record<TemplateCopyKey, TemplateCopy>>;
  builtIn: Readonly<BuiltInCopy>;
}
