import type { Operation } from './operation.ts';
import * as team from './resources/team.ts';
import * as campaigns from './resources/campaigns.ts';

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
];
