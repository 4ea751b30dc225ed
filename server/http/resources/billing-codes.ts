import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { billingCode, billingCodeCreate, billingCodeDeleted, billingCodeList, billingCodeListQuery } from '../../../shared/schemas/billing-codes.ts';

// Coupon and promotion codes (issue #25, refloop extensions; docs/integrations.md "Codes"): a
// participant's codes mapped to the billing system's. Scopes as for participants: reads need
// participant:read, changes participant:write.

const EXT = 'Extension (docs/integrations.md "Codes"): ';

/** BC1 `POST /campaign/{id}/participant/{participantIdOrEmail}/codes`. */
export const createBillingCode = operation({
  id: 'BC1',
  name: 'codes.create',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/codes',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary: `${EXT}adds a coupon or promotion code to a participant (an affiliate or a referrer), mapped to the billing system's own code: stripePromotionCodeId (promo_…), stripeCouponId or paddleDiscountId, at least one. The code and each id are unique in the program (the code compared without case); a taken one answers 400 with CODE_TAKEN on its field. A sale that used the code is attributed to the participant even without a visit.`,
  body: billingCodeCreate,
  response: billingCode,
  handler: ({ body, params, program, deps }) => deps.billingCodes.create(program!, params.participantIdOrEmail!, body),
});

/** BC2 `GET /campaign/{id}/participant/{participantIdOrEmail}/codes`. */
export const listParticipantBillingCodes = operation({
  id: 'BC2',
  name: 'codes.participant.list',
  method: 'GET',
  path: '/campaign/:id/participant/:participantIdOrEmail/codes',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: `${EXT}a participant's codes, oldest first (nextId is always null).`,
  response: billingCodeList,
  handler: ({ params, program, deps }) => deps.billingCodes.listForParticipant(program!, params.participantIdOrEmail!),
});

/** BC3 `GET /campaign/{id}/codes`. */
export const listBillingCodes = operation({
  id: 'BC3',
  name: 'codes.list',
  method: 'GET',
  path: '/campaign/:id/codes',
  access: { scopes: ['participant:read'] },
  programParam: 'id',
  summary: `${EXT}the program's codes, newest first (limit 1–100, default 20; nextId).`,
  query: billingCodeListQuery,
  response: billingCodeList,
  handler: ({ query, program, deps }) => deps.billingCodes.listForProgram(program!, query),
});

/** BC4 `DELETE /campaign/{id}/codes/{codeId}`. */
export const deleteBillingCode = operation({
  id: 'BC4',
  name: 'codes.delete',
  method: 'DELETE',
  path: '/campaign/:id/codes/:codeId',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary: `${EXT}deletes a code; later sales that use it are no longer attributed by it (sales already recorded stay). 404 when the program has no such code.`,
  body: emptyBody,
  response: billingCodeDeleted,
  handler: ({ params, program, deps }) => deps.billingCodes.remove(program!, params.codeId!),
});
