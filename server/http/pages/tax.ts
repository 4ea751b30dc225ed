import type Koa from 'koa';
import type { Deps } from '../../deps.ts';
import { esc } from './html.ts';
import { actionOf, linkPage, type PageAnswer } from './affiliate-invite.ts';

const EXPIRED: PageAnswer = {
  status: 400,
  title: 'Link not valid',
  body: '<h1>Tax information</h1><p class="error" role="alert">This link has expired or was already used. Request a new one from the program window.</p>',
};

/**
 * `/tax?token=…`: the hosted tax form (mobile rule 9), reached by requestTaxInfoSession's signed
 * link. The tax id number field is validated for shape and dropped: it is never stored, logged or
 * shown again (not even when the form comes back with errors).
 */
export function taxPage(deps: Deps): Koa.Middleware {
  const form = (token: string, values: Record<string, string>, errors: Record<string, string> = {}) => {
    const err = (f: string) => (errors[f] ? `<p class="error" role="alert" id="${f}-error">${esc(errors[f])}</p>` : '');
    const checked = (v: string) => (values.formType === v ? ' checked' : '');
    return `<form method="post" action="${actionOf('/tax', token)}" autocomplete="off">
<fieldset><legend>Tax form</legend>
<label><input type="radio" name="formType" value="W9"${checked('W9')}> W-9 (US person)</label>
<label><input type="radio" name="formType" value="W8"${checked('W8')}> W-8 (not a US person)</label></fieldset>${err('formType')}
<label for="legalName">Legal name</label><input type="text" id="legalName" name="legalName" maxlength="255" required value="${esc(values.legalName ?? '')}">${err('legalName')}
<label for="residencyCountryCode">Country of tax residence (two-letter code, e.g. US, DE)</label><input type="text" id="residencyCountryCode" name="residencyCountryCode" maxlength="2" pattern="[A-Za-z]{2}" required value="${esc(values.residencyCountryCode ?? '')}">${err('residencyCountryCode')}
<label for="taxId">Taxpayer identification number (SSN, ITIN, EIN or foreign TIN; checked, never stored)</label><input type="password" id="taxId" name="taxId" required autocomplete="off">${err('taxId')}
<label for="vatNumber">VAT number (optional)</label><input type="text" id="vatNumber" name="vatNumber" maxlength="32" value="${esc(values.vatNumber ?? '')}">${err('vatNumber')}
<label><input type="checkbox" name="certify" value="yes"${values.certify ? ' checked' : ''}> I certify that this information is correct.</label>${err('certify')}
<button type="submit">Submit</button>
</form>`;
  };
  return linkPage(deps, '/tax', {
    async get(token) {
      const t = await deps.taxInfo.pageTarget(token);
      if (!t) return EXPIRED;
      const values = { formType: t.row.form_type ?? '', legalName: t.row.legal_name ?? '', residencyCountryCode: t.row.residency_country ?? '', vatNumber: t.row.vat_number ?? '' };
      return { title: 'Tax information', body: `<h1>Tax information</h1><p>We need this before we can send payouts. Your taxpayer identification number is checked and never stored.</p>${form(token, values)}` };
    },
    async post(token, body) {
      const values = {
        formType: body.get('formType') ?? '',
        legalName: body.get('legalName') ?? '',
        residencyCountryCode: body.get('residencyCountryCode') ?? '',
        vatNumber: body.get('vatNumber') ?? '',
        certify: body.get('certify') ? 'yes' : '',
      };
      const errors = await deps.taxInfo.submit(token, { ...values, taxId: body.get('taxId') ?? '', certify: !!values.certify });
      if (errors?.token) return EXPIRED;
      if (errors) return { status: 400, title: 'Tax information', body: `<h1>Tax information</h1>${form(token, values, errors)}` };
      return { title: 'Tax information received', body: '<h1>Thank you</h1><p class="notice" role="status">Your tax information was received.</p>' };
    },
  });
}
