// The Team page (issue #23): the team's verification state (T1, T3), its members (TM1), invitations
// (TM2, TM3; resent with TM5, cancelled with TM4), API keys (team-keys.tsx) and "sign out everywhere" (OS1). What is shown follows the
// role the session document reports; the server decides again on every request.
import { useRef, useState } from 'preact/hooks';
import { api, can, session, type SessionInfo } from '../api.ts';
import { announce, Async, ErrorSummary, Field, RowButtons, useAction } from '../ui.tsx';
import { Button, Card, EmptyState, PageHeader, StatusBadge, Table, type Tone } from '../components.tsx';
import { t, when, type MessageKey } from '../i18n/index.ts';
import { TeamKeys } from './team-keys.tsx';
import { EndMemberSessions, TeamTwoFactor } from './team-security.tsx';
import { useSensitiveAction } from '../reauth.tsx';
import { MemberRoleForm, type RoleTarget } from './team-roles.tsx';
import type { Team } from '../../shared/schemas/team.ts';

interface Member {
  email: string;
  role: 'OWNER' | 'ADMIN' | 'MEMBER';
  manageApi: boolean;
  joinedAt: number;
}
interface Invitation {
  id: string;
  email: string;
  role: 'ADMIN' | 'MEMBER';
  manageApi: boolean;
  sentAt: number;
  expiresAt: number;
}

/** The tone of each verification state: nothing asked yet, waiting for review, done. */
const VERIFICATION_TONE: Record<Team['verificationStatus'], Tone> = { NOT_REQUESTED: 'neutral', REQUESTED: 'warning', VERIFIED: 'success' };

function Verification({ s }: { s: SessionInfo }) {
  const { error, run } = useAction();
  return (
    <Card id="verification" title={t('team.verification')}>
      <Async depKey="team" load={() => api<Team>('GET', '/team')}>
        {(team, reload) => (
          <>
            <dl class="pairs">
              <div>
                <dt>{t('team.name')}</dt>
                <dd>{team.name}</dd>
              </div>
              <div>
                <dt>{t('team.yourRole')}</dt>
                <dd>{t(`role.${s.team!.role}` as MessageKey)}</dd>
              </div>
              <div>
                <dt>{t('team.status')}</dt>
                <dd>
                  <StatusBadge tone={VERIFICATION_TONE[team.verificationStatus]}>{t(`team.verify.${team.verificationStatus}` as MessageKey)}</StatusBadge>
                </dd>
              </div>
              <div>
                <dt>{t('team.ownerEmail')}</dt>
                <dd>{team.ownerEmailVerified ? <StatusBadge tone="success">{t('team.ownerVerified')}</StatusBadge> : t('team.ownerUnverified')}</dd>
              </div>
            </dl>
            <p class="hint">{t('team.verifyHelp')}</p>
            <ErrorSummary error={error} />
            {team.verificationStatus === 'NOT_REQUESTED' && can('team:write') && (
              <Button
                kind="secondary"
                onClick={() =>
                  run(async () => {
                    await api('POST', '/team/verification-request', {});
                    announce(t('team.verificationRequested'));
                    reload();
                  })
                }
              >
                {t('team.requestVerification')}
              </Button>
            )}
          </>
        )}
      </Async>
    </Card>
  );
}

