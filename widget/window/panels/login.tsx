// One-time email sign-in for returning participants (web-sdk.md §5), a lazy chunk: asking for a
// link (MA2), the sign-in form, and redeeming the link's `grsfLogin` token when the page loads
// with one (MA3). Pages without it never fetch this code.
import '../../i18n/en-signup.ts';
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import { ApiError } from '../api.ts';
import { ctx, loginNotice, state } from '../state.ts';
import { Note, Section, copy, dtext, errorText } from '../ui.tsx';
import { Field } from '../field.tsx';

/** The query parameter a sign-in link carries its one-time token in. */
const LOGIN_PARAM = 'grsfLogin';

/** The current page without its `grsfLogin` parameter: where a sign-in link brings the participant back. */
export function pageWithoutLogin(): string {
  const u = new URL(location.href);
  u.searchParams.delete(LOGIN_PARAM);
  return u.href;
}

/** The design's `login` copy, when the window has loaded. */
function loginCopy(): Record<string, unknown> | undefined {
  const s = state.value;
  return s.status === 'ready' ? (s.win.design?.login as Record<string, unknown> | undefined) : undefined;
}

/**
 * Asks for a sign-in link to `email` returning to this page: null when asked, else the text of what
 * went wrong. The server says `sent` whether or not the email is known, so success reads the same
 * for both.
 */
async function askForLink(email: string): Promise<string | null> {
  try {
    await ctx.api.call('post', 'participant/login-link', { email: email.trim(), returnUrl: pageWithoutLogin() });
    return null;
  } catch (err) {
    const lc = loginCopy();
    if (err instanceof ApiError && err.status === 429) return copy(lc?.cooldown, 'login.cooldown');
    return err instanceof ApiError && err.status < 500 ? errorText(err) : copy(lc?.serverError, 'state.error');
  }
}

/** "Email me a sign-in link" after an existing email: the design's success text (`{{email}}` filled), or why it failed. */
export async function sendLoginLink(email: string): Promise<string> {
  return (await askForLink(email)) ?? copy(loginCopy()?.successBody, 'login.sent', { email: email.trim() });
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
    // The design's text once the window payload is in (the redeem runs before it loads).
    loginNotice.value = t('login.failed');
    const stop = state.subscribe((st) => {
      if (st.status !== 'ready') return;
      loginNotice.value = copy(loginCopy()?.invalidLink, 'login.failed');
      queueMicrotask(() => stop());
    });
    return false;
  }
}

/** The sign-in form: an email, then "Check your inbox" with a resend. Texts from the design's `login` copy where it has them. */
export function Login({ email, back }: { email?: string; back: () => void }) {
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  /** The address a link went to: the form gives way to the success view. */
  const [sentTo, setSentTo] = useState('');
  const lc = loginCopy();
  const ask = async (to: string, again: boolean) => {
    setBusy(true);
    const problem = await askForLink(to);
    setBusy(false);
    if (problem) return setMsg(problem);
    setSentTo(to.trim());
    setMsg(again ? copy(lc?.resent, 'login.resent') : '');
  };
  const onSubmit = (e: Event) => {
    e.preventDefault();
    void ask(String(new FormData(e.currentTarget as HTMLFormElement).get('email') ?? ''), false);
  };
  const backButton = (
    <button type="button" onClick={back}>
      {t('login.back')}
    </button>
  );
  if (sentTo) {
    return (
      <Section title={copy(lc?.successHeading, 'login.successHeading')}>
        <p class="m">{copy(lc?.successBody, 'login.sent', { email: sentTo })}</p>
        <p class="m">
          {copy(lc?.resendPrompt, 'login.resendPrompt')}{' '}
          <button type="button" disabled={busy} onClick={() => void ask(sentTo, true)}>
            {copy(lc?.resend, 'login.resend')}
          </button>
        </p>
        {backButton}
        {msg && <Note text={msg} />}
      </Section>
    );
  }
  return (
    <Section title={copy(lc?.heading, 'login.heading')}>
      <p class="m">{copy(lc?.description, 'login.description')}</p>
      <form onSubmit={onSubmit}>
        <Field name="email" label={copy(lc?.fieldLabel, 'login.email')} placeholder={dtext(lc?.fieldPlaceholder) || undefined} type="email" required value={email} />
        <button type="submit" disabled={busy}>
          {copy(lc?.buttonText, 'login.button')}
        </button>
      </form>
      {backButton}
      {msg && <Note text={msg} />}
    </Section>
  );
}
