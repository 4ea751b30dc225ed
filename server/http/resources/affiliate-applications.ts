import { operation } from '../operation.ts';
import { affiliateApplication, applicationCounts, applicationCountsQuery, applicationList, applicationListQuery, applicationReview } from '../../../shared/schemas/affiliate.ts';

// Affiliate applications (rest-v2 §3.12 AF1–AF3): affiliate programs only (422 otherwise).

/** AF1 `GET /campaign/{id}/affiliate-applications`. */
export const listAffiliateApplications = operation({
  id: 'AF1',
  name: 'affiliateApplications.list',
  method: 'GET',
  path: '/campaign/:id/affiliate-applications',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'List affiliate applications, newest first (limit 1–100, default 20; offset; status filter) with the filter’s total.',
  query: applicationListQuery,
  response: applicationList,
  handler: ({ query, program, deps }) => deps.affiliateApplications.list(program!, query),
});

/** AF18 `GET /campaign/{id}/affiliate-applications/counts` (refloop extension): AF1's count per status. */
export const countAffiliateApplications = operation({
  id: 'AF18',
  name: 'affiliateApplications.count',
  method: 'GET',
  path: '/campaign/:id/affiliate-applications/counts',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'refloop extension. How many of the program’s affiliate applications AF1 lists with each status filter (PENDING, APPROVED, DENIED) and without one (ALL): AF1’s total for each filter in one read. The console’s applications filter reads it.',
  query: applicationCountsQuery,
  response: applicationCounts,
  handler: ({ program, deps }) => deps.affiliateApplications.counts(program!),
});

/** AF2 `GET /campaign/{id}/affiliate-applications/{applicationId}`. */
export const getAffiliateApplication = operation({
  id: 'AF2',
  name: 'affiliateApplications.get',
  method: 'GET',
  path: '/campaign/:id/affiliate-applications/:applicationId',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'One affiliate application with its form answers.',
  response: affiliateApplication,
  handler: ({ params, program, deps }) => deps.affiliateApplications.get(program!, params.applicationId!),
});

/** AF3 `PATCH /campaign/{id}/affiliate-applications/{applicationId}`. */
export const reviewAffiliateApplication = operation({
  id: 'AF3',
  name: 'affiliateApplications.review',
  method: 'PATCH',
  path: '/campaign/:id/affiliate-applications/:applicationId',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'Send exactly one of status (APPROVED enrolls the applicant, creating or upgrading the participant; DENIED with optional rejectionReason ≤ 255, private reviewNote ≤ 500, allowImmediateReapply) or reapplyAllowedAt (a denied application’s reapply time, earlier only). Approving again answers the same application; deciding any other non-pending application is 406.',
  body: applicationReview,
  response: affiliateApplication,
  handler: ({ body, params, program, auth, deps }) => deps.affiliateApplications.review(program!, auth!, params.applicationId!, body),
});
