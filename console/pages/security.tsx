// The Security page (issue #35): the signed-in person's two-factor sign-in (TF1–TF4: enrol with the
// setup key shown as text, confirm with a code, the ten recovery codes shown once, turn it off after
// re-authenticating) and where they are signed in (OS2, ending a session with OS3). A team that
// requires two-factor sign-in sends a member without it here, whatever address they open.
import { useState } from 'preact/hooks';
import { api, loadSession, session, type SessionInfo } from '../api.ts';
import { announce, Async, ErrorSummary, Field, useAction } from '../ui.tsx';
import { messageFor } from '../field-messages.ts';
import { Button, Card, PageHeader, StatusBadge, Table } from '../components.tsx';
import { useSensitiveAction } from '../reauth.tsx';
import { t, when } from '../i18n/index.ts';
import type { OwnerSession } from '../../shared/schemas/owner-security.ts';

interface Status {
  enabled: boolean;
  enabledAt: number | null;
  recoveryCodesLeft: number;
  teamRequires: boolean;
}
/** The setup key in groups of four, as authenticator apps show and people type it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

function RecoveryCodes({ codes, fresh, onDone }: { codes: string[]; fresh?: boolean; onDone: () => void }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      announce(t('tfa.codesCopied'));
    } catch {
      const list = document.getElementById('recovery-codes');
      if (list) getSelection()?.selectAllChildren(list);
    }
  };
  return (
    <section class="card warning-card" aria-labelledby="codes-title" role="status">
      <h3 id="codes-title" tabIndex={-1} ref={(el) => el?.focus()}>
        {t(fresh ? 'tfa.newCodesTitle' : 'tfa.codesTitle')}
      </h3>
      <p>{t('tfa.codesBody')}</p>
      <ul id="recovery-codes" class="recovery-codes" aria-label={t('tfa.codesList')}>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="buttons">
        <button type="button" onClick={copy}>
          {t('tfa.copyCodes')}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          {t('tfa.codesDone')}
        </button>
      </div>
    </section>
  );
}

function Enrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const [setup, setSetup] = useState<{ secret: string; uri: string; qrCode: string } | null>(null);
  const [code, setCode] = useState('');
  const { busy, error, run } = useAction();
  if (!setup)
    return (
      <>
        <ErrorSummary error={error} />
        <Button onClick={() => run(async () => setSetup(await api<{ secret: string; uri: string; qrCode: string }>('POST', '/owner/two-factor', {})))} disabled={busy}>
          {t('tfa.start')}
        </Button>
      </>
    );
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const done = await api<{ recoveryCodes: string[] }>('POST', '/owner/two-factor/confirm', { code: code.trim() });
      announce(t('tfa.enabled'));
      onEnabled(done.recoveryCodes);
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby="tfa-title" class="enrol">
      <ErrorSummary error={error} />
      <p>{t('tfa.step1')}</p>
      <img class="qr-code" src={setup.qrCode} width={200} height={200} alt={t('tfa.qrAlt')} />
      <p>{t('tfa.step1Key')}</p>
      <dl class="pairs">
        <div>
          <dt>{t('tfa.keyLabel')}</dt>
          <dd>
            <code id="totp-secret" class="secret key-groups">
              {grouped(setup.secret)}
            </code>
          </dd>
        </div>
        <div>
          <dt>{t('tfa.uriLabel')}</dt>
          <dd>
            <code class="wrap">{setup.uri}</code>
            <br />
            <a href={setup.uri}>{t('tfa.openApp')}</a>
          </dd>
        </div>
      </dl>
      <p>{t('tfa.step2')}</p>
      <Field id="tfa-code" label={t('tfa.codeField')} error={messageFor(error, 'code')}>
        <input id="tfa-code" data-field="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]*" maxLength={7} required value={code} onInput={(e) => setCode(e.currentTarget.value.replace(/\s/g, ''))} />
      </Field>
      <Button type="submit" disabled={busy}>
        {t('tfa.confirm')}
      </Button>
    </form>
  );
}

function TwoFactorCard() {
  const [codes, setCodes] = useState<{ list: string[]; fresh: boolean } | null>(null);
  const [run, setRun] = useState(0);
  const off = useSensitiveAction('reauth-tfa');
  // New recovery codes (TF5) are a sensitive action too: each signs in without the app.
  const renew = useSensitiveAction('reauth-codes');
  return (
    <Card id="tfa" title={t('tfa.title')} description={t('tfa.intro')}>
      {codes && <RecoveryCodes codes={codes.list} fresh={codes.fresh} onDone={() => setCodes(null)} />}
      <Async depKey={`tfa-${run}`} load={() => api<Status>('GET', '/owner/two-factor')}>
        {(st) => (
          <>
            <dl class="pairs spaced">
              <div>
                <dt>{t('tfa.status')}</dt>
                <dd>{st.enabled ? <StatusBadge tone="success">{t('tfa.on')}</StatusBadge> : <StatusBadge tone="warning">{t('tfa.off')}</StatusBadge>}</dd>
              </div>
              {st.enabled && (
                <>
                  <div>
                    <dt>{t('tfa.since')}</dt>
                    <dd>{when(st.enabledAt!)}</dd>
                  </div>
                  <div>
                    <dt>{t('tfa.codesLeft')}</dt>
                    <dd>{st.recoveryCodesLeft}</dd>
                  </div>
                </>
              )}
            </dl>
            {!st.enabled ? (
              <Enrol
                onEnabled={(c) => {
                  setCodes({ list: c, fresh: false });
                  setRun((n) => n + 1);
                  void loadSession();
                }}
              />
            ) : (
              <>
                <ErrorSummary error={renew.error ?? off.error} />
                {renew.form || off.form || (
                  <div class="buttons">
                    <Button
                      kind="secondary"
                      disabled={renew.busy}
                      onClick={() =>
                        renew.run(async () => {
                          const done = await api<{ recoveryCodes: string[] }>('POST', '/owner/two-factor/recovery-codes', {});
                          setCodes({ list: done.recoveryCodes, fresh: true });
                          announce(t('tfa.newCodesDone'));
                          setRun((n) => n + 1);
                        }, t('tfa.confirmNewCodes'))
                      }
                    >
                      {t('tfa.newCodes')}
                    </Button>
                    <Button
                      kind="critical"
                      disabled={off.busy}
                      onClick={() =>
                        off.run(async () => {
                          await api('DELETE', '/owner/two-factor');
                          announce(t('tfa.disabled'));
                          setRun((n) => n + 1);
                          void loadSession();
                        }, t('tfa.confirmDisable'))
                      }
                    >
                      {t('tfa.disable')}
                    </Button>
                  </div>
                )}
              </>
            )}
          </>
        )}
      </Async>
    </Card>
  );
}

function SessionsCard() {
  const { error, run } = useAction();
  return (
    <Card id="my-sessions" title={t('mySessions.title')} flush focusable>
      <ErrorSummary error={error} />
      <Async depKey="my-sessions" load={() => api<{ sessions: OwnerSession[] }>('GET', '/owner/sessions')}>
        {(d, reload) => (
          <Table caption={t('mySessions.table')} count={d.sessions.length}>
            <thead>
              <tr>
                <th scope="col">{t('mySessions.device')}</th>
                <th scope="col">{t('mySessions.ip')}</th>
                <th scope="col">{t('mySessions.created')}</th>
                <th scope="col">{t('mySessions.lastSeen')}</th>
                <th scope="col">{t('mySessions.action')}</th>
              </tr>
            </thead>
            <tbody>
              {d.sessions.map((s) => {
                const device = t('mySessions.deviceName', { browser: s.browser, os: s.os });
                const ip = s.ip ?? t('mySessions.unknownIp');
                return (
                  <tr key={s.id}>
                    <th scope="row">
                      {device} {s.current && <StatusBadge tone="info">{t('mySessions.current')}</StatusBadge>}
                    </th>
                    <td data-label={t('mySessions.ip')}>{ip}</td>
                    <td data-label={t('mySessions.created')}>{when(s.createdAt)}</td>
                    <td data-label={t('mySessions.lastSeen')}>{when(s.lastSeenAt)}</td>
                    <td>
                      {!s.current && (
                        <Button
                          kind="secondary"
                          size="small"
                          aria-label={t('mySessions.endLabel', { device, ip })}
                          onClick={() =>
                            run(async () => {
                              await api('DELETE', `/owner/sessions/${encodeURIComponent(s.id)}`);
                              document.getElementById('my-sessions-title')?.focus();
                              announce(t('mySessions.ended'));
                              reload();
                            })
                          }
                        >
                          {t('mySessions.end')}
                        </Button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
      </Async>
    </Card>
  );
}

export default function SecurityPage() {
  const s = session.value as SessionInfo;
  return (
    <>
      <PageHeader title={t('security.title')} meta={s.email} />
      {s.twoFactor?.mustEnrol && <p class="warning app-banner">{t('security.mustEnrol')}</p>}
      <TwoFactorCard />
      <SessionsCard />
    </>
  );
}
