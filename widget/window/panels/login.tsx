// One-time email sign-in for returning participants (web-sdk.md §5), a lazy chunk: asking for a
// link (MA2), the sign-in form, and redeeming the link's `grsfLogin` token when the page loads
// with one (MA3). Pages without it never fetch this code.
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import { ApiError } from '../api.ts';
import { ctx, loginNotice, state } from '../state.ts';
import { Field, Note, Section, copy, dtext, errorText } from '../ui.tsx';

/** The query parameter a sign-in link carries its one-time token in. */
const LOGIN_PARAM = 'grsfLogin';

/** The current page without its `grsfLogin` parameter: where a sign-in link brings the participant back. */
export function pageWithoutLogin(): string {
  const u = new URL(location.href);
  u.searchParams.delete(LOGIN_PARAM);
  return u.href;
}

/**
 * Asks for a sign-in link to `email` returning to this page, and answers the text to show: the
 * server says `sent` whether or not the email is known, so the text is the same for both.
 */
export async function sendLoginLink(email: string): Promise<string> {
  try {
    await ctx.api.call('post', 'participant/login-link', { email: email.trim(), returnUrl: pageWithoutLogin() });
    return t('login.sent');
  } catch (err) {
    const d = state.value.status === 'ready' ? state.value.win.design : undefined;
    return err instanceof ApiError && err.status === 429 ? copy(d?.login?.cooldown, 'login.cooldown') : errorText(err);
  }
}

/**
 * Redeems the sign-in link's token in the address bar, once: the parameter leaves the address bar
 * (history.replaceState) before the call, so a reload never replays a spent token; the participant
 * token is stored as auto-authentication stores it. False, with `loginNotice` set, when refused.
 */
export async function redeemLoginFromUrl(): Promise<boolean> {
  const token = new URL(location.href).searchParams.get(LOGIN_PARAM) ?? '';
  try {
    history.replaceState(history.state, '', pageWithoutLogin());
  } catch {
    // A sandboxed page may refuse; the token is one-time anyway.
  }
  try {
    const res = await ctx.api.call<{ participantToken: string }>('post', 'participant/login-link/redeem', { token });
    await ctx.api.setToken(res.participantToken);
    loginNotice.value = '';
    return true;
  } catch {
    loginNotice.value = t('login.failed');
    return false;
  }
}

/** The sign-in form: an email, then "Check your inbox". Texts from the design's `login` copy where it has them. */
export function Login({ email, back }: { email?: string; back: () => void }) {
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  const s = state.value;
  const lc = s.status === 'ready' ? s.win.design?.login : undefined;
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    const value = String(new FormData(e.currentTarget as HTMLFormElement).get('email') ?? '');
    setBusy(true);
    setMsg(await sendLoginLink(value));
    setBusy(false);
  };
  return (
    <Section title={copy(lc?.heading, 'login.heading')}>
      <p class="m">{copy(lc?.description, 'login.description')}</p>
      <form onSubmit={onSubmit}>
        <Field name="email" label={copy(lc?.fieldLabel, 'login.email')} placeholder={dtext(lc?.fieldPlaceholder) || undefined} type="email" required value={email} />
        <button type="submit" disabled={busy}>
          {copy(lc?.buttonText, 'login.button')}
        </button>
      </form>
      <button type="button" onClick={back}>
        {t('login.back')}
      </button>
      {msg && <Note text={msg} />}
    </Section>
  );
}
