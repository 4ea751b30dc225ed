// The Team page's security pieces (issue #35): the Owner's "require two-factor sign-in of every
// member" (T6) and "end every session of a member" (TM6).
import { useState } from 'preact/hooks';
import { api, loadSession, session, type SessionInfo } from '../api.ts';
import { announce, ErrorSummary, useAction } from '../ui.tsx';
import { Button, Card } from '../components.tsx';
import { t } from '../i18n/index.ts';

/** The Owner's team-wide two-factor requirement. */
export function TeamTwoFactor() {
  const s = session.value as SessionInfo;
  const [on, setOn] = useState(Boolean(s.twoFactor?.teamRequires));
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await api('PATCH', '/team/security', { requireTwoFactor: on });
      announce(t('teamTfa.saved'));
      void loadSession();
    });
  };
  return (
    <Card id="team-tfa" title={t('teamTfa.title')}>
      <form onSubmit={submit} aria-labelledby="team-tfa-title">
        <ErrorSummary error={error} />
        <label class="choice">
          <input type="checkbox" checked={on} aria-describedby="team-tfa-hint" onChange={(e) => setOn(e.currentTarget.checked)} />
          <span>{t('teamTfa.label')}</span>
        </label>
        <p class="hint" id="team-tfa-hint">
          {t('teamTfa.hint')}
        </p>
        <Button type="submit" kind="secondary" disabled={busy}>
          {t('teamTfa.save')}
        </Button>
      </form>
    </Card>
  );
}

/** The Owner's "End sessions" button of one member's row; a refusal goes to the table's summary. */
export function EndMemberSessions({ email, onError }: { email: string; onError: (e: unknown) => void }) {
  const [busy, setBusy] = useState(false);
  const end = async () => {
    if (busy || !confirm(t('members.confirmEnd', { email }))) return;
    setBusy(true);
    onError(null);
    try {
      const done = await api<{ ended: number }>('DELETE', `/team/members/${encodeURIComponent(email)}/sessions`);
      announce(t('members.sessionsEnded', { email, count: done.ended }));
    } catch (e) {
      onError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button kind="secondary" size="small" disabled={busy} aria-label={t('members.endSessionsLabel', { email })} onClick={end}>
      {t('members.endSessions')}
    </Button>
  );
}
