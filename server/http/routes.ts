import type { Operation } from './operation.ts';
import * as team from './resources/team.ts';
import * as teamAdmin from './resources/team-admin.ts';
import * as ownerSecurity from './resources/owner-security.ts';
import * as auditLog from './resources/audit-log.ts';
import * as campaigns from './resources/campaigns.ts';
import * as screenshots from './resources/screenshots.ts';
import * as programConfig from './resources/config.ts';
import * as rewardConfigs from './resources/reward-configs.ts';
import * as webhooks from './resources/webhooks.ts';
import * as programResources from './resources/program-resources.ts';
import * as participants from './resources/participants.ts';
import * as analytics from './resources/analytics.ts';
import * as rewards from './resources/rewards.ts';
import * as fraudReviews from './resources/fraud-reviews.ts';
import * as referralTriggers from './resources/referral-triggers.ts';
import * as referrals from './resources/referrals.ts';
import * as participantEmail from './resources/participant-email.ts';
import * as mobileTokens from './resources/mobile-tokens.ts';
import * as affiliateApplications from './resources/affiliate-applications.ts';
import * as affiliateInvites from './resources/affiliate-invites.ts';
import * as payoutDestinations from './resources/payout-destinations.ts';
import * as transactions from './resources/transactions.ts';
import * as commissions from './resources/commissions.ts';
import * as payouts from './resources/payouts.ts';
import * as data from './resources/data.ts';
import * as programPreviews from './resources/program-previews.ts';
import * as translations from './resources/translations.ts';
import * as billing from './resources/billing.ts';
import * as billingCodes from './resources/billing-codes.ts';
import * as billingPaddle from './resources/billing-paddle.ts';
import * as imports from './resources/imports.ts';

/**
 * Every REST operation, grouped by resource. Method, path, scope, schemas and handler live on each
 * entry; the router, the scope checks and /openapi/v2.json are all built from this one list.
 */
