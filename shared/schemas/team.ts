import { z } from 'zod';
import { epochMs } from './common.ts';

/** Team `verificationStatus` values. */
export const verificationStatus = z.enum(['NOT_REQUESTED', 'REQUESTED', 'VERIFIED']);

/** `GET /team` response: the three contract fields plus our documented `ownerEmailVerified` extension. */
export const team = z
  .object({
    name: z.string(),
    verificationStatus,
    verificationRequestedAt: epochMs.nullable(),
    ownerEmailVerified: z
      .boolean()
      .meta({ description: 'refloop extension: whether the team owner has verified their email. While false, keys from account creation are locked.' }),
  })
  .meta({ id: 'Team' });

/** `PATCH /team` body. */
export const teamUpdate = z.strictObject({ name: z.string().trim().min(1).max(255) }).meta({ id: 'TeamUpdate' });

/** `POST /team/owner/verification-email` response. */
export const verificationEmailResponse = z
  .object({ success: z.boolean(), status: z.literal('SENT') })
  .meta({ id: 'VerificationEmailResponse' });

/** `POST /api-key/rotate` response. */
export const rotateApiKeyResponse = z.object({ apiKey: z.string() }).meta({ id: 'RotateApiKeyResponse' });

/** `POST /accounts` body: strict, the spec forbids extra properties. */
export const createAccountRequest = z
  .strictObject({
    email: z.email().min(3).max(254),
    firstName: z.string().max(255).optional(),
    lastName: z.string().max(255).optional(),
    company: z.string().max(255).optional(),
  })
  .meta({ id: 'CreateAccountRequest' });

/** `POST /accounts` response: exactly these three fields. */
export const createAccountResponse = z
  .object({ email: z.string(), apiKey: z.string(), verificationStatus })
  .meta({ id: 'CreateAccountResponse' });

export type Team = z.infer<typeof team>;
export type CreateAccountRequest = z.infer<typeof createAccountRequest>;
