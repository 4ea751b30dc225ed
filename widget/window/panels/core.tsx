// Sign-up form and share panel: the first panel a visitor or participant sees (shipped with the window).
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { addParticipant, trackShare } from '../actions.ts';
import type { ShareType } from '../api.ts';
import { loginNotice, me, state } from '../state.ts';
import { Field, Note, Section, copy, dtext, errorText, shareLink } from '../ui.tsx';

/** Identity from an element's `data-grsf-email` / `-first-name` / `-last-name` (prefills the form). */
export interface Identity {
  email?: string;
  firstName?: string;
  lastName?: string;
}

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

/** Channel → share URL (`{u}` the link, `{m}` the message); channels without a web share URL are not offered. */
const SHARE_URLS: Record<string, string> = {
  email: 'mailto:?subject={s}&body={m}',
  sms: 'sms:?&body={m}',
  facebook: 'https://www.facebook.com/sharer/sharer.php?u={u}',
  twitter: 'https://twitter.com/intent/tweet?text={m}',
  linkedin: 'https://www.linkedin.com/sharing/share-offsite/?url={u}',
  pinterest: 'https://pinterest.com/pin/create/button/?url={u}&description={m}',
  threads: 'https://www.threads.net/intent/post?text={m}',
  bluesky: 'https://bsky.app/intent/compose?text={m}',
  messenger: 'fb-messenger://share/?link={u}',
  whatsapp: 'https://wa.me/?text={m}',
  telegram: 'https://t.me/share/url?url={u}&text={m}',
  reddit: 'https://www.reddit.com/submit?url={u}&title={s}',
  tumblr: 'https://www.tumblr.com/widgets/share/tool?canonicalUrl={u}',
};

/** Share panel: the link, copy, and the channels the window payload lists; every share is tracked. */
export function Share() {
  const [msg, setMsg] = useState('');
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.share;
  const url = shareLink();
  const message = copy(d?.message, 'share.message', { url });
  const subject = copy(d?.emailSubject, 'share.subject');
  const track = (type: ShareType) => (me() ? trackShare(type).catch(() => undefined) : undefined);
  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      // Without clipboard access the visible, selectable input still lets the visitor copy by hand.
    }
    setMsg(copy(d?.copiedText, 'share.copied'));
    await track('copyRefLink');
  };
  return (
    <Section title={copy(d?.title, 'share.title')}>
      {dtext(d?.description) && <p class="m">{dtext(d?.description)}</p>}
      <label>
        {copy(d?.linkLabel, 'share.linkLabel')}
        <input readOnly value={url} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      </label>
      <div class="row">
        <button type="button" onClick={onCopy}>
          {copy(d?.copyButtonText, 'share.copy')}
        </button>
        {s.win.share.channels
          .filter((c) => SHARE_URLS[c])
          .map((c) => {
            const href = SHARE_URLS[c]!.replace('{u}', encodeURIComponent(url)).replace('{m}', encodeURIComponent(message)).replace('{s}', encodeURIComponent(subject));
            const name = t(`channel.${c}` as MessageKey);
            return (
              <a key={c} class="btn" href={href} target="_blank" rel="noopener noreferrer" aria-label={t('share.via', { channel: name })} onClick={() => void track(c)}>
                {name}
              </a>
            );
          })}
      </div>
      {msg && <Note text={msg} />}
    </Section>
  );
}
