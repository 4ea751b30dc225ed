// Re-authentication before a sensitive action (issue #35): an action the server refuses with 403
// REAUTHENTICATION_REQUIRED_ERROR shows this form in place (password, and a code when two-factor
// sign-in is on); once RA1 accepts it, the action runs again by itself.
import { useState } from 'preact/hooks';
import { ApiError, api, session, type SessionInfo } from './api.ts';
import { ErrorSummary, Field, useAction } from './ui.tsx';
import { messageFor } from './field-messages.ts';
import { Button } from './components.tsx';
import { t } from './i18n/index.ts';

/** The error code of a sensitive action without a fresh re-authentication. */
export const REAUTH_CODE = 'REAUTHENTICATION_REQUIRED_ERROR';

/** The password (and code) form; `onDone` runs after the server accepted it. */
export function ReauthForm({ id, onDone, onCancel }: { id: string; onDone: () => void; onCancel: () => void }) {
  const withCode = Boolean((session.value as SessionInfo).twoFactor?.enabled);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await api('POST', '/owner/reauthenticate', withCode ? { password, code: code.trim() } : { password });
      onDone();
    });
  };
  return (
    <form class="card reauth" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{t('reauth.title')}</h3>
      <p>{t(withCode ? 'reauth.bodyCode' : 'reauth.body')}</p>
      <ErrorSummary error={error} />
      <Field id={`${id}-password`} label={t('reauth.password')} error={messageFor(error, 'password')}>
        <input id={`${id}-password`} data-field="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} autoFocus />
      </Field>
      {withCode && (
        <Field id={`${id}-code`} label={t('reauth.code')} error={messageFor(error, 'code')}>
          <input id={`${id}-code`} data-field="code" autoComplete="one-time-code" required maxLength={40} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        </Field>
      )}
      <div class="buttons">
        <Button type="submit" disabled={busy}>
          {t('reauth.submit')}
        </Button>
        <Button kind="secondary" onClick={onCancel}>
          {t('reauth.cancel')}
        </Button>
      </div>
    </form>
  );
}

/**
 * `useAction` for sensitive actions: `run` shows the re-authentication form when the server asks for
 * it (`form`, to render beside the action) and runs the action again once it is accepted.
 */
export function useSensitiveAction(id: string) {
  const action = useAction();
  const [again, setAgain] = useState<(() => Promise<void>) | null>(null);
  const run = (fn: () => Promise<void>, ask?: string) =>
    action.run(async () => {
      try {
        await fn();
      } catch (e) {
        if (e instanceof ApiError && e.code === REAUTH_CODE) {
          setAgain(() => fn);
          return;
        }
        throw e;
      }
    }, ask);
  const form = again && (
    <ReauthForm
      id={id}
      onCancel={() => setAgain(null)}
      onDone={() => {
        setAgain(null);
        void action.run(again);
      }}
    />
  );
  return { ...action, run, form };
}
