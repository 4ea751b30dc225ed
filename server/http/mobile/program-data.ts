// The participant API's program data operations: the window payload, the traffic report, the
// campaign, the leaderboard and the program's resources.
import type { MobileOperation } from './operation.ts';
import { mobileOperation } from './operation.ts';
import { mobileCampaign, mobileLeaderboard, mobileLeaderboardQuery, mobileDownloadUrl, mobileResourceList, toMobileResource } from '../../../shared/schemas/mobile-campaign.ts';
import { mobileWindow, mobileTrafficQuery, mobileTrafficReport } from '../../../shared/schemas/mobile-window.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { svc } from './participants.ts';

/** MW1 `GET /mobile/v2/window`. */
export const getWindow = mobileOperation({
  id: 'MW1',
  name: 'window.get',
  method: 'GET',
  path: '/window',
  auth: 'session',
  optionalParticipant: true,
  vary: 'Accept-Language',
  summary:
    'The window payload: participant (with a participant token), share URLs and channels, rewards, the leaderboard’s first page, payout providers and, for a signed-in participant on a paid plan with the design’s Traffic section on, the traffic report. The design’s texts are in the reader’s language (the signed-in participant’s, else Accept-Language among the program’s languages, else its base language): the owner’s own text for that language (`GET /v2/campaign/{id}/translations`), else the default copy in it where the base text is the unedited default, else the base text. Answers `Vary: Accept-Language`.',
  response: mobileWindow,
  handler: ({ view, participantId, acceptLanguage, deps }) => svc(deps).window(view, participantId, acceptLanguage),
});

/** MT1 `GET /mobile/v2/participant/traffic`. */
export const getOwnTraffic = mobileOperation({
  id: 'MT1',
  name: 'participant.traffic',
  method: 'GET',
  path: '/participant/traffic',
  auth: 'participant',
  summary:
    'The signed-in participant’s traffic report for a date range (LAST_7_DAYS, LAST_30_DAYS, LAST_90_DAYS, ALL_TIME; default design.trafficInsights.defaultDateRange), as the window’s traffic. 403 where the window shows none (design off or unpaid plan).',
  query: mobileTrafficQuery,
  response: mobileTrafficReport,
  handler: ({ query, view, participantId, deps }) => svc(deps).trafficReport(view, participantId!, query.range),
});

/** MC1 `GET /mobile/v2/campaign`. */
export const getCampaign = mobileOperation({
  id: 'MC1',
  name: 'campaign.get',
  method: 'GET',
  path: '/campaign',
  auth: 'session',
  summary: 'The program’s public details (name, type, status, currency, company) and its visible rewards, without coupon codes, metadata or tax valuations.',
  response: mobileCampaign,
  handler: ({ view, deps }) => svc(deps).campaign(view),
});

/** ML1 `GET /mobile/v2/leaderboard`. */
export const getLeaderboard = mobileOperation({
  id: 'ML1',
  name: 'leaderboard.get',
  method: 'GET',
  path: '/leaderboard',
  auth: 'session',
  optionalParticipant: true,
  summary:
    'A leaderboard page: rank, the name as design.leaderboard.nameFormat shows it, a masked email, the score and isYou (with a participant token, true on the caller’s own row). Page with page (1-based, up to row 500) or offsetKey (the previous nextOffsetKey).',
  query: mobileLeaderboardQuery,
  response: mobileLeaderboard,
  handler: ({ query, view, participantId, deps }) => svc(deps).leaderboard(view, query, participantId),
});

/** MRS1 `POST /mobile/v2/resources/:resourceId/download-url`. */
export const resourceDownloadUrl = mobileOperation({
  id: 'MRS1',
  name: 'resources.downloadUrl',
  method: 'POST',
  path: '/resources/:resourceId/download-url',
  auth: 'participant',
  summary: 'A new short-lived signed link to a published FILE resource of the program (404 for anything else).',
  body: emptyBody,
  response: mobileDownloadUrl,
  handler: ({ params, view, deps }) => svc(deps).downloadUrl(view, params.resourceId!),
});

/** MRS2 `GET /mobile/v2/resources`. */
export const listResources = mobileOperation({
  id: 'MRS2',
  name: 'resources.list',
  method: 'GET',
  path: '/resources',
  auth: 'participant',
  summary:
    'The program’s published resources in list order, as participants see them (rest-v2 §2.23 without publishing, moderation or storage data): LINK with its url, TEXT with its text, FILE without a link (ask MRS1 for a fresh one each time it is opened). Files not yet approved are left out.',
  response: mobileResourceList,
  handler: async ({ view, deps }) => ({
    resources: (await deps.resources.list(view.program.id)).flatMap((r) => toMobileResource(r) ?? []),
  }),
});

/** The program data operations, in the order of the table in routes.ts. */
export const programDataOperations: MobileOperation[] = [
  getWindow,
  getOwnTraffic,
  getCampaign,
  getLeaderboard,
  listResources,
  resourceDownloadUrl,
];
