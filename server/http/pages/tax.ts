import type Koa from 'koa';
import type { Deps } from '../deps.ts';
import { esc } from './html.ts';
import { actionOf, linkPage, ph, refusal, type PageAnswer } from './affiliate-invite.ts';
import { readerOf, type Reader } from './reader-language.ts';

/** The answer for a link that expired or was used, in the reader's language. */
const expired = (r: Reader): PageAnswer => refusal(r, 400, 'page.linkInvalid', 'tax.title', ph(r, 'tax.expired'));

/** The error codes TaxInfo.submit gives per field, each a catalogue message `tax.error.<code>`. */
const ERRORS = ['formType', 'country', 'w9NotUs', 'w8Us', 'legalName', 'usTin', 'foreignTin', 'vat', 'certify'] as const;
const isError = (code: string): code is (typeof ERRORS)[number] => (ERRORS as readonly string[]).includes(code);

/**
 * `/tax?token=…`: the hosted tax form (mobile rule 9), reached by requestTaxInfoSession's signed
 * link. The tax id number field is validated for shape and dropped: it is never stored, logged or
 * shown again (not even when the form comes back with errors).
 */
export function taxPage(deps: Deps): Koa.Middleware {
  const form = (r: Reader, token: string, values: Record<string, string>, errors: Record<string, string> = {}) => {
    const err = (f: string) => {
      const code = errors[f];
      return code ? `<p class="error" role="alert" id="${f}-error">${isError(code) ? ph(r, `tax.error.${code}`) : esc(code)}</p>` : '';
    };
    const checked = (v: string) => (values.formType === v ? ' checked' : '');
    return `<form method="post" action="${actionOf('/tax', token)}" autocomplete="off">
<fieldset><legend>${ph(r, 'tax.legend')}</legend>
<label><input type="radio" name="formType" value="W9"${checked('W9')}> ${ph(r, 'tax.w9')}</label>
<label><input type="radio" name="formType" value="W8"${checked('W8')}> ${ph(r, 'tax.w8')}</label></fieldset>${err('formType')}
<label for="legalName">${ph(r, 'tax.legalName')}</label><input type="text" id="legalName" name="legalName" maxlength="255" required value="${esc(values.legalName ?? '')}">${err('legalName')}
<label for="residencyCountryCode">${ph(r, 'tax.country')}</label><input type="text" id="residencyCountryCode" name="residencyCountryCode" maxlength="2" pattern="[A-Za-z]{2}" required value="${esc(values.residencyCountryCode ?? '')}">${err('residencyCountryCode')}
<label for="taxId">${ph(r, 'tax.taxId')}</label><input type="password" id="taxId" name="taxId" required autocomplete="off">${err('taxId')}
<label for="vatNumber">${ph(r, 'tax.vat')}</label><input type="text" id="vatNumber" name="vatNumber" maxlength="32" value="${esc(values.vatNumber ?? '')}">${err('vatNumber')}
<label><input type="checkbox" name="certify" value="yes"${values.certify ? ' checked' : ''}> ${ph(r, 'tax.certify')}</label>${err('certify')}
<button type="submit">${ph(r, 'tax.submit')}</button>
</form>`;
  };
  return linkPage(deps, '/tax', {
    async get(token, accept) {
      const target = await deps.taxInfo.pageTarget(token);
      if (!target) return expired(readerOf(accept));
      const { row } = target;
      const r = readerOf(accept, target.program, target.participant);
      const values = { formType: row.form_type ?? '', legalName: row.legal_name ?? '', residencyCountryCode: row.residency_country ?? '', vatNumber: row.vat_number ?? '' };
      return { title: r.t('tax.title'), body: `<h1>${ph(r, 'tax.title')}</h1><p>${ph(r, 'tax.intro')}</p>${form(r, token, values)}`, language: r.language };
    },
    async post(token, body, accept) {
      // Read before the submission uses the link up: the answer speaks the participant's language.
      const target = await deps.taxInfo.pageTarget(token);
      const r = target ? readerOf(accept, target.program, target.participant) : readerOf(accept);
      const values = {
        formType: body.get('formType') ?? '',
        legalName: body.get('legalName') ?? '',
        residencyCountryCode: body.get('residencyCountryCode') ?? '',
        vatNumber: body.get('vatNumber') ?? '',
        certify: body.get('certify') ? 'yes' : '',
      };
      const errors = await deps.taxInfo.submit(token, { ...values, taxId: body.get('taxId') ?? '', certify: !!values.certify });
      if (errors?.token) return expired(r);
      if (errors) return { status: 400, title: r.t('tax.title'), body: `<h1>${ph(r, 'tax.title')}</h1>${form(r, token, values, errors)}`, language: r.language };
      return { title: r.t('tax.received.title'), body: `<h1>${ph(r, 'tax.received.heading')}</h1><p class="notice" role="status">${ph(r, 'tax.received.body')}</p>`, language: r.language };
    },
  });
}
