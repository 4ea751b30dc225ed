import { operation } from '../operation.ts';
import { fraudReviewCounts, fraudReviewCountsQuery, fraudReviewList, fraudReviewQuery } from '../../../shared/schemas/fraud.ts';

// The fraud review queue (a refloop extension; docs/decisions.md "Owner console (issue #23)"). The
// owner's verdict is P5 `fraudRiskLevel`; this only reads.

/** FR1 `GET /campaign/{id}/fraud-reviews` (refloop extension). */
export const listFraudReviews = operation({
  id: 'FR1',
  name: 'fraudReviews.list',
  method: 'GET',
  path: '/campaign/:id/fraud-reviews',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary:
    'refloop extension. Participants under anti-fraud review, newest first: state OPEN (the default: flagged MEDIUM or HIGH by the automatic checks, no owner verdict yet), DECIDED (the owner set fraudRiskLevel with P5, reason MANUAL_UPDATE) or ALL. Each carries its fraud state, the participants it matched and its newest decisions (reason code, the reasons in words, source, time). limit 1–100 (default 20); nextId = the last participant id of the previous page.',
  query: fraudReviewQuery,
  response: fraudReviewList,
  handler: ({ query, program, deps }) => deps.fraud.review.list(program!, query),
});

/** FR2 `GET /campaign/{id}/fraud-reviews/counts` (refloop extension): FR1's count per state. */
export const countFraudReviews = operation({
  id: 'FR2',
  name: 'fraudReviews.count',
  method: 'GET',
  path: '/campaign/:id/fraud-reviews/counts',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary:
    'refloop extension. How many participants FR1 lists in each state: OPEN (flagged MEDIUM or HIGH by the automatic checks, no owner verdict yet), DECIDED (the owner set fraudRiskLevel with P5, reason MANUAL_UPDATE) and ALL (both). The same rows FR1 lists, counted; the console’s fraud filter reads it.',
  query: fraudReviewCountsQuery,
  response: fraudReviewCounts,
  handler: ({ program, deps }) => deps.fraud.review.counts(program!),
});
