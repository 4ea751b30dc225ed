import { z } from 'zod';
import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';

/** rest-v2 §2.28 ReferralFlowScreenshots. */
export const referralFlowScreenshots = z
  .object({
    generatedAt: z.string().meta({ description: 'ISO 8601.' }),
    expiresAt: z.string().meta({ description: 'ISO 8601: when every url stops working (15 minutes after generation).' }),
    screenshots: z.array(
      z.object({
        view: z.enum(['referrer', 'referredFriend']),
        label: z.string(),
        url: z.string().meta({ description: 'Signed and short-lived; served outside /v2.' }),
        expiresAt: z.string(),
        width: z.number().int(),
        height: z.number().int(),
        contentType: z.literal('image/jpeg'),
      }),
    ),
  })
  .meta({ id: 'ReferralFlowScreenshots' });

/** C6 `POST /campaign/{id}/referral-flow-screenshots` (also reachable at the MCP path `/api/v2/mcp/campaign/{id}/referral-flow-screenshots`). */
export const captureReferralFlowScreenshots = operation({
  id: 'C6',
  name: 'campaigns.screenshots',
  method: 'POST',
  path: '/campaign/:id/referral-flow-screenshots',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary:
    'Render the referrer window and the referred-friend view of the saved program in headless Chromium; answers signed image links that expire after 15 minutes, in referrer-then-referred-friend order. No URL or HTML input is accepted. 503 when the server has no Chromium.',
  body: emptyBody,
  response: referralFlowScreenshots,
  // A browser runs for seconds: no transaction is held for it, the entry follows the answer.
  audit: { mode: 'after' },
  handler: ({ program, deps }) => deps.screenshots.capture(program!),
});
