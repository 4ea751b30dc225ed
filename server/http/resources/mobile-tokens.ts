import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import { participantCreate } from '../../../shared/schemas/participant.ts';
import { mobileParticipantTokenResponse, participantAuthSecret, participantTokenSecretRotated } from '../../../shared/schemas/mobile.ts';
import { completeDocument } from '../../domain/programs/program-config.ts';
import { InvalidStateError } from '../../errors.ts';

/** P10 `POST /campaign/{id}/mobile-participant-token`. */
export const createMobileParticipantToken = operation({
  id: 'P10',
  name: 'participants.mobileToken',
  method: 'POST',
  path: '/campaign/:id/mobile-participant-token',
  access: { scopes: ['participant:write'] },
  programParam: 'id',
  summary:
    'Create or return a participant exactly like P3, then issue a 30-day participant token for the participant API (/mobile/v2). The program must have installation.mobile.isEnabled (406 otherwise).',
  body: participantCreate,
  response: mobileParticipantTokenResponse,
  handler: async ({ body, program, auth, deps }) => {
    if (!completeDocument('installation', program!, program!.documents.installation).mobile.isEnabled) {
      throw new InvalidStateError('The mobile SDK is not enabled for this program; set installation.mobile.isEnabled to true first.');
    }
    const { isNew, ...participant } = await deps.participants.create(program!, auth!, body);
    const token = await deps.participantTokens.mint(program!.id, participant.id);
    return { ...token, participant, isNew: isNew ?? false };
  },
});

/** AS1 (refloop extension) `POST /campaign/{id}/participant-auth-secret`. */
export const createParticipantAuthSecret = operation({
  id: 'AS1',
  name: 'campaigns.participantAuthSecret',
  method: 'POST',
  path: '/campaign/:id/participant-auth-secret',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'refloop: create or replace the participant auth secret for auto-authentication (hash = lower-case hex HMAC-SHA256 of the email). Shown only in this answer; hashes made with a replaced secret stop working.',
  body: emptyBody,
  response: participantAuthSecret,
  handler: ({ program, deps }) => deps.participantTokens.createAuthSecret(program!.id),
});

/** TS1 (refloop extension) `POST /campaign/{id}/participant-token-secret/rotate`. */
export const rotateParticipantTokenSecret = operation({
  id: 'TS1',
  name: 'campaigns.rotateParticipantTokenSecret',
  method: 'POST',
  path: '/campaign/:id/participant-token-secret/rotate',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'refloop: replace the program’s participant-token signing secret. Every participant token issued before the rotation stops working at once in every process (participant calls answer 403); mint new ones with P10 or auto-authentication.',
  body: emptyBody,
  response: participantTokenSecretRotated,
  handler: async ({ program, deps }) => ({ success: true as const, rotatedAt: await deps.participantTokens.rotateSigningSecret(program!.id) }),
});