function MemberTable({ members, teamName, owner, reload }: { members: Member[]; teamName: string; owner: string | null; reload: () => void }) {
  const [error, setError] = useState<unknown>(null);
  // Removing a member is a sensitive action: the server asks for the password (and code) again first (issue #35).
  const remove = useSensitiveAction('reauth-remove');
  const [changing, setChanging] = useState<RoleTarget | null>(null);
  return (
    <>
    <ErrorSummary error={error ?? remove.error} />
    <Table caption={t('members.table', { name: teamName })} count={members.length}>
      <thead>
        <tr>
          <th scope="col">{t('invite.email')}</th>
          <th scope="col">{t('invite.role')}</th>
          <th scope="col">{t('members.manageApi')}</th>
          <th scope="col">{t('col.joined')}</th>
          {owner && <th scope="col">{t('members.actions')}</th>}
        </tr>
      </thead>
      <tbody>
        {members.map((m) => (
          <tr key={m.email}>
            <th scope="row">{m.email}</th>
            <td data-label={t('invite.role')}>{t(`role.${m.role}` as MessageKey)}</td>
            <td data-label={t('members.manageApi')}>{m.role !== 'MEMBER' || m.manageApi ? t('members.yes') : t('members.no')}</td>
            <td data-label={t('col.joined')}>{when(m.joinedAt)}</td>
            {owner && (
              <td>
                {m.role !== 'OWNER' && (
                  <div class="buttons compact">
                    <Button kind="secondary" size="small" aria-label={t('members.changeRoleLabel', { email: m.email })} aria-expanded={changing?.email === m.email} onClick={() => setChanging({ email: m.email, role: m.role === 'ADMIN' ? 'ADMIN' : 'MEMBER', manageApi: m.manageApi })}>
                      {t('members.changeRole')}
                    </Button>
                    <EndMemberSessions email={m.email} onError={setError} />
                    <Button
                      kind="critical"
                      size="small"
                      disabled={remove.busy}
                      aria-label={t('members.removeLabel', { email: m.email })}
                      onClick={() =>
                        remove.run(async () => {
                          await api('DELETE', `/team/members/${encodeURIComponent(m.email)}`);
                          document.getElementById('members-title')?.focus();
                          announce(t('members.removed', { email: m.email }));
                          reload();
                        }, t('members.confirmRemove', { email: m.email }))
                      }
                    >
                      {t('members.remove')}
                    </Button>
                  </div>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </Table>
    {remove.form}
    {changing && (
      <MemberRoleForm
        key={changing.email}
        member={changing}
        onClose={() => setChanging(null)}
        onSaved={() => {
          setChanging(null);
          reload();
        }}
      />
    )}
    </>
  );
}

function Invitations({ invitations, reload }: { invitations: Invitation[]; reload: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const busy = useRef<string | null>(null);
  const act = async (i: Invitation, kind: 'resend' | 'cancel') => {
    if (busy.current) return;
    if (kind === 'cancel' && !confirm(t('invitations.confirmCancel', { email: i.email }))) return;
    busy.current = i.id;
    setError(null);
    try {
      const path = `/team/invitations/${encodeURIComponent(i.id)}`;
      if (kind === 'resend') {
        await api('POST', `${path}/resend`, {});
        announce(t('invitations.resent', { email: i.email }));
      } else {
        await api('DELETE', path);
        // Its row (and the button that had focus) goes away: keep the keyboard in the section.
        document.getElementById('invitations-title')?.focus();
        announce(t('invitations.cancelled', { email: i.email }));
      }
      reload();
    } catch (e) {
      setError(e);
    } finally {
      busy.current = null;
    }
  };
  return (
    <Card id="invitations" title={t('invitations.title')} description={invitations.length > 0 && t('invitations.rules')} flush focusable>
      <ErrorSummary error={error} />
      {!invitations.length ? (
        <EmptyState level={3} title={t('invitations.none')} text={t('invitations.empty.text')} />
      ) : (
        <Table caption={t('invitations.table')} count={invitations.length}>
          <thead>
            <tr>
              <th scope="col">{t('invite.email')}</th>
              <th scope="col">{t('invite.role')}</th>
              <th scope="col">{t('members.manageApi')}</th>
              <th scope="col">{t('invitations.sent')}</th>
              <th scope="col">{t('invitations.expires')}</th>
              <th scope="col">{t('invitations.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {invitations.map((i) => (
              <tr key={i.id}>
                <th scope="row">{i.email}</th>
                <td data-label={t('invite.role')}>{t(`role.${i.role}` as MessageKey)}</td>
                <td data-label={t('members.manageApi')}>{i.role === 'ADMIN' || i.manageApi ? t('members.yes') : t('members.no')}</td>
                <td data-label={t('invitations.sent')}>{when(i.sentAt)}</td>
                <td data-label={t('invitations.expires')}>{when(i.expiresAt)}</td>
                <td>
                  <RowButtons
                    buttons={[
                      { text: t('invitations.resend'), label: t('invitations.resendLabel', { email: i.email }), kind: 'secondary', onClick: () => act(i, 'resend') },
                      { text: t('invitations.cancel'), label: t('invitations.cancelLabel', { email: i.email }), kind: 'danger', onClick: () => act(i, 'cancel') },
                    ]}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

function InviteForm({ onSent }: { onSent: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'MEMBER' | 'ADMIN'>('MEMBER');
  const [manageApi, setManageApi] = useState(false);
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const sent = await api<{ email: string }>('POST', '/team/invitations', { email: email.trim(), role, manageApi: role === 'MEMBER' && manageApi });
      announce(t('invite.sent', { email: sent.email }));
      setEmail('');
      setManageApi(false);
      onSent();
    });
  };
  return (
    <Card id="invite" title={t('invite.title')}>
      <form onSubmit={submit} aria-labelledby="invite-title">
        <ErrorSummary error={error} />
        <Field id="invite-email" label={t('invite.email')}>
          <input id="invite-email" type="email" required autoComplete="off" maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <fieldset>
          <legend>{t('invite.role')}</legend>
          {(['MEMBER', 'ADMIN'] as const).map((r) => (
            <label class="choice" key={r}>
              <input type="radio" name="role" value={r} checked={role === r} onChange={() => setRole(r)} />
              <span>{t(r === 'MEMBER' ? 'invite.roleMember' : 'invite.roleAdmin')}</span>
            </label>
          ))}
        </fieldset>
        {role === 'MEMBER' && (
          <label class="choice">
            <input type="checkbox" checked={manageApi} onChange={(e) => setManageApi(e.currentTarget.checked)} />
            <span>{t('invite.manageApi')}</span>
          </label>
        )}
        <Button type="submit" disabled={busy}>
          {busy ? t('form.saving') : t('invite.submit')}
        </Button>
      </form>
    </Card>
  );
}

function People({ s }: { s: SessionInfo }) {
  const [run, setRun] = useState(0);
  const mayInvite = s.team!.canInvite;
  const load = () => Promise.all([api<{ members: Member[] }>('GET', '/team/members'), mayInvite ? api<{ invitations: Invitation[] }>('GET', '/team/invitations') : Promise.resolve({ invitations: [] })]);
  return (
    <>
      <Async depKey={`people-${run}`} load={load}>
        {([m, i], reload) => (
          <>
            <Card id="members" title={t('members.title')} description={!mayInvite && t('invite.onlyAdmins')} flush focusable>
              <MemberTable members={m.members} teamName={s.team!.name} owner={s.team!.role === 'OWNER' ? s.email : null} reload={reload} />
            </Card>
            {mayInvite && <Invitations invitations={i.invitations} reload={reload} />}
          </>
        )}
      </Async>
      {mayInvite && <InviteForm onSent={() => setRun((n) => n + 1)} />}
    </>
  );
}

function Sessions({ s }: { s: SessionInfo }) {
  const { error, run } = useAction();
  const end = () =>
    run(async () => {
      await api('DELETE', '/owner/sessions');
      session.value = false;
    }, t('sessions.confirm'));
  return (
    <Card id="sessions" title={t('sessions.title')} description={t('sessions.body', { email: s.email })}>
      <ErrorSummary error={error} />
      <Button kind="critical" onClick={end}>
        {t('sessions.submit')}
      </Button>
    </Card>
  );
}

export default function TeamPage() {
  const s = session.value as SessionInfo;
  // The page's one primary action: inviting a teammate, whose form is on the page (its first field takes focus).
  const invite = s.team!.canInvite && <Button onClick={() => document.getElementById('invite-email')?.focus()}>{t('invite.title')}</Button>;
  return (
    <>
      <PageHeader title={t('team.title')} meta={s.team!.name} action={invite} />
      <Verification s={s} />
      <People s={s} />
      {s.team!.role === 'OWNER' && <TeamTwoFactor />}
      {s.team!.canManageKeys ? (
        <TeamKeys teamName={s.team!.name} />
      ) : (
        <Card id="keys" title={t('keys.title')}>
          <p>{t('keys.notAllowed')}</p>
        </Card>
      )}
      <Sessions s={s} />
    </>
  );
}
