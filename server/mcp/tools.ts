import * as team from '../http/resources/team.ts';
import * as campaigns from '../http/resources/campaigns.ts';
import * as screenshots from '../http/resources/screenshots.ts';
import * as config from '../http/resources/config.ts';
import * as rewardConfigs from '../http/resources/reward-configs.ts';
import * as webhooks from '../http/resources/webhooks.ts';
import * as participants from '../http/resources/participants.ts';
import * as referralTriggers from '../http/resources/referral-triggers.ts';
import * as participantEmail from '../http/resources/participant-email.ts';
import * as mobileTokens from '../http/resources/mobile-tokens.ts';
import * as analytics from '../http/resources/analytics.ts';
import * as transactions from '../http/resources/transactions.ts';
import { restTool, type ToolDef } from './tool-kit.ts';
import { localTools } from './local-tools.ts';

const TERMS =
  'Calling this accepts the service terms and privacy policy on the account holder’s behalf: show the owner the terms and get their explicit approval BEFORE calling. ' +
  'Returns a one-time API key that stays locked (403 EMAIL_NOT_VERIFIED_ERROR) until the owner opens the verification link emailed to them; it is replaced at the owner’s first sign-in, and unverified accounts are deleted after 7 days.';

/** mcp.md #23 `growsurf_create_account`: `POST /accounts` with its rules and its own strict per-address limit. */
export const createAccountTool: ToolDef = restTool({
  name: 'growsurf_create_account',
  title: 'Create an account',
  description: `Create a refloop account for a business email (personal and disposable addresses are refused). ${TERMS}`,
  op: team.createAccount,
  profile: 'CONTENT_EXTERNAL',
});

