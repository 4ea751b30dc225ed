// Lazy chunk: the public affiliate application form (questions from the program's options).
// A submission that enrolls at once signs the new affiliate in.
import '../../i18n/en-signup.ts';
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import type { ApplicationField } from '../affiliate-types.ts';
import { ctx, me, refresh } from '../state.ts';
import { recaptchaField } from '../sign-ups.ts';
import { applicationForm, apply } from '../ops.ts';
import { Async } from '../kit.tsx';
import { Field } from '../field.tsx';
import { Note, Section, copy, design, dtext, errorText } from '../ui.tsx';

const INLINE = 'display:inline;width:auto';

function Question({ f }: { f: ApplicationField }) {
  if (f.type === 'checkbox')
    return (
      <label>
        <input type="checkbox" name={f.fieldId} required={f.isRequired} style={INLINE} /> {f.label}
      </label>
    );
  if ((f.type === 'dropdown' || f.type === 'radio') && f.options)
    return (
      <label>
        {f.label}
        <select name={f.fieldId} required={f.isRequired}>
          {f.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </label>
    );
  return <Field name={f.fieldId} label={f.label} required={f.isRequired} multiline={f.type === 'textarea'} type={f.type === 'number' ? 'number' : f.type === 'url' ? 'url' : 'text'} />;
}

/** Collects the answers and submits the application; the design's sign-up texts name its fields and button. */
export default function Application({ inWindow }: { inWindow?: boolean }) {
  const [msg, setMsg] = useState('');
  const p = me();
  const d = design();
  const field = (key: string) => d.signup?.fields?.find((f) => f?.key === key);
  const label = (key: string, fallback: MessageKey) => copy(field(key)?.label, fallback);
  return (
    <Section title={t('application.title')}>
      {!inWindow && dtext(d.header?.preText) && <p class="m">{dtext(d.header?.preText)}</p>}
      <Async load={applicationForm}>
        {(form) => (
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              const data = new FormData(e.currentTarget as HTMLFormElement);
              const text = (k: string) => String(data.get(k) ?? '').trim();
              const answers: Record<string, string | number | boolean> = {};
              for (const q of form.questions) {
                if (q.type === 'checkbox') answers[q.fieldId] = data.has(q.fieldId);
                else if (text(q.fieldId)) answers[q.fieldId] = q.type === 'number' ? Number(text(q.fieldId)) : text(q.fieldId);
              }
              try {
                const res = await apply({
                  email: p?.email ?? text('email'),
                  ...(text('firstName') ? { firstName: text('firstName') } : {}),
                  ...(text('lastName') ? { lastName: text('lastName') } : {}),
                  answers,
                  ...(form.termsUrl ? { acceptTerms: data.has('terms') } : {}),
                  ...(await recaptchaField()),
                });
                setMsg(t(res.status === 'APPROVED' ? 'application.approved' : 'application.sent'));
                if (res.participantToken) {
                  await ctx.api.setToken(res.participantToken);
                  await refresh();
                }
              } catch (err) {
                setMsg(errorText(err));
              }
            }}
          >
            {!p && (
              <>
                <Field name="email" type="email" label={label('email', 'application.email')} placeholder={dtext(field('email')?.placeholder) || undefined} required />
                <Field name="firstName" label={label('firstName', 'signup.firstName')} />
                <Field name="lastName" label={label('lastName', 'signup.lastName')} />
              </>
            )}
            {form.questions.map((q) => (
              <Question key={q.fieldId} f={q} />
            ))}
            {form.termsUrl && (
              <label>
                <input type="checkbox" name="terms" required style={INLINE} /> {t('application.terms')}{' '}
                <a href={/^https?:\/\//.test(form.termsUrl) ? form.termsUrl : undefined} target="_blank" rel="noopener noreferrer">
                  {t('application.termsLink')}
                </a>
              </label>
            )}
            <button type="submit">{copy(d.signup?.buttonText, 'application.submit')}</button>
          </form>
        )}
      </Async>
      {msg && <Note text={msg} />}
    </Section>
  );
}
