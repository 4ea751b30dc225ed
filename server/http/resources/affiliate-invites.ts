import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { affiliateInvite, inviteCreate, inviteList, inviteListQuery } from '../../../shared/schemas/affiliate.ts';

// Affiliate invites (rest-v2 §3.12 AF4–AF7): affiliate programs only (422 otherwise).

/** AF4 `GET /campaign/{id}/affiliate-invites`. */
export const listAffiliateInvites = operation({
  id: 'AF4',
  name: 'affiliateInvites.list',
  method: 'GET',
  path: '/campaign/:id/affiliate-invites',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'List affiliate invites, newest first (limit 1–100, default 20; offset; status filter) with the filter’s total. A pending invite past expiresAt reads EXPIRED.',
  query: inviteListQuery,
  response: inviteList,
  handler: ({ query, program, deps }) => deps.affiliateInvites.list(program!, query),
});

/** AF5 `POST /campaign/{id}/affiliate-invites`. */
export const createAffiliateInvite = operation({
  id: 'AF5',
  name: 'affiliateInvites.create',
  method: 'POST',
  path: '/campaign/:id/affiliate-invites',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'Invite someone to become an approved affiliate: emails a single-use accept link that works for 14 days. One active invite per address (409); an existing affiliate is 409; team not VERIFIED → 403 TEAM_NOT_VERIFIED_ERROR with nothing sent.',
  body: inviteCreate,
  response: affiliateInvite,
  handler: ({ body, program, deps }) => deps.affiliateInvites.create(program!, body),
});

/** AF6 `DELETE /campaign/{id}/affiliate-invites/{inviteId}`. */
export const revokeAffiliateInvite = operation({
  id: 'AF6',
  name: 'affiliateInvites.revoke',
  method: 'DELETE',
  path: '/campaign/:id/affiliate-invites/:inviteId',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary: 'Revoke a pending invite; its link stops working at once. Any other status is 406.',
  body: emptyBody,
  response: affiliateInvite,
  handler: ({ params, program, deps }) => deps.affiliateInvites.revoke(program!, params.inviteId!),
});

/** AF7 `POST /campaign/{id}/affiliate-invites/{inviteId}/resend`. */
export const resendAffiliateInvite = operation({
  id: 'AF7',
  name: 'affiliateInvites.resend',
  method: 'POST',
  path: '/campaign/:id/affiliate-invites/:inviteId/resend',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  programType: 'AFFILIATE',
  summary:
    'Email a pending invite again with a fresh accept link (the old link stops working) and a new 14-day expiry. At most once every 5 minutes per invite (429, policyName AFFILIATE_INVITE_RESEND, Retry-After); other statuses 406; team not VERIFIED 403.',
  body: emptyBody,
  response: affiliateInvite,
  handler: ({ params, program, deps }) => deps.affiliateInvites.resend(program!, params.inviteId!),
});
