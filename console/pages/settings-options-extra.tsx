// The options that are more than a plain field: the minimum payout typed in currency units, the
// program's languages, the payout providers, the application form's questions and the write-only
// reCAPTCHA secret.
import { plainFieldMessage } from '../field-messages.ts';
import { MoneyInput, currencyDigits, fromMinor } from '../money-input.tsx';
import { t, type MessageKey } from '../i18n/index.ts';
import { CheckField, SelectField, TextField, fieldErrors } from './settings-kit.tsx';
import { lines, type Draft } from './settings-spec.tsx';
import { ANSWER_TYPES, CHOICE_TYPES, PAYOUT_PROVIDERS, PROGRAM_LANGUAGES } from './settings-options-spec.ts';
import type { CampaignOptions } from '../../shared/schemas/program-config-options.ts';
import type { ApplicationQuestion } from '../../shared/schemas/affiliate.ts';

type D = Draft<CampaignOptions>;

/** The minimum payout in the program currency's units, saved as integer minor units. */
export function PayoutThreshold({ d, currency }: { d: D; currency: string }) {
  const digits = currencyDigits(currency);
  const saved = d.doc.payoutThreshold;
  return (
    <MoneyInput
      id="o-payoutThreshold"
      field="payoutThreshold"
      error={d.error}
      label={t('op.payoutThreshold', { currency })}
      hint={t('op.payoutThreshold.hint', { example: fromMinor(25 * 10 ** digits + (digits ? 5 * 10 ** (digits - 1) : 0), digits) })}
      currency={currency}
      minor={typeof saved === 'number' && saved > 0 ? saved : null}
      onChange={(v) => d.set('payoutThreshold', v)}
    />
  );
}

const languageName = (code: string) => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
};

/** The base language and the additional ones (the 14 codes the API knows). */
export function Languages({ d }: { d: D }) {
  const { baseLanguage, additionalLanguages } = d.doc.languages;
  const others = PROGRAM_LANGUAGES.filter((l) => l !== baseLanguage);
  return (
    <>
      <SelectField
        id="o-languages.baseLanguage"
        field="languages.baseLanguage"
        error={d.error}
        label={t('op.baseLanguage')}
        value={baseLanguage}
        options={PROGRAM_LANGUAGES.map((l) => [l, `${languageName(l)} (${l})`] as const)}
        onChange={(v) => d.set('languages', { baseLanguage: v, additionalLanguages: additionalLanguages.filter((l) => l !== v) })}
      />
      <fieldset class="bare">
        <legend class="sub">{t('op.additionalLanguages')}</legend>
        <div class="check-grid">
          {others.map((l) => (
            <CheckField
              key={l}
              id={`o-lang-${l}`}
              field="languages.additionalLanguages"
              error={null}
              label={`${languageName(l)} (${l})`}
              checked={additionalLanguages.includes(l)}
              onChange={(on) => d.set('languages', { baseLanguage, additionalLanguages: on ? PROGRAM_LANGUAGES.filter((x) => x === l || additionalLanguages.includes(x)) : additionalLanguages.filter((x) => x !== l) })}
            />
          ))}
        </div>
        {fieldErrors(d.error, 'languages.additionalLanguages').map((e) => (
          <p class="field-error" key={e.message} data-field="languages.additionalLanguages">
            {plainFieldMessage(e)}
          </p>
        ))}
      </fieldset>
    </>
  );
}

/** Payout providers participants may confirm a destination for, and whether tax details come first. */
export function PayoutSettings({ d, affiliate }: { d: D; affiliate: boolean }) {
  const enabled = d.doc.payoutSettings.enabledProviders;
  return (
    <>
      <fieldset class="bare">
        <legend class="sub">{t('op.providers')}</legend>
        {PAYOUT_PROVIDERS.filter((p) => affiliate || p !== 'WISECOM').map((p) => (
          <CheckField
            key={p}
            id={`o-provider-${p}`}
            field="payoutSettings.enabledProviders"
            error={null}
            label={t(`op.provider.${p}` as MessageKey)}
            checked={enabled.includes(p)}
            onChange={(on) => d.set('payoutSettings.enabledProviders', on ? PAYOUT_PROVIDERS.filter((x) => x === p || enabled.includes(x)) : enabled.filter((x) => x !== p))}
          />
        ))}
        {fieldErrors(d.error, 'payoutSettings.enabledProviders').map((e) => (
          <p class="field-error" key={e.message} data-field="payoutSettings.enabledProviders">
            {plainFieldMessage(e)}
          </p>
        ))}
      </fieldset>
      <CheckField
        id="o-payoutSettings.requireTaxInfo"
        field="payoutSettings.requireTaxInfo"
        error={d.error}
        label={t('op.requireTaxInfo')}
        hint={t('op.requireTaxInfo.hint')}
        checked={d.doc.payoutSettings.requireTaxInfo}
        onChange={(v) => d.set('payoutSettings.requireTaxInfo', v)}
      />
    </>
  );
}

