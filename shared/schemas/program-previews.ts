// Previews of a program's copy before it is saved (refloop extensions for the owner console, issue
// #23): signed links to the widget preview pages, an email template rendered with sample values,
// and the same email sent as a test to a member of the team.
import { z } from 'zod';
import { EMAIL_TEMPLATE_KEYS, PROGRAM_LANGUAGES } from './program-config-fields.ts';
import { campaignEmailsUpdate } from './program-config.ts';

/** DP1 response: the signed preview pages of the program's real widget. */
export const designPreviewLinks = z
  .object({
    referrerUrl: z.string().meta({ description: "The referrer's window with a sample participant signed in." }),
    referredFriendUrl: z.string().meta({ description: 'What a friend who arrived through a referral link sees.' }),
    expiresAt: z.string().meta({ description: 'ISO 8601: when both links stop working (one hour after they were made).' }),
    design: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          'refloop extension (issue #27), only with `language`: the saved design (a complete CampaignDesign) as readers of that language see it before the owner’s own texts for it, that is with every unedited default text in that language. A console lays unsaved texts for the language over it and posts the result to the framed page.',
      }),
  })
  .meta({
    id: 'DesignPreviewLinks',
    description:
      'refloop extension. Same-origin pages may post `{type: "refloop.preview.design", design}` (a complete CampaignDesign) to a framed preview page to show an unsaved design; the page posts `{type: "refloop.preview.ready"}` to its parent when it can receive one.',
  });

/** CF3 query (refloop extension, issue #27). */
export const emailsQuery = z.object({
  language: z
    .enum(PROGRAM_LANGUAGES)
    .optional()
    .meta({
      description:
        'refloop extension (issue #27): the document as a reader of this program language gets it without the owner’s own texts for that language (one of the program’s languages; 400 otherwise): unedited default texts in that language, the owner’s base texts as written. What the owner’s texts for it (`GET /campaign/{id}/translations`) are laid over. Default: the base language.',
    }),
});

/** DP1 query. */
export const designPreviewQuery = z.object({
  language: z
    .enum(PROGRAM_LANGUAGES)
    .optional()
    .meta({
      description:
        'refloop extension (issue #27): draw the preview pages as a reader of this program language sees them (one of the program’s languages; 400 otherwise): the window’s own words in it, the design’s unedited default texts in it and the owner’s own texts for it (`GET /campaign/{id}/translations`). The links carry it under their signature. Default: the base language.',
    }),
});

/** The `:template` parameter of EP1 and EP2. */
export const emailTemplateKey = z.enum(EMAIL_TEMPLATE_KEYS);

/**
 * Unsaved changes to the settings every email shares: exactly what CF4 takes under `settings` (the
 * same schema, so a draft the save would refuse is refused here with the same fields).
 */
export const emailSettingsDraft = ((campaignEmailsUpdate as unknown as z.ZodObject).shape.settings as z.ZodOptional<z.ZodObject>).unwrap().meta({
  id: 'EmailSettingsDraft',
  description:
    'refloop extension. Unsaved changes to the emails document’s `settings` (sender, contact, design), as `PATCH /campaign/{id}/emails` takes them under `settings`: a deep partial merged over the saved settings and validated as that save would validate it. Nothing is stored.',
});

/** An unsaved version of a template's copy and of the shared email settings; parts not sent are the saved ones. */
export const emailTemplateDraft = z
  .strictObject({
    subject: z.string().max(255).optional(),
    preheader: z.string().max(255).optional(),
    body: z.string().max(50_000).optional(),
    settings: emailSettingsDraft.optional(),
    language: z
      .enum(PROGRAM_LANGUAGES)
      .optional()
      .meta({
        description:
          'refloop extension (issue #27): render as a participant of this program language reads it (one of the program’s languages; 400 otherwise): the owner’s own texts for it (`GET /campaign/{id}/translations`), else its default copy where the base text is unedited, else the base text; subject, preheader and body sent replace those. Default: the base language.',
      }),
  })
  .meta({
    id: 'EmailTemplateDraft',
    description: 'Unsaved copy of the template and unsaved email settings; every part is optional and defaults to the saved template and settings (in `language` when given).',
  });

/** EP1 response: the template as a participant would receive it, filled with sample values. */
export const emailPreview = z
  .object({
    subject: z.string(),
    preheader: z.string(),
    html: z.string().meta({ description: 'The complete HTML document, in the program’s email layout.' }),
    text: z.string().meta({ description: 'The plain-text part.' }),
  })
  .meta({ id: 'EmailPreview' });

/** EP2 body: the draft and who receives the test (a member of the program's team). */
export const emailTestBody = emailTemplateDraft
  .extend({ to: z.email().max(254).toLowerCase().meta({ description: 'Must be the address of a member of the program’s team.' }) })
  .meta({ id: 'EmailTestBody' });

/** EP2 response. */
export const emailTestResult = z
  .object({ success: z.literal(true), to: z.string(), subject: z.string().meta({ description: 'The subject as sent, with its "[Test]" prefix.' }) })
  .meta({ id: 'EmailTestResult' });

/** Unsaved email settings (a deep partial of the emails document's `settings`). */
export type EmailSettingsDraft = NonNullable<EmailTemplateDraft['settings']>;
/** An unsaved template draft. */
export type EmailTemplateDraft = z.infer<typeof emailTemplateDraft>;
/** A rendered template. */
export type EmailPreview = z.infer<typeof emailPreview>;
/** Signed widget preview links. */
export type DesignPreviewLinks = z.infer<typeof designPreviewLinks>;
