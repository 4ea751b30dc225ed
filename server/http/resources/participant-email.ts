import { operation } from '../operation.ts';
import { emailParticipantBody, emailParticipantResponse } from '../../../shared/schemas/referral.ts';

/** P11 `POST /campaign/{id}/participant/{participantIdOrEmail}/email`. */
export const emailParticipant = operation({
  id: 'P11',
  name: 'participants.email',
  method: 'POST',
  path: '/campaign/:id/participant/:participantIdOrEmail/email',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary:
    'Email one participant: a template of the program’s type (emailType; its isEnabled is ignored) or free-form subject + HTML body (+ preheader), never both. Company name, postal address and an unsubscribe link are added. Unsubscribed participant → 400; team not VERIFIED → 403 TEAM_NOT_VERIFIED_ERROR; its own per-team limit → 429.',
  body: emailParticipantBody,
  response: emailParticipantResponse,
  handler: ({ body, params, program, deps }) => deps.programEmails.emailParticipant(program!, params.participantIdOrEmail!, body),
});
