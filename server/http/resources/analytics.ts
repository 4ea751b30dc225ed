import { operation } from '../operation.ts';
import { activityLogList, campaignActivationAnalytics, campaignAnalytics, participantAnalytics } from '../../../shared/schemas/analytics.ts';
import { activationAnalyticsQuery, activityLogQuery, campaignAnalyticsQuery, participantAnalyticsQuery } from '../../../shared/schemas/analytics-queries.ts';

/** AN1 `GET /campaign/{id}/analytics`. */
export const getCampaignAnalytics = operation({
  id: 'AN1',
  name: 'analytics.campaign',
  method: 'GET',
  path: '/campaign/:id/analytics',
  access: { scopes: ['analytics:read'] },
  programParam: 'id',
  summary:
    'Program analytics over a window (days, default 365, or startDate+endDate): totals, an optional day/week/month series in the given time zone, and with include= previousPeriod, statusCounts, rates, email, engagement. Metrics we do not track yet are reported with their coverage state, never as measured zeros.',
  query: campaignAnalyticsQuery,
  response: campaignAnalytics,
  handler: ({ query, program, deps }) => deps.analytics.campaign(program!, query),
});

/** AN2 `GET /campaign/{id}/analytics/activation`. */
export const getActivationAnalytics = operation({
  id: 'AN2',
  name: 'analytics.activation',
  method: 'GET',
  path: '/campaign/:id/analytics/activation',
  access: { scopes: ['analytics:read'] },
  programParam: 'id',
  summary:
    'Activation cohorts: participants grouped by enrolment (cohortFrom/cohortTo together, or the latest fully matured cohort) and followed for 7 or 30 days through share, unique referral visit, lead and credited referral. Portal views are not tracked, so cohorts are PARTIAL.',
  query: activationAnalyticsQuery,
  response: campaignActivationAnalytics,
  handler: ({ query, program, deps }) => deps.analytics.activation(program!, query),
});

/** P12 `GET /campaign/{id}/participant/{participantIdOrEmail}/analytics`. */
export const getParticipantAnalytics = operation({
  id: 'P12',
  name: 'participants.analytics',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/analytics',
  access: { scopes: ['analytics:read'] },
  programParam: 'id',
  summary:
    'A participant’s all-time counters, ranks (null when unranked) and shares per channel; include= series (interval day/week/month over the window), email, activation.',
  query: participantAnalyticsQuery,
  response: participantAnalytics,
  handler: ({ query, params, program, deps }) => deps.analytics.participant(program!, params.participantIdOrEmail!, query),
});

/** P13 `GET /campaign/{id}/participant/{participantIdOrEmail}/activity-logs`. */
export const listActivityLogs = operation({
  id: 'P13',
  name: 'participants.activityLogs',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/activity-logs',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: 'A participant’s activity log, newest first (limit 1–100, default 20; offset); offset in the answer is the next page’s, null at the end.',
  query: activityLogQuery,
  response: activityLogList,
  handler: async ({ query, params, program, deps }) => {
    const row = await deps.participants.resolve(deps.db.knex, program!, params.participantIdOrEmail!);
    return deps.activity.list(row.id, query.limit, query.offset);
  },
});
