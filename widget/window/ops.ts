// The participant API's operations only lazy code calls (issue #32 moved them out of api.ts, which
// ships with the window's first load): the secondary, affiliate, tax, resource and application
// panels, and the page's `growsurf` methods for them, which fetch
// this chunk when called (sdk.tsx). Each goes through the booted client (`ctx.api.call`): the same
// session, participant token and error handling. The sign-up operations are sign-ups.ts's.
import type { z } from 'zod';
import type * as MC from '../../shared/schemas/mobile-campaign.ts';
import type { sendInvitesResponse } from '../../shared/schemas/referral.ts';
import type { triggerReferralResponse } from '../../shared/schemas/reward.ts';
import type { InvitesInput, Leaderboard, ReferralList, ReferralSummary } from './api.ts';
import type * as A from './affiliate-types.ts';
import { countUnread, ctx, fire, me, refresh } from './state.ts';

/**
 * Paths of the affiliate-side operations (issue #6) and the participant resource list (MRS2). One
 * table, so a path change is one edit (the affiliate summary's, which the first load's unread count
 * asks for, is in api.ts); the panels show "not available" while an operation answers 404.
 */
export const PENDING_PATHS = {
  commissions: 'participant/commissions',
  commissionsRead: 'participant/commissions/read',
  payouts: 'participant/payouts',
  payoutsRead: 'participant/payouts/read',
  payoutDestination: 'participant/payout-destination',
  payoutConfirmation: 'participant/payout-destination/request-confirmation',
  taxSession: 'participant/tax-info/session',
  taxStatus: 'participant/tax-info',
  applicationForm: 'affiliate-application-form',
  applications: 'affiliate-applications',
  resources: 'resources',
} as const;

/** MT1. */
export const triggerReferral = () => ctx.api.call<z.infer<typeof triggerReferralResponse>>('post', 'participant/referral-trigger', {});
/** MRF1. */
export const referrals = (q: { limit?: number; offset?: number } = {}) => ctx.api.call<ReferralList>('get', 'participant/referrals', undefined, q);
/** MI1. */
export const sendInvites = (body: InvitesInput) => ctx.api.call<z.infer<typeof sendInvitesResponse>>('post', 'participant/invites', body);
/** MSM1. */
export const referralSummary = () => ctx.api.call<ReferralSummary>('get', 'participant/referral-summary');
/** ML1. */
export const leaderboard = (q: { leaderboardType?: string; limit?: number; offsetKey?: string } = {}) => ctx.api.call<Leaderboard>('get', 'leaderboard', undefined, q);
/** MVL2. */
export const setVanityKeys = (vanityKeys: string[]) => ctx.api.call<z.infer<typeof MC.mobileVanityLinks>>('post', 'participant/vanity-links', { vanityKeys });
/** MRS1: a fresh short-lived link on every call. */
export const downloadUrl = (resourceId: string) => ctx.api.call<z.infer<typeof MC.mobileDownloadUrl>>('post', `resources/${encodeURIComponent(resourceId)}/download-url`, {});
/** Commissions page. */
export const commissions = (q: { limit?: number; nextId?: string } = {}) => ctx.api.call<A.CommissionList>('get', PENDING_PATHS.commissions, undefined, q);
/** Marks every commission read. */
export const markCommissionsRead = () => ctx.api.call<{ success: boolean }>('post', PENDING_PATHS.commissionsRead, {});
/** Payouts page. */
export const payouts = (q: { limit?: number; nextId?: string } = {}) => ctx.api.call<A.PayoutList>('get', PENDING_PATHS.payouts, undefined, q);
/** Marks every payout read. */
export const markPayoutsRead = () => ctx.api.call<{ success: boolean }>('post', PENDING_PATHS.payoutsRead, {});
/** Payout destinations (P14 shape). */
export const payoutDestination = () => ctx.api.call<A.PayoutDestination>('get', PENDING_PATHS.payoutDestination);
/** Sends a confirmation link for one provider (P15 shape). */
export const requestPayoutConfirmation = (provider: string) => ctx.api.call<A.PayoutConfirmation>('post', PENDING_PATHS.payoutConfirmation, { provider });
/** Starts a hosted tax form session. */
export const taxSession = () => ctx.api.call<A.TaxSession>('post', PENDING_PATHS.taxSession, {});
/** The stored tax status. */
export const taxStatus = () => ctx.api.call<A.TaxSession['taxStatus']>('get', PENDING_PATHS.taxStatus);
/** The public affiliate application form. */
export const applicationForm = () => ctx.api.call<A.ApplicationForm>('get', PENDING_PATHS.applicationForm);
/** Submits an affiliate application. */
export const apply = (body: A.ApplicationInput) => ctx.api.call<A.ApplicationResult>('post', PENDING_PATHS.applications, body);
/** MRS2: the published resources a participant may see (FILE without a link: MRS1 signs one per open). */
export const resources = () => ctx.api.call<z.infer<typeof MC.mobileResourceList>>('get', PENDING_PATHS.resources);

/** `triggerReferral({email})`: only for the signed-in participant's own referral (MT1); the server decides whether it is allowed. */
export async function triggerReferralFor(who?: { email?: string }) {
  const p = me();
  if (!p || (who?.email && who.email.trim().toLowerCase() !== p.email.toLowerCase())) {
    throw new Error('triggerReferral works for the signed-in participant only; trigger other referrals from your server (REST).');
  }
  const res = await triggerReferral();
  if (res.success) fire('referral', { participant: p, triggered: true });
  return res;
}

/** Sends invitations (MI1), then tells subscribers. */
export async function invite(body: InvitesInput) {
  const res = await sendInvites(body);
  fire('invite', { invitesSent: res.invitesSent, emailAddresses: body.emailAddresses });
  return res;
}

/** Marks every reward read and recounts the badge. */
export async function markRewardsRead() {
  const res = await ctx.api.markRewardsRead();
  await countUnread();
  return res;
}

/** `clearPendingAttribution()`: forgets the pending referral, then reloads. */
export async function clearPendingAttribution() {
  await ctx.rt.clearPendingAttribution();
  await refresh();
}

/** `pendingAttribution()`: the pending referral, or null. */
export const pendingAttribution = () => ctx.rt.pendingAttribution().then((p) => p ?? null);

/** refloop (issue #25): the referrer's code for the merchant's backend to put into a Checkout Session's client_reference_id (docs/integrations.md). */
export const getReferralCode = () => ctx.rt.pendingAttribution().then((p) => p?.referralCode ?? null);
