// The sign-up form: the window's first panel for a visitor. Its own chunk, requested at boot beside
// the window payload when no participant is signed in (the share panel is the other one, share.tsx):
// a visitor never downloads both at first paint (issue #24).
import '../../i18n/en-signup.ts';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { addParticipant } from '../sign-ups.ts';
import { loginNotice, state } from '../state.ts';
import { Note, Section, copy, dtext, errorText } from '../ui.tsx';
import { Field } from '../field.tsx';
import type { Identity } from './registry.tsx';

// The page's sign-up methods (sdk.tsx) fetch this chunk for them.
export { addParticipant, addReferredParticipant, validateReferrer } from '../sign-ups.ts';

const DEFAULT_FIELDS = [
  { key: 'email', type: 'EMAIL', label: '', placeholder: '', isRequired: true },
  { key: 'firstName', type: 'TEXT', label: '', placeholder: '', isRequired: false },
  { key: 'lastName', type: 'TEXT', label: '', placeholder: '', isRequired: false },
];

/**
 * Sign-up form; a pending referrer shows the referred experience (banner and heading). Inside the
 * window the header already shows `header.preText`, so only the element repeats it. A returning
 * participant (an email that already exists, or "Already signed up? Sign in") asks for a one-time
 * sign-in link; that code is the `login.tsx` chunk.
 */
export function Signup({ identity = {}, inWindow }: { identity?: Identity; inWindow?: boolean }) {
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  /** The email that already belongs to a participant: offered a sign-in link. */
  const [existing, setExisting] = useState('');
  /** The sign-in form's component once its chunk arrived (shown instead of the sign-up form). */
  const [login, setLogin] = useState<null | typeof import('./login.tsx')>(null);
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design;
  const fields = (d?.signup?.fields as typeof DEFAULT_FIELDS | undefined) ?? DEFAULT_FIELDS;
  const rx = d?.referredExperience;
  const chunk = () => import('./login.tsx');
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>;
    const fieldsIn: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) if (v.trim()) fieldsIn[k] = v.trim();
    setBusy(true);
    setMsg('');
    setExisting('');
    try {
      const p = await addParticipant(fieldsIn as { email: string });
      if (!p) {
        setMsg(t('signup.existing'));
        setExisting(fieldsIn.email!);
      }
    } catch (err) {
      setMsg(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const sendLink = async () => {
    setBusy(true);
    try {
      setMsg(await (await chunk()).sendLoginLink(existing));
      setExisting('');
    } catch (err) {
      setMsg(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const openLogin = () =>
    chunk().then(
      (m) => (setMsg(''), setExisting(''), setLogin(m)),
      (err) => setMsg(errorText(err)),
    );
  if (login) return <login.Login email={identity.email} back={() => setLogin(null)} />;
  return (
    <Section title={s.referred && rx?.isHeadingEnabled !== false ? copy(rx?.headingText, 'signup.referredHeading') : t('signup.title')}>
      {loginNotice.value && <Note text={loginNotice.value} />}
      {s.referred && rx?.isBannerEnabled !== false && <p class="ban">{copy(rx?.bannerText, 'signup.referred')}</p>}
      {!inWindow && <p class="m">{copy(d?.header?.preText, 'signup.pre')}</p>}
      <form onSubmit={onSubmit}>
        {fields.map((f) => (
          <Field
            key={f.key}
            name={f.key}
            label={copy(f.label, f.key === 'email' || f.key === 'firstName' || f.key === 'lastName' ? `signup.${f.key}` : (f.key as MessageKey))}
            placeholder={dtext(f.placeholder) || undefined}
            type={f.type === 'EMAIL' ? 'email' : f.type === 'TEL' ? 'tel' : f.type === 'NUMBER' ? 'number' : f.type === 'URL' ? 'url' : 'text'}
            required={f.key === 'email' || f.isRequired}
            value={identity[f.key as keyof Identity]}
          />
        ))}
        {d?.signup?.gdpr?.isEnabled && (
          <label>
            <input type="checkbox" name="gdprConsent" required={d.signup.gdpr.isCheckboxRequired !== false} /> {copy(d.signup.gdpr.text, 'signup.gdpr')}
          </label>
        )}
        <button type="submit" disabled={busy}>
          {copy(d?.signup?.buttonText, 'signup.submit')}
        </button>
      </form>
      {dtext(d?.signup?.termsText) && <p class="m">{dtext(d?.signup?.termsText)}</p>}
      {msg && <Note text={msg} />}
      {existing && (
        <button type="button" disabled={busy} onClick={sendLink}>
          {copy(d?.login?.buttonText, 'login.button')}
        </button>
      )}
      <p class="m">
        {copy(d?.signup?.loginText, 'login.prompt')}{' '}
        <button type="button" onClick={openLogin}>
          {copy(d?.signup?.loginLinkText, 'login.link')}
        </button>
      </p>
    </Section>
  );
}
