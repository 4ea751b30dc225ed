import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { team, teamUpdate, verificationEmailResponse, rotateApiKeyResponse, createAccountRequest, createAccountResponse } from '../../../shared/schemas/team.ts';

/** A0 `POST /accounts`: the only operation without a key; its own per-IP limit. */
export const createAccount = operation({
  id: 'A0',
  name: 'accounts.create',
  method: 'POST',
  path: '/accounts',
  access: 'public',
  summary:
    'Create an account. Calling it accepts the terms of service and privacy policy on the account holder’s behalf, so get the owner’s approval first. The returned key is locked until the owner verifies their email.',
  body: createAccountRequest,
  response: createAccountResponse,
  async handler({ body, ip, deps }) {
    await deps.limits.enforce(deps.limits.accountCreation, ip, 'ACCOUNT_CREATION', 'Too many accounts created from this address. Try again later.');
    return deps.accounts.create(body, ip);
  },
});

/** T1 `GET /team`. */
export const getTeam = operation({
  id: 'T1',
  name: 'team.get',
  method: 'GET',
  path: '/team',
  access: { scopes: ['team:read'] },
  allowWhileLocked: true,
  summary: 'Retrieve the team bound to the key.',
  response: team,
  handler: ({ auth, deps }) => deps.teams.get(auth!.teamId),
});

/** T2 `PATCH /team`. */
export const updateTeam = operation({
  id: 'T2',
  name: 'team.update',
  method: 'PATCH',
  path: '/team',
  access: { scopes: ['team:write'] },
  allowWhileLocked: true,
  summary: 'Rename the team.',
  body: teamUpdate,
  response: team,
  audit: { before: ({ auth, deps }) => deps.teams.get(auth!.teamId) as unknown as Promise<Record<string, unknown>> },
  handler: ({ body, auth, deps }) => deps.teams.rename(auth!.teamId, body.name),
});

/** T3 `POST /team/verification-request`. */
export const requestTeamVerification = operation({
  id: 'T3',
  name: 'team.requestVerification',
  method: 'POST',
  path: '/team/verification-request',
  access: { scopes: ['team:write'] },
  allowWhileLocked: true,
  summary: 'Request team verification; repeating it while pending creates no duplicate.',
  body: emptyBody,
  response: team,
  handler: ({ auth, deps }) => deps.teams.requestVerification(auth!.teamId),
});

/** T4 `POST /team/owner/verification-email`: its own stricter per-team limit. */
export const resendOwnerVerificationEmail = operation({
  id: 'T4',
  name: 'team.resendOwnerVerificationEmail',
  method: 'POST',
  path: '/team/owner/verification-email',
  access: { scopes: ['team:write'] },
  allowWhileLocked: true,
  summary: 'Resend the owner verification email. 400 when the owner is already verified; 429 when sent too recently.',
  body: emptyBody,
  response: verificationEmailResponse,
  async handler({ auth, deps }) {
    await deps.limits.enforce(deps.limits.verificationEmail, auth!.teamId, 'VERIFICATION_EMAIL', 'A verification email was sent too recently. Try again later.');
    const out = await deps.teams.resendOwnerVerification(auth!.teamId);
    deps.jobs.kick();
    return out;
  },
});

/** T5 `POST /api-key/rotate`: replay with the same Idempotency-Key returns the same replacement. */
export const rotateApiKey = operation({
  id: 'T5',
  name: 'apiKey.rotate',
  method: 'POST',
  path: '/api-key/rotate',
  access: { scopes: ['api_key:rotate'] },
  summary: 'Rotate the key used for this request. The replacement is returned once; the old key stops working at once.',
  body: emptyBody,
  response: rotateApiKeyResponse,
  async handler({ auth, deps }) {
    const out = await deps.teams.rotateKey(auth!.teamId, auth!.id);
    deps.jobs.kick();
    return out;
  },
});
