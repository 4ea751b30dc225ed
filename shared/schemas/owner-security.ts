import { z } from 'zod';
import { epochMs } from './common.ts';

// Two-factor sign-in, re-authentication and sessions (issue #35 parts 2 and 3), refloop extensions
// for the owner console: they change no GrowSurf operation or field.

/** `GET /owner/two-factor` response. */
export const twoFactorStatus = z
  .object({
    enabled: z.boolean(),
    enabledAt: epochMs.nullable(),
    recoveryCodesLeft: z.number().int().nonnegative().meta({ description: 'Recovery codes not yet used (10 at enrolment).' }),
    teamRequires: z.boolean().meta({ description: 'Whether the current team requires two-factor sign-in of every member.' }),
  })
  .meta({ id: 'TwoFactorStatus' });

/** `POST /owner/two-factor` response: the secret to enrol in an authenticator app. */
export const twoFactorEnrolment = z
  .object({
    secret: z.string().meta({ description: 'The shared secret, base32 (RFC 4648), for typing into an authenticator app.' }),
    uri: z.string().meta({ description: 'The same secret as an otpauth:// URI (TOTP, SHA1, 6 digits, 30 s).' }),
    qrCode: z.string().meta({ description: 'refloop extension. The otpauth:// URI as a QR code for an authenticator app to scan: an SVG image in a data: URL.' }),
  })
  .meta({ id: 'TwoFactorEnrolment' });

const code = z.string().trim().min(1).max(40).meta({ description: 'The 6-digit code the authenticator app shows now, or an unused recovery code.' });

/** `POST /owner/two-factor/confirm` body. */
export const twoFactorConfirm = z.strictObject({ code: z.string().trim().regex(/^\d{6}$/, 'Enter the 6 digits your authenticator app shows.') }).meta({ id: 'TwoFactorConfirm' });

/** `POST /owner/two-factor/confirm` response: the recovery codes, shown this once. */
export const twoFactorConfirmed = z
  .object({ enabled: z.literal(true), recoveryCodes: z.array(z.string()).meta({ description: 'Ten single-use codes, each signs in once without the app. Stored only hashed: shown this once.' }) })
  .meta({ id: 'TwoFactorConfirmed' });

/** `DELETE /owner/two-factor` response. */
export const twoFactorDisabled = z.object({ enabled: z.literal(false) }).meta({ id: 'TwoFactorDisabled' });

/** `POST /owner/reauthenticate` body. */
export const reauthenticate = z
  .strictObject({ password: z.string().min(1).max(800), code: code.optional().meta({ description: 'Required when two-factor sign-in is on.' }) })
  .meta({ id: 'Reauthenticate' });

/** `POST /owner/reauthenticate` response. */
export const reauthenticated = z.object({ reauthenticatedUntil: epochMs.meta({ description: 'The sensitive actions are open to this session until then (5 minutes).' }) }).meta({ id: 'Reauthenticated' });

/** `OwnerSession`: one signed-in session of the person. */
export const ownerSession = z
  .object({
    id: z.string().meta({ description: 'The session’s id (never its token), for OS3.' }),
    browser: z.string().meta({ description: 'From the user agent: Chrome, Edge, Firefox, Safari, Opera or Other.' }),
    os: z.string().meta({ description: 'From the user agent: Windows, macOS, iOS, Android, ChromeOS, Linux or Other.' }),
    ip: z.string().nullable(),
    createdAt: epochMs,
    lastSeenAt: epochMs.meta({ description: 'Updated at most once a minute.' }),
    current: z.boolean().meta({ description: 'The session this request came from ("this browser").' }),
  })
  .meta({ id: 'OwnerSession' });

export type OwnerSession = z.infer<typeof ownerSession>;

/** `GET /owner/sessions` response. */
export const ownerSessionList = z.object({ sessions: z.array(ownerSession) }).meta({ id: 'OwnerSessionList' });

/** `DELETE /owner/sessions/{sessionId}` response. */
export const ownerSessionEnded = z.object({ id: z.string(), success: z.boolean() }).meta({ id: 'OwnerSessionEnded' });

/** `DELETE /team/members/{email}` response. */
export const teamMemberRemoved = z.object({ email: z.string(), success: z.boolean() }).meta({ id: 'TeamMemberRemoved' });

/** `PATCH /team/security` body. */
export const teamSecurityUpdate = z
  .strictObject({ requireTwoFactor: z.boolean().meta({ description: 'Every member must turn on two-factor sign-in before using the console.' }) })
  .meta({ id: 'TeamSecurityUpdate' });

/** `PATCH /team/security` response. */
export const teamSecurity = z.object({ requireTwoFactor: z.boolean() }).meta({ id: 'TeamSecurity' });

/** `PATCH /team/members/{email}` body (TM8): the member's new role, "Manage API", or both. */
export const teamMemberUpdate = z
  .strictObject({
    role: z.enum(['ADMIN', 'MEMBER']).optional().meta({ description: 'ADMIN manages keys and invites teammates; MEMBER reads. An Owner’s role is never changed here.' }),
    manageApi: z.boolean().optional().meta({ description: 'Whether a Member may manage the team’s API keys (Admins always may).' }),
  })
  .superRefine((b, ctx) => {
    if (b.role === undefined && b.manageApi === undefined) ctx.addIssue({ code: 'custom', path: ['role'], message: 'Send role, manageApi, or both.' });
  })
  .meta({ id: 'TeamMemberUpdate' });

/** `PATCH /team/members/{email}` response. */
export const teamMemberUpdated = z
  .object({
    email: z.string(),
    role: z.enum(['ADMIN', 'MEMBER']),
    manageApi: z.boolean(),
    sessionsEnded: z.number().int().nonnegative().meta({ description: 'How many of the member’s sessions ended because their privileges changed (0 when nothing changed).' }),
  })
  .meta({ id: 'TeamMemberUpdated' });

/** `POST /owner/two-factor/recovery-codes` response: the new recovery codes, shown this once. */
export const recoveryCodesRegenerated = z
  .object({ recoveryCodes: z.array(z.string()).meta({ description: 'Ten new single-use codes; every earlier code stopped working. Stored only hashed: shown this once.' }) })
  .meta({ id: 'RecoveryCodesRegenerated' });
