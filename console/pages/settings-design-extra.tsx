// The design setting that is more than a plain field: the sign-up form's list of fields (which
// fields, their labels, kinds, placeholders, whether required, and their order), sent whole because
// the API replaces arrays wholesale.
import { plainFieldMessage } from '../field-messages.ts';
import { t, type MessageKey } from '../i18n/index.ts';
import { CheckField, SelectField, TextField, fieldErrors } from './settings-kit.tsx';
import type { Draft } from './settings-spec.tsx';
import { SIGNUP_FIELD_TYPES } from './settings-design-spec.ts';
import type { CampaignDesign } from '../../shared/schemas/program-config-design.ts';

type SignupField = CampaignDesign['signup']['fields'][number];
/** The API's limit on the form's fields (signup.fields max). */
const MAX_FIELDS = 10;

/** The sign-up form's fields: add, edit, move and remove; the email field cannot be removed. */
export function SignupFields({ d }: { d: Draft }) {
  const doc = d.doc as CampaignDesign;
  const fields = doc.signup.fields;
  const put = (next: SignupField[]) => d.set('signup.fields', next);
  const edit = (i: number, patch: Partial<SignupField>) => put(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const move = (i: number, by: number) => {
    const next = [...fields];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    put(next);
  };
  const add = () => {
    const keys = new Set(fields.map((f) => f.key));
    let n = fields.length + 1;
    while (keys.has(`field${n}`)) n++;
    put([...fields, { key: `field${n}`, type: 'TEXT', label: '', placeholder: '', isRequired: false }]);
  };
  const f = (i: number) => `signup.fields.${i}`;
  // Problems with the list as a whole (no email field, a key twice, too many); a field's own problems show by its controls.
  const listErrors = fieldErrors(d.error, 'signup.fields').filter((e) => e.field === 'signup.fields');
  return (
    <fieldset class="bare questions" aria-describedby={listErrors.length ? 'ds-signup-fields-hint ds-signup-fields-error' : 'ds-signup-fields-hint'}>
      <legend class="sub">{t('ds.sf.title')}</legend>
      <p class="hint" id="ds-signup-fields-hint">
        {t('ds.sf.hint')}
      </p>
      {listErrors.length > 0 && (
        <p class="field-error" id="ds-signup-fields-error" data-field="signup.fields">
          {listErrors.map(plainFieldMessage).join(' ')}
        </p>
      )}
      <ol>
        {fields.map((field, i) => {
          const n = i + 1;
          const isEmail = field.key === 'email';
          return (
            <li key={i} class="question">
              <TextField id={`ds-sf${i}-label`} field={`${f(i)}.label`} error={d.error} label={t('ds.sf.label', { n })} value={field.label} onInput={(v) => edit(i, { label: v })} />
              <TextField id={`ds-sf${i}-placeholder`} field={`${f(i)}.placeholder`} error={d.error} label={t('ds.sf.placeholder', { n })} value={field.placeholder} onInput={(v) => edit(i, { placeholder: v })} />
              <SelectField
                id={`ds-sf${i}-type`}
                field={`${f(i)}.type`}
                error={d.error}
                label={t('ds.sf.type', { n })}
                value={field.type}
                options={SIGNUP_FIELD_TYPES.map((x) => [x, t(`ds.sf.type.${x}` as MessageKey)] as const)}
                onChange={(v) => edit(i, { type: v as SignupField['type'] })}
              />
              <TextField id={`ds-sf${i}-key`} field={`${f(i)}.key`} error={d.error} label={t('ds.sf.key', { n })} size={20} value={field.key} onInput={(v) => edit(i, { key: v })} />
              <CheckField id={`ds-sf${i}-required`} field={`${f(i)}.isRequired`} error={d.error} label={t('ds.sf.required', { n })} checked={field.isRequired} onChange={(v) => edit(i, { isRequired: v })} />
              <div class="buttons">
                <button type="button" class="secondary" disabled={i === 0} onClick={() => move(i, -1)}>
                  {t('ds.sf.up', { n })}
                </button>
                <button type="button" class="secondary" disabled={i === fields.length - 1} onClick={() => move(i, 1)}>
                  {t('ds.sf.down', { n })}
                </button>
                <button type="button" class="secondary" disabled={isEmail} onClick={() => put(fields.filter((_, j) => j !== i))}>
                  {t('ds.sf.remove', { n })}
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" class="secondary" disabled={fields.length >= MAX_FIELDS} onClick={add}>
        {t('ds.sf.add')}
      </button>
    </fieldset>
  );
}
