import { z } from 'zod';
import { epochMs } from './common.ts';

// The team audit trail (issue #35 part 1), a refloop extension: `GET /team/audit-log`.

const dateBound = z
  .union([z.coerce.number().int().nonnegative(), z.iso.datetime({ offset: true }), z.iso.date()])
  .optional();

/** `GET /team/audit-log` query: newest first, `cursor` = the previous page's `nextCursor`, filters combined with AND. */
export const auditLogQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().regex(/^\d{1,15}$/).optional().meta({ description: 'nextCursor of the previous page.' }),
  actor: z.string().min(1).max(320).optional().meta({ description: 'A member email or user id, or an API key prefix or id.' }),
  resourceType: z.string().min(1).max(64).optional().meta({ description: 'The resource type, e.g. campaigns, participants, rewards, teamApiKeys, owner.' }),
  resourceId: z.string().min(1).max(320).optional(),
  action: z.string().min(1).max(64).optional().meta({ description: 'An operation id of the routes table (C4, RF1 …) or an owner page’s access event (access.signIn, access.signInFailed, access.signOut, access.keyCreate, access.keyRevoke, access.memberInvite); signing out everywhere is OS1.' }),
  from: dateBound.meta({ description: 'Entries at or after this time (epoch ms or ISO 8601).' }),
  to: dateBound.meta({ description: 'Entries before this time (epoch ms or ISO 8601).' }),
});

/** `AuditActor`: who made the change. */
export const auditActor = z
  .object({
    type: z.enum(['MEMBER', 'API_KEY', 'SYSTEM', 'ANONYMOUS']),
    id: z.string().nullable().meta({ description: 'User id, API key id or job name.' }),
    label: z.string().nullable().meta({ description: 'Member email, API key prefix or job name.' }),
  })
  .meta({ id: 'AuditActor' });

/** `AuditEntry`: one entry of the team's hash chain. */
export const auditEntry = z
  .object({
    id: z.string(),
    seq: z.number().int(),
    at: epochMs,
    actor: auditActor,
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    action: z.string(),
    resource: z.object({ type: z.string().nullable(), id: z.string().nullable() }),
    changes: z.unknown().meta({ description: '{ ids: the path ids, fields: { name: { before?, after } } }; secrets and tax data never appear, payout destinations are masked.' }),
    prevHash: z.string(),
    hash: z.string().meta({ description: 'sha256(prevHash "\\n" seq "\\n" canonical entry), hex.' }),
  })
  .meta({ id: 'AuditEntry' });

/** `GET /team/audit-log` response. */
export const auditLogPage = z.object({ entries: z.array(auditEntry), nextCursor: z.string().nullable() }).meta({ id: 'AuditLogPage' });

export type AuditLogQuery = z.infer<typeof auditLogQuery>;
export type AuditLogEntry = z.infer<typeof auditEntry>;
export type AuditLogPage = z.infer<typeof auditLogPage>;