/** The application form's questions: add, edit, move and remove; the array is sent whole. */
export function Questions({ d }: { d: D }) {
  const form = d.doc.affiliateApplicationForm;
  if (!form) return null;
  const qs = form.questions;
  const put = (next: ApplicationQuestion[]) => d.set('affiliateApplicationForm.questions', next);
  const edit = (i: number, patch: Partial<ApplicationQuestion>) => put(qs.map((q, j) => (j === i ? { ...q, ...patch } : q)));
  const move = (i: number, by: number) => {
    const next = [...qs];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    put(next);
  };
  const f = (i: number) => `affiliateApplicationForm.questions.${i}`;
  return (
    <fieldset class="bare questions">
      <legend class="sub">{t('op.questions')}</legend>
      {qs.length === 0 && <p class="hint">{t('op.noQuestions')}</p>}
      <ol>
        {qs.map((q, i) => (
          <li key={i} class="question">
            <TextField id={`o-q${i}-label`} field={`${f(i)}.label`} error={d.error} label={t('op.q.label', { n: i + 1 })} value={q.label} onInput={(v) => edit(i, { label: v })} />
            <TextField id={`o-q${i}-id`} field={`${f(i)}.fieldId`} error={d.error} label={t('op.q.fieldId', { n: i + 1 })} hint={t('op.q.fieldIdHint')} value={q.fieldId} onInput={(v) => edit(i, { fieldId: v })} />
            <SelectField
              id={`o-q${i}-type`}
              field={`${f(i)}.type`}
              error={d.error}
              label={t('op.q.type', { n: i + 1 })}
              value={q.type}
              options={ANSWER_TYPES.map((a) => [a, t(`op.answer.${a}` as MessageKey)] as const)}
              onChange={(v) => edit(i, { type: v as ApplicationQuestion['type'], options: CHOICE_TYPES.includes(v) ? (q.options ?? []) : undefined })}
            />
            {CHOICE_TYPES.includes(q.type) && (
              <TextField
                id={`o-q${i}-options`}
                field={`${f(i)}.options`}
                error={d.error}
                label={t('op.q.options', { n: i + 1 })}
                hint={t('options.oneALine')}
                multiline
                value={d.text(`${f(i)}.options`, (q.options ?? []).join('\n'))}
                onInput={(v) => {
                  d.setText(`${f(i)}.options`, v);
                  edit(i, { options: lines(v) });
                }}
              />
            )}
            <CheckField id={`o-q${i}-required`} field={`${f(i)}.isRequired`} error={d.error} label={t('op.q.required', { n: i + 1 })} checked={q.isRequired} onChange={(v) => edit(i, { isRequired: v })} />
            <div class="buttons">
              <button type="button" class="secondary" disabled={i === 0} onClick={() => move(i, -1)}>
                {t('op.q.up', { n: i + 1 })}
              </button>
              <button type="button" class="secondary" disabled={i === qs.length - 1} onClick={() => move(i, 1)}>
                {t('op.q.down', { n: i + 1 })}
              </button>
              <button type="button" class="secondary" onClick={() => put(qs.filter((_, j) => j !== i))}>
                {t('op.q.remove', { n: i + 1 })}
              </button>
            </div>
          </li>
        ))}
      </ol>
      <button type="button" class="secondary" disabled={qs.length >= 20} onClick={() => put([...qs, { fieldId: `question${qs.length + 1}`, label: '', type: 'text', isRequired: false }])}>
        {t('op.q.add')}
      </button>
    </fieldset>
  );
}

/** The reCAPTCHA secret: write-only, so the field starts empty and is sent only when something is typed. */
export function RecaptchaSecret({ d }: { d: D }) {
  return (
    <TextField
      id="o-fraud.recaptcha.secretKey"
      field="fraud.recaptcha.secretKey"
      error={d.error}
      label={t('op.recaptchaSecret')}
      hint={t('op.recaptchaSecret.hint')}
      value={d.text('fraud.recaptcha.secretKey', '')}
      onInput={(v) => {
        d.setText('fraud.recaptcha.secretKey', v);
        d.set('fraud.recaptcha.secretKey', v.trim() === '' ? undefined : v.trim());
      }}
    />
  );
}
