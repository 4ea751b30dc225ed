// An owner's own texts per program language (refloop extension, issue #27): the bodies of
// `GET /campaign/{id}/translations` and `PATCH /campaign/{id}/translations/{language}`. The deep
// check of a body (which keys are translatable texts, each text against its base field's rule) is
// shared/program-translations.ts, run by the domain service so each error names its full path.
import { z } from 'zod';
import { PROGRAM_LANGUAGES } from './program-config-fields.ts';

const overrides = (kind: 'design' | 'emails') =>
  z
    .record(z.string().max(100), z.unknown())
    .meta({
      description: `Overrides shaped like the ${kind} document, holding only the texts set for this language${kind === 'design' ? '; the sign-up fields are keyed by their `key` (`signup.fields.email.label`)' : ''}.`,
    });

/** One language's overrides. */
export const programTranslation = z
  .object({ design: overrides('design'), emails: overrides('emails') })
  .meta({
    id: 'ProgramTranslation',
    description:
      'refloop extension. One additional language’s own texts: for each translatable text (the copy an owner writes: headings, titles, button texts, descriptions, email subject, preheader, body and footer; never colours, URLs, enums, addresses or ids), the text readers of this language see instead of the base text. A text without an override reads as the base text, or, where that is the unedited default, the default copy in this language.',
  });

/** `GET /campaign/{id}/translations` response. */
export const programTranslationList = z
  .object({
    baseLanguage: z.enum(PROGRAM_LANGUAGES).meta({ description: 'The program’s base language: its texts are the design and emails documents themselves.' }),
    languages: z.partialRecord(z.enum(PROGRAM_LANGUAGES), programTranslation).meta({ description: 'One entry for every additional language of the program (options `languages.additionalLanguages`), `{design: {}, emails: {}}` when none is set.' }),
  })
  .meta({ id: 'ProgramTranslationList' });

/** `PATCH /campaign/{id}/translations/{language}` body. */
export const programTranslationUpdate = z
  .strictObject({
    design: z.record(z.string().max(100), z.unknown()).optional().meta({ description: 'A deep partial of the design overrides: objects merge, a text replaces, `null` removes an override.' }),
    emails: z.record(z.string().max(100), z.unknown()).optional().meta({ description: 'A deep partial of the emails overrides: objects merge, a text replaces, `null` removes an override.' }),
  })
  .meta({
    id: 'ProgramTranslationUpdate',
    description:
      'refloop extension. Every key must lead to a translatable text of the program type’s document (400 NOT_TRANSLATABLE naming the path, e.g. `design.theme.primaryColor`), and every text passes the rule of its base field (length; blank where the base field refuses blank). Nothing is written unless all of it is accepted.',
  });

/** One language's overrides. */
export type ProgramTranslation = z.infer<typeof programTranslation>;
