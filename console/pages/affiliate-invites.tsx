// Affiliate invites: send one (AF5), list them by status (AF4, offset pages with the total), and
// resend (AF7) or revoke (AF6) a pending one.
import { useEffect, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, ErrorSummary, Field, RowButtons, useAction, usePages } from '../ui.tsx';
import { t, when } from '../i18n/index.ts';
import { AffiliatePage, campaignPath, EmptyListOf, StatusBadge, ListTable, StatusFilter, statusParam } from './affiliate-kit.tsx';
import { Button } from '../components.tsx';
import type { Counts } from '../state-counts.tsx';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import type { affiliateInvite } from '../../shared/schemas/affiliate.ts';
import type { z } from 'zod';

type Invite = z.infer<typeof affiliateInvite>;
type Page = { invites: Invite[]; total: number };
const STATUSES = ['PENDING', 'ACCEPTED', 'EXPIRED', 'REVOKED'] as const;

function Create({ c, created }: { c: Campaign; created: () => void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const invite = await api<Invite>('POST', `${campaignPath(c.id)}/affiliate-invites`, { email: email.trim(), firstName: firstName.trim() || undefined, lastName: lastName.trim() || undefined });
      announce(t('inv.sent', { email: invite.email }));
      setEmail('');
      setFirstName('');
      setLastName('');
      created();
    });
  };
  return (
    <form class="card" aria-labelledby="invite-title" onSubmit={submit}>
      <h2 id="invite-title">{t('inv.create')}</h2>
      <ErrorSummary error={error} />
      <Field id="invite-email" label={t('inv.email')}>
        <input id="invite-email" type="email" autoComplete="off" required maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field id="invite-first" label={t('inv.firstName')}>
        <input id="invite-first" maxLength={255} value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />
      </Field>
      <Field id="invite-last" label={t('inv.lastName')}>
        <input id="invite-last" maxLength={255} value={lastName} onInput={(e) => setLastName(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? t('form.saving') : t('inv.send')}
      </button>
    </form>
  );
}

/**
 * How many invites the program has in all (AF4 has no counts operation: one row is read for its
 * total), asked only while `ask` (a status filter came back empty), so the empty list can offer "all".
 */
function useAllInvites(programId: string, ask: boolean, version: number): Counts | null {
  const [total, setTotal] = useState<number | null>(null);
  useEffect(() => {
    if (!ask) return;
    let live = true;
    api<Page>('GET', `${campaignPath(programId)}/affiliate-invites${query({ limit: 1 })}`).then(
      (p) => live && setTotal(p.total),
      () => live && setTotal(null),
    );
    return () => {
      live = false;
    };
  }, [programId, ask, version]);
  return ask && total !== null ? { ALL: total } : null;
}

function List({ c, version }: { c: Campaign; version: number }) {
  const status = statusParam(STATUSES, '');
  const { pages, setPages, error, setError, load } = usePages<Page, number>((offset) => `${campaignPath(c.id)}/affiliate-invites${query({ limit: 20, offset, status })}`);
  const [busy, setBusy] = useState<string | null>(null);
  useEffect(() => {
    void load(0, true);
  }, [c.id, status, version]);
  const act = async (i: Invite, kind: 'resend' | 'revoke') => {
    if (kind === 'revoke' && !confirm(t('inv.confirmRevoke', { email: i.email }))) return;
    setBusy(i.id);
    setError(null);
    try {
      const path = `${campaignPath(c.id)}/affiliate-invites/${encodeURIComponent(i.id)}`;
      const next = kind === 'resend' ? await api<Invite>('POST', `${path}/resend`, {}) : await api<Invite>('DELETE', path);
      setPages((ps) => ps.map((p) => ({ ...p, invites: p.invites.map((x) => (x.id === next.id ? next : x)) })));
      announce(t(kind === 'resend' ? 'inv.resent' : 'inv.revoked', { email: next.email }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  const rows = pages.flatMap((p) => p.invites);
  const total = pages.at(-1)?.total ?? 0;
  const write = can('participant:write');
  const loaded = pages.length > 0;
  const everything = useAllInvites(c.id, status !== '' && loaded && !rows.length, version);
  const counts = status === '' && loaded ? { ALL: total } : everything;
  const empty = (
    <EmptyListOf
      status={status}
      counts={counts}
      title={t('inv.empty.title')}
      text={t(write ? 'inv.empty.text' : 'inv.empty.readOnly')}
      action={write && <Button onClick={() => document.getElementById('invite-email')?.focus()}>{t('inv.create')}</Button>}
    />
  );
  return (
    <>
      {!(status === '' && loaded && !rows.length) && <StatusFilter id="invite-status" statuses={STATUSES} value={status} prefix="istatus" />}
      <p class="hint">{t('inv.rules')}</p>
      <ErrorSummary error={error} />
      <ListTable loaded={pages.length > 0} rows={rows.length} label={t('inv.table')} count={t('aff.ofTotal', { shown: rows.length, total })} more={rows.length < total ? () => load(rows.length, false) : undefined} empty={empty}>
        <thead>
          <tr>
            <th scope="col">{t('inv.email')}</th>
            <th scope="col">{t('col.status')}</th>
            <th scope="col">{t('afcol.lastSent')}</th>
            <th scope="col">{t('afcol.expires')}</th>
            {write && <th scope="col">{t('afcol.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => (
            <tr key={i.id}>
              <th scope="row">
                {i.email}
                {(i.firstName || i.lastName) && <span class="sub">{[i.firstName, i.lastName].filter(Boolean).join(' ')}</span>}
              </th>
              <td>
                <StatusBadge prefix="istatus" status={i.status} />
              </td>
              <td>{when(i.lastSentAt)}</td>
              <td>{when(i.expiresAt)}</td>
              {write && (
                <td>
                  {i.status === 'PENDING' && (
                    <RowButtons
                      buttons={[
                        { text: t('inv.resend'), label: t('inv.resendLabel', { email: i.email }), kind: 'secondary', disabled: busy === i.id, onClick: () => act(i, 'resend') },
                        { text: t('inv.revoke'), label: t('inv.revokeLabel', { email: i.email }), kind: 'danger', disabled: busy === i.id, onClick: () => act(i, 'revoke') },
                      ]}
                    />
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </ListTable>
    </>
  );
}

export default function Invites({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const [version, setVersion] = useState(0);
  return (
    <AffiliatePage programId={id} title={t('inv.title')}>
      {(c) => (
        <>
          <p class="hint">{t('inv.help')}</p>
          {can('participant:write') && <Create c={c} created={() => setVersion((v) => v + 1)} />}
          <List c={c} version={version} />
        </>
      )}
    </AffiliatePage>
  );
}
