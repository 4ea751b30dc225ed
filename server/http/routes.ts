import type { Operation } from './operation.ts';
import * as team from './resources/team.ts';
import * as campaigns from './resources/campaigns.ts';
import * as programConfig from './resources/config.ts';
import * as rewardConfigs from './resources/reward-configs.ts';
import * as webhooks from './resources/webhooks.ts';
import * as programResources from './resources/program-resources.ts';

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

  // Programs (rest-v2 §3.2)
  campaigns.listCampaigns,
  campaigns.getCampaign,
  campaigns.createCampaign,
  campaigns.updateCampaign,
  campaigns.cloneCampaign,

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

  // Webhooks (rest-v2 §3.7); W6 and W7 are our delivery-log extension (docs/webhooks.md)
  webhooks.listWebhooks,
  webhooks.createWebhook,
  webhooks.updateWebhook,
  webhooks.deleteWebhook,
  webhooks.testWebhook,
  webhooks.listWebhookDeliveries,
  webhooks.replayWebhookDelivery,
];
