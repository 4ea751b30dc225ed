import { operation } from '../operation.ts';
import { previewEmail, sendTestEmail } from '../../domain/messaging/email-previews.ts';
import type { TemplateKey } from '../../domain/messaging/program-emails.ts';
import { designPreviewLinks, designPreviewQuery, emailPreview, emailTemplateDraft, emailTestBody, emailTestResult } from '../../../shared/schemas/program-previews.ts';
import { emailTemplateKey } from '../../../shared/schemas/program-previews.ts';
import { NotFoundError } from '../../errors.ts';
import { TEST_EMAILS_PER_HOUR } from '../limits.ts';
import { assertProgramLanguage } from '../../domain/participants/model.ts';
import { completedDocument } from '../../domain/programs/program-config.ts';
import { localizedDesign } from '../../domain/programs/design-copy/index.ts';

// Previews of unsaved program copy for the owner console (refloop extensions; docs/decisions.md
// "Owner console (issue #23)"): the widget preview pages, a rendered email template and a test send.

/** How long DP1's links work: long enough for an editing session. */
const PREVIEW_LINK_TTL_MS = 60 * 60_000;

function templateParam(value: string | undefined): TemplateKey {
  const key = emailTemplateKey.safeParse(value);
  if (!key.success) throw new NotFoundError(`There is no email template ${value}.`);
  return key.data as TemplateKey;
}

/** DP1 `GET /campaign/{id}/design/preview` (refloop extension). */
export const getDesignPreview = operation({
  id: 'DP1',
  name: 'campaigns.design.preview',
  method: 'GET',
  path: '/campaign/:id/design/preview',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary:
    'refloop extension. Signed links, valid for one hour, to the preview pages of the program’s real widget (the referrer’s window with a sample participant, and the referred friend’s view), the pages C6 photographs, drawn in the base language or in `language` (issue #27; then the answer also carries that language’s `design`). A same-origin page that frames one may post an unsaved design to it (see DesignPreviewLinks) to see it before saving.',
  query: designPreviewQuery,
  response: designPreviewLinks,
  handler: async ({ program, query, deps }) => {
    const language = query.language;
    if (language) assertProgramLanguage(program!, language);
    const exp = Date.now() + PREVIEW_LINK_TTL_MS;
    const token = encodeURIComponent(deps.screenshots.previewToken(program!.id, exp, language));
    const base = deps.config.publicUrl.replace(/\/+$/, '');
    const links = { referrerUrl: `${base}/preview/${token}/referrer`, referredFriendUrl: `${base}/preview/${token}/referredFriend`, expiresAt: new Date(exp).toISOString() };
    if (!language) return links;
    // What the console lays a language's unsaved texts over: its readers' design without the owner's texts for it.
    const design = localizedDesign(program!.type, program!.goal, completedDocument('design', program!, program!.documents.design), language);
    return { ...links, design: design as unknown as Record<string, unknown> };
  },
});

/** EP1 `POST /campaign/{id}/emails/{template}/preview` (refloop extension). */
export const previewEmailTemplate = operation({
  id: 'EP1',
  name: 'campaigns.emails.preview',
  method: 'POST',
  path: '/campaign/:id/emails/:template/preview',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary:
    'refloop extension. Renders one email template as a participant would receive it (merge tags filled with sample values, the program’s layout, colours and footer); subject, preheader and body sent in the body replace the saved ones, and `settings` (optional: unsaved sender, contact and design settings, exactly as `PATCH /campaign/{id}/emails` takes them under `settings`) is merged over the saved settings and validated as that save would validate it (400 with the same fields, under `settings.`), so unsaved changes can be previewed. Nothing is stored or sent. 404 for a template the program type does not have.',
  body: emailTemplateDraft,
  response: emailPreview,
  handler: ({ body, params, program, deps }) => previewEmail(deps, program!, templateParam(params.template), body),
});

/** EP2 `POST /campaign/{id}/emails/{template}/test` (refloop extension). */
export const sendEmailTemplateTest = operation({
  id: 'EP2',
  name: 'campaigns.emails.test',
  method: 'POST',
  path: '/campaign/:id/emails/:template/test',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'refloop extension. Sends the template as EP1 renders it (with the draft copy and `settings` sent, whose sender name and reply-to address it also uses; nothing is stored), its subject prefixed "[Test]", to `to`, which must be the address of a member of the program’s team (400 otherwise). At most 20 tests per team per hour (429 TEST_EMAIL).',
  body: emailTestBody,
  response: emailTestResult,
  handler: async ({ body, params, program, deps }) => {
    const key = templateParam(params.template);
    const { to, ...draft } = body;
    const charge = () => deps.limits.enforce(deps.limits.testEmails, program!.teamId, 'TEST_EMAIL', `This team may send at most ${TEST_EMAILS_PER_HOUR} test emails per hour.`);
    return sendTestEmail(deps, program!, key, draft, to, charge);
  },
});
