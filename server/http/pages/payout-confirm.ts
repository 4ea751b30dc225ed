import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import { esc } from './html.ts';
import { actionOf, linkPage, ph } from './affiliate-invite.ts';
import { readerOf, type Reader } from './reader-language.ts';
import { completeDocument } from '../../domain/programs/program-config.ts';
import { readTranslation, type Translation } from '../../domain/programs/program-translations.ts';
import { withOverrides } from '../../../shared/program-translations.ts';
import type { Program } from '../../domain/programs/programs.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../../shared/schemas/affiliate.ts';

/** The page's texts a program may word itself (`design.payoutDestinationConfirmation`); their defaults are the catalogue's `payout.<name>`. */
const WORDS = ['headline', 'description', 'emailLabel', 'emailAgainLabel', 'legalNameLabel', 'legalTypeLabel', 'legalTypeIndividual', 'legalTypeBusiness', 'button', 'success', 'invalidEmail', 'emailMismatch', 'tokenExpired', 'tokenUsed', 'alreadyConfirmed', 'generic'] as const;
const isWord = (key: string): key is (typeof WORDS)[number] => (WORDS as readonly string[]).includes(key);

/**
 * The page's words as HTML: the owner's text for the reader's language (issue #27, `translation`),
 * else the program's `design.payoutDestinationConfirmation` where set (the owner's text, as written),
 * else the catalogue's in the reader's language.
 */
function words(r: Reader, program: Program | null, provider: string, translation: Translation | null = null): (key: string) => string {
  const design = program ? withOverrides('design', program.type, completeDocument('design', program, program.documents.design), translation?.design) : null;
  const d = design ? ((design as any).payoutDestinationConfirmation ?? {}) : {};
  return (key) => {
    const own = d[key] ?? d.errorMessages?.[key];
    if (own != null) return esc(String(own).replace(/\{\{\s*payoutProvider\s*\}\}/g, provider));
    return isWord(key) ? esc(r.t(`payout.${key}`, { payoutProvider: provider })) : '';
  };
}

/** `/payout-confirm?token=…`: where a participant confirms a payout destination (P15's one-time link). */
export function payoutConfirmPage(deps: Deps): Koa.Middleware {
  const form = (token: string, w: (k: string) => string, errors: Record<string, string> = {}, values: Record<string, string> = {}) => {
    const err = (f: string) => (errors[f] ? `<p class="error" role="alert" id="${f}-error">${w(errors[f]!)}</p>` : '');
    return `<form method="post" action="${actionOf('/payout-confirm', token)}">
<label for="email">${w('emailLabel')}</label><input type="email" id="email" name="email" required autocomplete="email" value="${esc(values.email ?? '')}">${err('email')}
<label for="emailAgain">${w('emailAgainLabel')}</label><input type="email" id="emailAgain" name="emailAgain" required value="${esc(values.emailAgain ?? '')}">${err('emailAgain')}
<label for="legalName">${w('legalNameLabel')}</label><input type="text" id="legalName" name="legalName" required maxlength="255" autocomplete="name" value="${esc(values.legalName ?? '')}">${err('legalName')}
<fieldset><legend>${w('legalTypeLabel')}</legend>
<label><input type="radio" name="legalEntityType" value="INDIVIDUAL"${values.legalEntityType !== 'BUSINESS' ? ' checked' : ''}> ${w('legalTypeIndividual')}</label>
<label><input type="radio" name="legalEntityType" value="BUSINESS"${values.legalEntityType === 'BUSINESS' ? ' checked' : ''}> ${w('legalTypeBusiness')}</label></fieldset>
<button type="submit">${w('button')}</button>
</form>`;
  };
  const linkError = (r: Reader, reason: string) => ({
    status: reason === 'tokenExpired' ? 410 : 400,
    title: r.t('page.linkInvalid'),
    body: `<h1>${ph(r, 'payout.linkHeading')}</h1><p class="error" role="alert">${words(r, null, '')(reason)}</p>`,
    language: r.language,
  });
  return linkPage(deps, '/payout-confirm', {
    async get(token, accept) {
      const target = await deps.payoutDestinations.target(token);
      if (!target.ok) return linkError(readerOf(accept), target.reason);
      const r = readerOf(accept, target.program, { language: target.language });
      const w = words(r, target.program, PROVIDER_DISPLAY_NAMES[target.provider], await readTranslation(deps.db, deps.db.knex, target.program, r.language));
      return { title: r.t('payout.title'), body: `<h1>${w('headline')}</h1><p>${w('description')}</p><p>${ph(r, 'payout.account', { email: target.email })}</p>${form(token, w)}`, language: r.language };
    },
    async post(token, body, accept) {
      const target = await deps.payoutDestinations.target(token);
      if (!target.ok) return linkError(readerOf(accept), target.reason);
      const r = readerOf(accept, target.program, { language: target.language });
      const w = words(r, target.program, PROVIDER_DISPLAY_NAMES[target.provider], await readTranslation(deps.db, deps.db.knex, target.program, r.language));
      const values = { email: body.get('email') ?? '', emailAgain: body.get('emailAgain') ?? '', legalName: body.get('legalName') ?? '', legalEntityType: body.get('legalEntityType') ?? '' };
      const errors = await deps.payoutDestinations.confirm(token, values);
      if (errors?.token) return linkError(r, errors.token);
      if (errors) return { status: 400, title: r.t('payout.title'), body: `<h1>${w('headline')}</h1>${form(token, w, errors, values)}`, language: r.language };
      return { title: r.t('payout.confirmed.title'), body: `<h1>${w('headline')}</h1><p class="notice" role="status">${w('success')}</p>`, language: r.language };
    },
  });
}
