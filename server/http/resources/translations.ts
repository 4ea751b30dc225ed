import { operation } from '../operation.ts';
import { programTranslation, programTranslationList, programTranslationUpdate } from '../../../shared/schemas/program-translations.ts';

// An owner's own texts per program language (refloop extensions TR1, TR2; issue #27, docs/decisions.md
// "Owners' texts per program language"): the reference describes no per-language texts, so these
// are ours, checked by shared/program-translations.ts and stored by ProgramTranslations.

/** TR1 `GET /campaign/{id}/translations` (refloop extension). */
export const getTranslations = operation({
  id: 'TR1',
  name: 'campaigns.translations.get',
  method: 'GET',
  path: '/campaign/:id/translations',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary:
    'refloop extension. The owner’s own texts per program language: the base language (whose texts are the design and emails documents) and, for every additional language of the program (options `languages.additionalLanguages`), the overrides set for it (`{design: {}, emails: {}}` when none). A reader of an additional language (the participant’s `language`, else the browser’s best match among the program’s languages) sees, for each translatable text, its override; else, where the base text is the unedited default, the default copy in that language; else the base text. A language removed from the options keeps its texts, unlisted and unserved; adding it back brings them back.',
  response: programTranslationList,
  handler: ({ program, deps }) => deps.programTranslations.list(program!),
});

/** TR2 `PATCH /campaign/{id}/translations/{language}` (refloop extension). */
export const updateTranslation = operation({
  id: 'TR2',
  name: 'campaigns.translations.update',
  method: 'PATCH',
  path: '/campaign/:id/translations/:language',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'refloop extension. Changes one additional language’s own texts by deep partial merge (objects merge, a text replaces, `null` removes an override) and answers that language’s `{design, emails}`. 400 when `{language}` is not one of the program’s additional languages (the base language’s texts are the documents themselves), when a key is not a translatable text of the program type’s document (NOT_TRANSLATABLE, naming the path such as `design.theme.primaryColor`), or when a text breaks its base field’s rule (length; blank where the base field refuses blank); nothing is written then. Translatable: the plain texts of the design and emails documents an owner writes; never colours, URLs, enums, ids, the sender, the postal address or the company name. Sign-up field texts are keyed by the field’s `key` (`design.signup.fields.email.label`).',
  body: programTranslationUpdate,
  response: programTranslation,
  handler: ({ body, params, program, deps }) => deps.programTranslations.update(program!, params.language!, body),
});
