// The server pages' two message catalogues (issue #23), on the machinery the console uses too
// (shared/i18n): the owner pages' (English; what the console says too comes from
// shared/i18n/en-owner.ts) and the participant pages' (per language, English complete; issue #27
// adds languages and picks the program's).
import { languages, translator, type Message, type Translate } from '../../../../shared/i18n/index.ts';
import { enOwner } from '../../../../shared/i18n/en-owner.ts';
import { enPage } from './en-page.ts';
import { enAccount } from './en-account.ts';
import { enTeam } from './en-team.ts';
import { enSite } from './en-site.ts';
import { enOAuth } from './en-oauth.ts';
import { enTwoFactor } from './en-two-factor.ts';
import { enParticipant } from './en-participant.ts';
import { enLanding } from './en-landing.ts';
import { esParticipant } from './es-participant.ts';
import { frParticipant } from './fr-participant.ts';
import { deParticipant } from './de-participant.ts';
import { itParticipant } from './it-participant.ts';
import { ptBRParticipant } from './pt-BR-participant.ts';
import { nlParticipant } from './nl-participant.ts';
import { plParticipant } from './pl-participant.ts';
import { svParticipant } from './sv-participant.ts';
import { trParticipant } from './tr-participant.ts';
import { jaParticipant } from './ja-participant.ts';
import { koParticipant } from './ko-participant.ts';
import { zhCNParticipant } from './zh-CN-participant.ts';
import { idParticipant } from './id-participant.ts';

/** The owner pages' whole catalogue: sign-in to keys and members, the landing page, the outbox, OAuth consent. */
export const ownerMessages = { ...enOwner, ...enPage, ...enAccount, ...enTeam, ...enSite, ...enOAuth, ...enTwoFactor };
/** A key of the owner pages' catalogue. */
export type OwnerKey = keyof typeof ownerMessages;
/** The owner pages' translate function (English). */
export const t: Translate<OwnerKey> = translator(ownerMessages);

/** The participant pages' English, complete: the share link, hosted landing page and portal, unsubscribe, payout confirmation, tax form, affiliate invite. */
export const participantEnglish = { ...enPage, ...enParticipant, ...enLanding };
/** A key of the participant pages' catalogue. */
export type ParticipantKey = keyof typeof participantEnglish;
/** One language's participant pages, every key English has (test/shared/program-languages.test.ts checks none is missing, empty or extra). */
export type ParticipantCatalogue = { readonly [K in ParticipantKey]: Message };
/** The participant pages' translations by program language code (English is `participantEnglish`). */
export const participantTranslations: Readonly<Record<string, ParticipantCatalogue>> = {
  es: esParticipant,
  fr: frParticipant,
  de: deParticipant,
  it: itParticipant,
  'pt-BR': ptBRParticipant,
  nl: nlParticipant,
  pl: plParticipant,
  sv: svParticipant,
  tr: trParticipant,
  ja: jaParticipant,
  ko: koParticipant,
  'zh-CN': zhCNParticipant,
  id: idParticipant,
};
/** The participant pages' catalogue in all 14 program languages. */
export const participantMessages = languages(participantEnglish, participantTranslations);
/** The participant pages' translate function in `language` (a program's language code; English when unknown or not given). */
export function participantText(language?: string | null): Translate<ParticipantKey> {
  return participantMessages.in(language);
}
