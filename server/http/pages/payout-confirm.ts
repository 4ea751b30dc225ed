import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import { esc } from './html.ts';
import { actionOf, linkPage } from './affiliate-invite.ts';
import { completeDocument } from '../../domain/program-config.ts';
import type { Program } from '../../domain/programs.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../../shared/schemas/affiliate.ts';

/** The page's words: the program's `design.payoutDestinationConfirmation` where set, else these. */
const DEFAULTS: Record<string, string> = {
  headline: 'Confirm your {{payoutProvider}} payout details',
  description: 'Enter the {{payoutProvider}} email address your payouts should go to.',
  emailLabel: '{{payoutProvider}} email address',
  emailAgainLabel: 'The same email address again',
  legalNameLabel: 'Legal name of the recipient',
  legalTypeLabel: 'Recipient type',
  legalTypeIndividual: 'Individual',
  legalTypeBusiness: 'Business',
  button: 'Confirm',
  success: 'Thanks! Your {{payoutProvider}} payout details are confirmed.',
  invalidEmail: 'Enter a valid email address.',
  emailMismatch: 'The two email addresses are not the same.',
  tokenExpired: 'This confirmation link has expired. Request a new one.',
  tokenUsed: 'This confirmation link was already used.',
  alreadyConfirmed: 'These payout details are already confirmed.',
  generic: 'This confirmation link is not valid. Request a new one.',
};

function words(program: Program | null, provider: string): (key: string) => string {
  const d = program ? ((completeDocument('design', program, program.documents.design) as any).payoutDestinationConfirmation ?? {}) : {};
  return (key) => esc((d[key] ?? d.errorMessages?.[key] ?? DEFAULTS[key] ?? '').replace(/\{\{\s*payoutProvider\s*\}\}/g, provider));
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
  const linkError = (reason: string) => ({ status: reason === 'tokenExpired' ? 410 : 400, title: 'Link not valid', body: `<h1>Payout confirmation</h1><p class="error" role="alert">${words(null, 'payout')(reason)}</p>` });
  return linkPage(deps, '/payout-confirm', {
    async get(token) {
      const t = await deps.payoutDestinations.target(token);
      if (!t.ok) return linkError(t.reason);
      const w = words(t.program, PROVIDER_DISPLAY_NAMES[t.provider]);
      return { title: 'Confirm payout details', body: `<h1>${w('headline')}</h1><p>${w('description')}</p><p>Account: ${esc(t.email)}</p>${form(token, w)}` };
    },
    async post(token, body) {
      const t = await deps.payoutDestinations.target(token);
      if (!t.ok) return linkError(t.reason);
      const w = words(t.program, PROVIDER_DISPLAY_NAMES[t.provider]);
      const values = { email: body.get('email') ?? '', emailAgain: body.get('emailAgain') ?? '', legalName: body.get('legalName') ?? '', legalEntityType: body.get('legalEntityType') ?? '' };
      const errors = await deps.payoutDestinations.confirm(token, values);
      if (errors?.token) return linkError(errors.token);
      if (errors) return { status: 400, title: 'Confirm payout details', body: `<h1>${w('headline')}</h1>${form(token, w, errors, values)}` };
      return { title: 'Payout details confirmed', body: `<h1>${w('headline')}</h1><p class="notice" role="status">${w('success')}</p>` };
    },
  });
}
