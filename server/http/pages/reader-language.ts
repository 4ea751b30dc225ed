// The language of a hosted participant page (issue #27): who reads it decides, through the one rule
// in shared/program-language.ts, and the page is rendered with that language's translate function.
import { chooseLanguage } from '../../../shared/program-language.ts';
import { programLanguages } from '../../domain/participants/model.ts';
import type { Program } from '../../domain/programs/programs.ts';
import { participantText, type ParticipantKey } from './i18n/index.ts';
import type { Translate } from '../../../shared/i18n/index.ts';

/** A page's language and the participant catalogue's translate function in it. */
export interface Reader {
  language: string;
  t: Translate<ParticipantKey>;
}

/**
 * The reader of a page: a known participant (`participant` given: their language, else the
 * program's base), else a visitor (the browser's best match among the program's languages, else the
 * base). Without a program (a broken link), the browser's best match among all languages, else English.
 */
export function readerOf(acceptLanguage: string | undefined, program?: Program | null, participant?: { language?: string | null } | null): Reader {
  const langs = program ? programLanguages(program) : null;
  const language = chooseLanguage({
    ...(participant ? { participant: participant.language ?? null } : {}),
    base: langs?.base ?? null,
    offered: langs?.all ?? null,
    acceptLanguage: acceptLanguage ?? null,
  });
  return { language, t: participantText(language) };
}
