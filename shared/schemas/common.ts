import { z } from 'zod';

/** Epoch milliseconds, the wire format of every REST timestamp. */
export const epochMs = z.number().int().nonnegative();

/** The error object of every non-200 response. */
export const errorBody = z
  .object({
    name: z.string(),
    code: z.string(),
    message: z.string(),
    errors: z
      .array(
        z.object({
          field: z.string(),
          code: z.string(),
          message: z.string(),
          maximum: z.number().optional().meta({ description: 'refloop extension: the largest length, value or count allowed (on TOO_LONG).' }),
          minimum: z.number().optional().meta({ description: 'refloop extension: the smallest length, value or count allowed (on TOO_SHORT).' }),
          origin: z.string().optional().meta({ description: 'refloop extension: what the bound measures: string (characters), number (the value) or array (entries).' }),
        }),
      )
      .optional(),
    status: z.number().int(),
    supportUrl: z.string().optional(),
    policyName: z.string().optional(),
    level: z.string(),
    timestamp: z.string(),
  })
  .meta({ id: 'Error' });

/** A body-less call: the official clients send nothing, `{}`, or an empty JSON body. */
export const emptyBody = z.strictObject({});

/** `{success: true}` action responses. */
export const successResponse = z.object({ success: z.boolean() }).meta({ id: 'SuccessResponse' });
