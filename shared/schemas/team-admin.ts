import { z } from 'zod';
import { epochMs } from './common.ts';
import { SCOPES } from '../scopes.ts';

// Team administration, refloop extensions for the owner console (issue #23): members, invitations,
// API keys, the signed-in person's sessions and the team's mail outbox. None of these exist in the
// GrowSurf contract; they change no existing operation or field.

/** A team role. */
export const teamRole = z.enum(['OWNER', 'ADMIN', 'MEMBER']);

/** `TeamMember`: one member of the team. */
export const teamMember = z
  .object({
    email: z.string(),
    role: teamRole,
    manageApi: z.boolean().meta({ description: 'Whether the member may manage API keys (always true for Owners and Admins).' }),
    joinedAt: epochMs,
  })
  .meta({ id: 'TeamMember' });

/** `GET /team/members` response. */
export const teamMemberList = z.object({ members: z.array(teamMember) }).meta({ id: 'TeamMemberList' });

/** `TeamInvitation`: an invitation sent and not yet accepted, cancelled or expired. */
export const teamInvitation = z
  .object({
    id: z.string().meta({ description: 'The invitation’s id, the same across resends; what TM4 and TM5 name it by.' }),
    email: z.string(),
    role: z.enum(['ADMIN', 'MEMBER']),
    manageApi: z.boolean(),
    sentAt: epochMs.meta({ description: 'When the newest link was emailed (the last resend, else the invitation).' }),
    expiresAt: epochMs.meta({ description: 'When the newest link stops working (7 days after sentAt).' }),
  })
  .meta({ id: 'TeamInvitation' });

/** `GET /team/invitations` response. */
export const teamInvitationList = z.object({ invitations: z.array(teamInvitation) }).meta({ id: 'TeamInvitationList' });

/** `POST /team/invitations` body. */
export const teamInvitationCreate = z
  .strictObject({
    email: z.email().max(254),
    role: z.enum(['ADMIN', 'MEMBER']).default('MEMBER').meta({ description: 'ADMIN manages keys and invites teammates; MEMBER reads.' }),
    manageApi: z.boolean().default(false).meta({ description: 'Lets a Member create, list and revoke API keys.' }),
  })
  .meta({ id: 'TeamInvitationCreate' });

/** `POST /team/invitations` response. */
export const teamInvitationSent = z
  .object({ id: z.string().meta({ description: 'The invitation’s id (refloop addition), for TM4 and TM5.' }), email: z.string(), status: z.literal('SENT') })
  .meta({ id: 'TeamInvitationSent' });

/** `DELETE /team/invitations/{invitationId}` response. */
export const teamInvitationCancelled = z.object({ id: z.string(), email: z.string(), status: z.literal('CANCELLED') }).meta({ id: 'TeamInvitationCancelled' });

/** `TeamApiKey`: an API key as listed; the secret is never returned after creation. */
export const teamApiKey = z
  .object({
    prefix: z.string().meta({ description: 'The first characters of the key, which name it.' }),
    label: z.string().nullable(),
    scopes: z.array(z.enum(SCOPES)),
    programIds: z.array(z.string()).nullable().meta({ description: 'The programs the key may use; null means every program.' }),
    origin: z.string(),
    createdAt: epochMs,
  })
  .meta({ id: 'TeamApiKey' });

/** `GET /team/api-keys` response. */
export const teamApiKeyList = z.object({ apiKeys: z.array(teamApiKey) }).meta({ id: 'TeamApiKeyList' });

/** `POST /team/api-keys` body. */
export const teamApiKeyCreate = z
  .strictObject({
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
    programIds: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)).max(50).optional().meta({ description: 'Limit the key to these programs; leave out for every program.' }),
    label: z.string().max(100).optional(),
  })
  .meta({ id: 'TeamApiKeyCreate' });

/** `POST /team/api-keys` response: the secret, shown this once. */
export const teamApiKeyCreated = z
  .object({ apiKey: z.string().meta({ description: 'The secret. It is stored only as a hash and never shown again.' }), key: teamApiKey })
  .meta({ id: 'TeamApiKeyCreated' });

/** `DELETE /team/api-keys/{prefix}` response. */
export const teamApiKeyRevoked = z.object({ prefix: z.string(), success: z.boolean() }).meta({ id: 'TeamApiKeyRevoked' });

/** `DELETE /team/sessions` response. */
export const sessionsEnded = z.object({ success: z.boolean(), ended: z.number().int().nonnegative() }).meta({ id: 'SessionsEnded' });

/** `GET /team/outbox` query. */
export const teamOutboxQuery = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(20),
  cursor: z.string().regex(/^\d{1,15}$/).optional().meta({ description: 'nextCursor of the previous page.' }),
});

/** `OutboxMessage`: one message of the team's outbox. */
export const teamOutboxMessage = z
  .object({ id: z.string(), to: z.string(), subject: z.string(), kind: z.string(), text: z.string(), links: z.array(z.string()), createdAt: epochMs })
  .meta({ id: 'OutboxMessage' });

/** `GET /team/outbox` response. */
export const teamOutboxPage = z.object({ messages: z.array(teamOutboxMessage), nextCursor: z.string().nullable() }).meta({ id: 'OutboxPage' });