/** The tools of mcp.md §2 that map to REST operations, in the reference's order. */
function restTools(): ToolDef[] {
  return [
    restTool({ name: 'growsurf_get_campaign', title: 'Get a program', description: 'Read one program (campaign): counts, status, currency and embedded rewards.', op: campaigns.getCampaign, profile: 'READ' }),
    restTool({ name: 'growsurf_list_campaigns', title: 'List programs', description: 'List the bound team’s programs (deleted ones excluded).', op: campaigns.listCampaigns, profile: 'READ' }),
    restTool({
      name: 'growsurf_create_campaign',
      title: 'Create a program',
      description: 'Create a referral or affiliate program with starter content and optional inline rewards. It starts DRAFT; publishing is a separate update.',
      op: campaigns.createCampaign,
      profile: 'CONTENT_ADD',
      text: (r) => `${JSON.stringify(r, null, 2)}\n\nNew program id: ${String(r.id)} (pass it as campaignId to the program tools).`,
    }),
    restTool({ name: 'growsurf_update_campaign', title: 'Update a program', description: 'Change name, company branding or lifecycle status (IN_PROGRESS to publish or resume, COMPLETE to end).', op: campaigns.updateCampaign, profile: 'CONTENT_SET' }),
    restTool({ name: 'growsurf_clone_campaign', title: 'Clone a program', description: 'Copy a program into a new DRAFT program (active rewards copied; integrations and credentials not).', op: campaigns.cloneCampaign, profile: 'CONTENT_ADD' }),
    restTool({ name: 'growsurf_list_campaign_rewards', title: 'List reward configurations', description: 'List the program’s reward configurations.', op: rewardConfigs.listRewardConfigs, profile: 'READ' }),
    restTool({ name: 'growsurf_create_campaign_reward', title: 'Create a reward configuration', description: 'Add a reward configuration (affiliate programs take only AFFILIATE rewards).', op: rewardConfigs.createRewardConfig, profile: 'MONEY_CREATE' }),
    restTool({ name: 'growsurf_update_campaign_reward', title: 'Update a reward configuration', description: 'Change a reward configuration; its type is immutable.', op: rewardConfigs.updateRewardConfig, profile: 'MONEY_SET', pathArgs: ['campaignRewardId'] }),
    restTool({ name: 'growsurf_delete_campaign_reward', title: 'Delete a reward configuration', description: 'Deactivate or remove a reward configuration; returns { id, success }.', op: rewardConfigs.deleteRewardConfig, profile: 'MONEY_SET', pathArgs: ['campaignRewardId'] }),
    restTool({ name: 'growsurf_get_campaign_design', title: 'Get the Design tab', description: config.getDesign.summary, op: config.getDesign, profile: 'READ' }),
    restTool({ name: 'growsurf_update_campaign_design', title: 'Update the Design tab', description: config.updateDesign.summary, op: config.updateDesign, profile: 'CONTENT_SET', body: 'fields' }),
    restTool({ name: 'growsurf_get_campaign_emails', title: 'Get the Emails tab', description: config.getEmails.summary, op: config.getEmails, profile: 'READ' }),
    restTool({ name: 'growsurf_update_campaign_emails', title: 'Update the Emails tab', description: config.updateEmails.summary, op: config.updateEmails, profile: 'CONTENT_SET', body: 'fields' }),
    restTool({ name: 'growsurf_get_campaign_options', title: 'Get the Options tab', description: config.getOptions.summary, op: config.getOptions, profile: 'READ' }),
    restTool({ name: 'growsurf_update_campaign_options', title: 'Update the Options tab', description: config.updateOptions.summary, op: config.updateOptions, profile: 'CONTENT_SET', body: 'fields' }),
    restTool({ name: 'growsurf_get_campaign_installation', title: 'Get the Installation tab', description: config.getInstallation.summary, op: config.getInstallation, profile: 'READ' }),
    restTool({ name: 'growsurf_update_campaign_installation', title: 'Update the Installation tab', description: config.updateInstallation.summary, op: config.updateInstallation, profile: 'CONTENT_SET', body: 'fields' }),
    restTool({
      name: 'growsurf_capture_referral_flow_screenshots',
      title: 'Capture referral-flow screenshots',
      description: 'Temporary signed screenshots (15 minutes) of the referrer window and the referred-friend view, rendered from the saved program configuration. Accepts no URL or HTML.',
      op: screenshots.captureReferralFlowScreenshots,
      profile: 'CONTENT_ADD',
    }),
    createAccountTool,
    restTool({ name: 'growsurf_get_team', title: 'Get the team', description: 'Read the bound team: name and verification state.', op: team.getTeam, profile: 'READ' }),
    restTool({ name: 'growsurf_update_team', title: 'Rename the team', description: 'Rename the bound team (name, 1–255 characters).', op: team.updateTeam, profile: 'CONTENT_SET' }),
    restTool({ name: 'growsurf_request_team_verification', title: 'Request team verification', description: 'Ask for team verification; repeating while pending creates no duplicate. Returns the team.', op: team.requestTeamVerification, profile: 'CONTENT_IDEMPOTENT' }),
    restTool({
      name: 'growsurf_resend_team_owner_verification_email',
      title: 'Resend the owner verification email',
      description: 'Resend the owner verification email: { success, status: "SENT" }; 400 when already verified, 429 when sent too recently.',
      op: team.resendOwnerVerificationEmail,
      profile: 'CONTENT_EXTERNAL',
    }),
    restTool({ name: 'growsurf_get_campaign_analytics', title: 'Program analytics', description: 'Program analytics with optional series (interval) and enrichments (include).', op: analytics.getCampaignAnalytics, profile: 'READ' }),
    restTool({ name: 'growsurf_list_campaign_webhooks', title: 'List webhooks', description: 'List the program’s webhooks (secrets are never returned).', op: webhooks.listWebhooks, profile: 'READ' }),
    restTool({ name: 'growsurf_create_campaign_webhook', title: 'Create a webhook', description: 'Add a webhook: payloadUrl, events, optional secret (write-only) and isEnabled.', op: webhooks.createWebhook, profile: 'CONTENT_ADD' }),
    restTool({ name: 'growsurf_update_campaign_webhook', title: 'Update a webhook', description: 'Patch a webhook.', op: webhooks.updateWebhook, profile: 'CONTENT_SET', pathArgs: ['webhookId'] }),
    restTool({ name: 'growsurf_delete_campaign_webhook', title: 'Delete a webhook', description: 'Remove a webhook; returns { id, success }.', op: webhooks.deleteWebhook, profile: 'DESTRUCTIVE', pathArgs: ['webhookId'] }),
    restTool({ name: 'growsurf_test_campaign_webhook', title: 'Test a webhook', description: 'Send a live signed test delivery to the webhook’s URL (optional event).', op: webhooks.testWebhook, profile: 'CONTENT_EXTERNAL', pathArgs: ['webhookId'] }),
    restTool({ name: 'growsurf_list_participants', title: 'List participants', description: 'Page through participants, newest first (limit 1–100, default 10; nextId cursor).', op: participants.listParticipants, profile: 'READ' }),
    restTool({ name: 'growsurf_get_participant', title: 'Get a participant', description: 'One participant by id or email.', op: participants.getParticipant, profile: 'READ' }),
    restTool({ name: 'growsurf_add_participant', title: 'Add a participant', description: 'Add a participant, or fetch the existing one with that email.', op: participants.addParticipant, profile: 'CONTENT_ADD' }),
    restTool({ name: 'growsurf_update_participant', title: 'Update a participant', description: 'Patch a participant (at least one field; read-only fields answer 400).', op: participants.updateParticipant, profile: 'CONTENT_SET' }),
    restTool({ name: 'growsurf_bulk_delete_participants', title: 'Delete participants', description: 'Permanently delete 1–200 participants by id and/or email; a success may contain failed rows.', op: participants.bulkDeleteParticipants, profile: 'DESTRUCTIVE' }),
    restTool({
      name: 'growsurf_email_participant',
      title: 'Email a participant',
      description: 'Send a template email (emailType) or a free-form one (subject + body). Needs a verified team; answers { success, status: "queued" }.',
      op: participantEmail.emailParticipant,
      profile: 'CONTENT_EXTERNAL',
    }),
    restTool({ name: 'growsurf_get_participant_analytics', title: 'Participant analytics', description: 'One participant’s analytics, with an optional series.', op: analytics.getParticipantAnalytics, profile: 'READ' }),
    restTool({ name: 'growsurf_get_participant_activity_logs', title: 'Participant activity', description: 'A participant’s activity log, newest first (limit 1–100, default 20; offset).', op: analytics.listActivityLogs, profile: 'READ' }),
    restTool({ name: 'growsurf_trigger_referral', title: 'Trigger referral credit', description: referralTriggers.triggerReferral.summary, op: referralTriggers.triggerReferral, profile: 'MONEY_EXTERNAL' }),
    restTool({ name: 'growsurf_cancel_delayed_referral', title: 'Cancel a delayed referral', description: referralTriggers.cancelReferralTrigger.summary, op: referralTriggers.cancelReferralTrigger, profile: 'DESTRUCTIVE' }),
    restTool({ name: 'growsurf_record_sale', title: 'Record a sale', description: transactions.recordTransaction.summary, op: transactions.recordTransaction, profile: 'MONEY_IDEMPOTENT' }),
    restTool({ name: 'growsurf_refund_transaction', title: 'Refund a sale', description: transactions.refundTransaction.summary, op: transactions.refundTransaction, profile: 'MONEY_SET' }),
    restTool({
      name: 'growsurf_create_mobile_participant_token',
      title: 'Create a mobile participant token',
      description: 'Create or fetch a participant and mint a mobile participant token for the native SDKs.',
      op: mobileTokens.createMobileParticipantToken,
      profile: 'CONTENT_ADD',
    }),
  ];
}

let cached: ToolDef[] | null = null;

/** Every tool of the main endpoint: the local ones of mcp.md (1–4, 47–52) and the REST-backed ones. Built once per process. */
export function allTools(): ToolDef[] {
  cached ??= [...localTools().filter((t) => t.position === 'start'), ...restTools(), ...localTools().filter((t) => t.position === 'end')];
  return cached;
}