export const operations: Operation[] = [
  // Account and team (rest-v2 §3.1)
  team.createAccount,
  team.getTeam,
  team.updateTeam,
  team.requestTeamVerification,
  team.resendOwnerVerificationEmail,
  team.rotateApiKey,

  // Team administration for the owner console (refloop extensions; people only, never API keys, except TM1)
  teamAdmin.listTeamMembers,
  teamAdmin.listTeamInvitations,
  teamAdmin.createTeamInvitation,
  teamAdmin.cancelTeamInvitation,
  teamAdmin.resendTeamInvitation,
  teamAdmin.listTeamApiKeys,
  teamAdmin.createTeamApiKey,
  teamAdmin.revokeTeamApiKey,
  teamAdmin.endOwnerSessions,
  teamAdmin.listTeamOutbox,
  // Two-factor sign-in, re-authentication and sessions (issue #35; people only)
  ownerSecurity.getTwoFactor,
  ownerSecurity.beginTwoFactor,
  ownerSecurity.confirmTwoFactor,
  ownerSecurity.disableTwoFactor,
  ownerSecurity.regenerateRecoveryCodes,
  ownerSecurity.reauthenticateOwner,
  ownerSecurity.listOwnerSessions,
  ownerSecurity.endOwnerSession,
  ownerSecurity.endMemberSessions,
  ownerSecurity.removeTeamMember,
  ownerSecurity.updateTeamMember,
  ownerSecurity.updateTeamSecurity,
  auditLog.listAuditLog,
  auditLog.exportAuditLog,

  // Programs (rest-v2 §3.2)
  campaigns.listCampaigns,
  campaigns.getCampaign,
  campaigns.createCampaign,
  campaigns.updateCampaign,
  campaigns.cloneCampaign,
  screenshots.captureReferralFlowScreenshots,

  // Configuration documents (rest-v2 §3.5–3.6)
  programConfig.getDesign,
  programConfig.updateDesign,
  programConfig.getEmails,
  programConfig.updateEmails,
  programConfig.getOptions,
  programConfig.updateOptions,
  programConfig.getInstallation,
  programConfig.updateInstallation,
  programConfig.listIntegrations,
  // Billing integrations: refloop extensions (issue #25, docs/integrations.md)
  billing.getStripeConnection,
  billing.connectStripe,
  billing.updateStripeConnection,
  billing.disconnectStripe,
  billing.listStripeEvents,
  billingPaddle.getPaddleConnection,
  billingPaddle.connectPaddle,
  billingPaddle.updatePaddleConnection,
  billingPaddle.disconnectPaddle,
  billingPaddle.listPaddleEvents,
  // Coupon and promotion codes: refloop extensions (issue #25, docs/integrations.md "Codes")
  billingCodes.createBillingCode,
  billingCodes.listParticipantBillingCodes,
  billingCodes.listBillingCodes,
  billingCodes.deleteBillingCode,
  // Previews of unsaved copy: refloop extensions for the owner console
  programPreviews.getDesignPreview,
  programPreviews.previewEmailTemplate,
  programPreviews.sendEmailTemplateTest,
  // The owner's own texts per program language: refloop extensions (issue #27)
  translations.getTranslations,
  translations.updateTranslation,

  // Program resources (rest-v2 §3.3)
  programResources.listResources,
  programResources.createResource,
  programResources.updateResource,
  programResources.deleteResource,
  programResources.createUploadTicket,

  // Reward configurations (rest-v2 §3.4)
  rewardConfigs.listRewardConfigs,
  rewardConfigs.createRewardConfig,
  rewardConfigs.updateRewardConfig,
  rewardConfigs.deleteRewardConfig,

  // Webhooks (rest-v2 §3.7); W6, W7 and W8 are our delivery-log extension (docs/webhooks.md)
  webhooks.listWebhooks,
  webhooks.createWebhook,
  webhooks.updateWebhook,
  webhooks.deleteWebhook,
  webhooks.testWebhook,
  webhooks.listWebhookDeliveries,
  webhooks.getWebhookDelivery,
  webhooks.replayWebhookDelivery,

  // Participants (rest-v2 §3.8)
  participants.listParticipants,
  participants.listLeaderboard,
  participants.addParticipant,
  participants.getParticipant,
  participants.updateParticipant,
  participants.deleteParticipant,
  participants.bulkDeleteParticipants,
  referralTriggers.triggerReferral,
  referralTriggers.cancelReferralTrigger,
  participantEmail.emailParticipant,
  mobileTokens.createMobileParticipantToken,
  mobileTokens.createParticipantAuthSecret,
  payoutDestinations.getPayoutDestination,
  payoutDestinations.requestPayoutDestinationConfirmation,
  mobileTokens.rotateParticipantTokenSecret,

  // Participant rewards (rest-v2 §3.9)
  rewards.listParticipantRewards,
  rewards.approveParticipantReward,
  rewards.fulfillParticipantReward,
  rewards.deleteParticipantReward,
  rewards.listProgramRewards, // PR5, refloop extension: the owner's rewards queue
  rewards.countProgramRewards, // PR6, refloop extension: its count per state

  // Anti-fraud review (refloop extension; the verdict is P5 fraudRiskLevel)
  fraudReviews.listFraudReviews,
  fraudReviews.countFraudReviews, // FR2, refloop extension: its count per state

  // Referrals and invites (rest-v2 §3.10)
  referrals.listReferrals,
  referrals.listParticipantReferrals,
  referrals.sendInvites,

  // Analytics and activity (rest-v2 §3.8 P12–P13, §3.11)
  analytics.getParticipantAnalytics,
  analytics.listActivityLogs,
  analytics.getCampaignAnalytics,
  analytics.getActivationAnalytics,

  // Affiliate enrollment (rest-v2 §3.12 AF1–AF7)
  affiliateApplications.listAffiliateApplications,
  affiliateApplications.countAffiliateApplications, // AF18, refloop extension: its count per status (before AF2, whose :applicationId would take 'counts')
  affiliateApplications.getAffiliateApplication,
  affiliateApplications.reviewAffiliateApplication,
  affiliateInvites.listAffiliateInvites,
  affiliateInvites.createAffiliateInvite,
  affiliateInvites.revokeAffiliateInvite,
  affiliateInvites.resendAffiliateInvite,

  // Affiliate money (rest-v2 §3.12 AF8–AF15; AF16/AF17 are our count extensions); PO1–PO3 are our manual payout provider (docs/decisions.md)
  transactions.recordTransaction,
  transactions.refundTransaction,
  commissions.listCommissions,
  commissions.countCommissions, // AF16, refloop extension: its count per status
  commissions.listParticipantCommissions,
  commissions.approveCommission,
  commissions.deleteCommission,
  payouts.listPayouts,
  payouts.countPayouts, // AF17, refloop extension: its count per status
  payouts.listParticipantPayouts,
  payouts.runPayouts,
  payouts.setPayoutStatus,
  payouts.exportPayouts,

  // Data: CSV exports (streamed) and the participants import (refloop extensions, issue #23)
  data.exportParticipants,
  data.exportReferrals,
  data.exportRewards,
  data.exportCommissions,
  data.importParticipantsCsv,

  // Moving a program in from a GrowSurf v2 API source, the console's way (refloop extensions, issue #33)
  imports.listImportSourcePrograms,
  imports.startImport,
  imports.getImport,
  imports.exportImportRefusals,
];
