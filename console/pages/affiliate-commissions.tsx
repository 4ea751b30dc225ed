// Commissions (AF10, cursor pages, pending first by default): approve (AF12) or delete (AF13) one,
// or several selected, one request after another with each one's answer shown.
import { useEffect, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, ErrorSummary, RowButtons, usePages } from '../ui.tsx';
import { money, num, t, when } from '../i18n/index.ts';
import { AffiliatePage, campaignPath, eachInTurn, EmptyListOf, Outcomes, StatusBadge, ListTable, StatusFilter, useEmails, type Outcome } from './affiliate-kit.tsx';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import { CountedStates, noneAtAll, type Counts } from '../state-counts.tsx';
import { ButtonLink } from '../components.tsx';
import type { Commission, CommissionList } from '../../shared/schemas/commission.ts';

const STATUSES = ['PENDING', 'APPROVED', 'PAID', 'REVERSED', 'DELETED'] as const;
type Kind = 'approve' | 'delete';

/** Where sales come from: the two payment integrations (their settings need a role that may change the program). */
function ConnectPayments({ c }: { c: Campaign }) {
  const integrations = `/console/programs/${encodeURIComponent(c.id)}/integrations`;
  return (
    <>
      <ButtonLink href={`${integrations}/stripe`}>{t('com.empty.stripe')}</ButtonLink>
      <ButtonLink kind="secondary" href={`${integrations}/paddle`}>
        {t('com.empty.paddle')}
      </ButtonLink>
    </>
  );
}

function List({ c, status, counts, recount }: { c: Campaign; status: (typeof STATUSES)[number] | ''; counts: Counts | null; recount: () => void }) {
  const { pages, setPages, error, setError, load } = usePages<CommissionList>((nextId) => `${campaignPath(c.id)}/commissions${query({ limit: 50, nextId, status })}`);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setSelected(new Set());
    void load(null, true);
  }, [c.id, status]);
  const rows = pages.flatMap((p) => p.commissions);
  const next = pages.at(-1)?.nextId ?? null;
  const who = useEmails(c.id, rows.map((r) => r.referrerId));
  const customers = useEmails(c.id, rows.map((r) => r.referredId));
  const amountOf = (r: Commission) => money(r.amount ?? 0, r.currencyISO);
  const label = (r: Commission) => ({ key: r.id, label: `${amountOf(r)} · ${who[r.referrerId]}` });

  const run = async (kind: Kind, items: Commission[]) => {
    if (!items.length) return;
    if (kind === 'delete' && !confirm(t('com.confirmDelete', { count: items.length }))) return;
    setBusy(true);
    setError(null);
    const path = (r: Commission) => `${campaignPath(c.id)}/commission/${encodeURIComponent(r.id)}`;
    const results = await eachInTurn(items, label, (r) => (kind === 'approve' ? api('POST', `${path(r)}/approve`, {}) : api('DELETE', path(r))));
    const changed = new Set(results.filter((o) => !o.error).map((o) => o.key));
    // What the server did, shown at once: approved or deleted rows take their new status.
    setPages((ps) => ps.map((p) => ({ ...p, commissions: p.commissions.map((r) => (changed.has(r.id) ? { ...r, status: kind === 'approve' ? 'APPROVED' : 'DELETED' } : r)) })));
    setSelected((s) => new Set([...s].filter((id) => !changed.has(id))));
    setBusy(false);
    if (changed.size) recount();
    // A refusal means the list was out of date (changed elsewhere): read it again.
    if (results.some((o) => o.error)) {
      setSelected(new Set());
      void load(null, true);
    }
    if (items.length === 1 && !results[0]!.error) {
      setOutcomes([]);
      const r = items[0]!;
      announce(t(kind === 'approve' ? 'com.approved' : 'com.deleted', { amount: amountOf(r), who: who[r.referrerId]! }));
    } else {
      setOutcomes(results);
      announce(t('com.done', { count: results.length, ok: changed.size }));
    }
  };

  const toggle = (id: string, on: boolean) => setSelected((s) => (on ? new Set([...s, id]) : new Set([...s].filter((x) => x !== id))));
  const pending = rows.filter((r) => r.status === 'PENDING');
  const chosen = rows.filter((r) => selected.has(r.id));
  const mayApprove = can('reward:write');
  const mayDelete = can('reward:delete');
  const write = mayApprove || mayDelete;
  return (
    <>
      {!noneAtAll(counts) && <StatusFilter id="commission-status" statuses={STATUSES} value={status} prefix="cstatus" counts={counts} />}
      <p class="hint">{t('com.rules')}</p>
      <ErrorSummary error={error} />
      <Outcomes outcomes={outcomes} />
      {rows.length > 0 && write && (
        <div class="buttons bulk">
          {mayApprove && (
            <button type="button" disabled={busy || !chosen.length} onClick={() => run('approve', chosen)}>
              {t('com.approveSelected', { count: chosen.length })}
            </button>
          )}
          {mayDelete && (
            <button type="button" class="danger" disabled={busy || !chosen.length} onClick={() => run('delete', chosen)}>
              {t('com.deleteSelected', { count: chosen.length })}
            </button>
          )}
        </div>
      )}
      <ListTable loaded={pages.length > 0} rows={rows.length} label={t('com.table')} count={t('aff.shown', { count: rows.length })} more={next ? () => load(next, false) : undefined}
        empty={<EmptyListOf status={status} counts={counts} title={t('com.empty.title')} text={t('com.empty.text')} action={can('program:write') && <ConnectPayments c={c} />} />}
      >
        <thead>
          <tr>
            {write && (
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label={t('com.selectAll')}
                  disabled={!pending.length}
                  checked={pending.length > 0 && pending.every((r) => selected.has(r.id))}
                  onChange={(e) => setSelected(e.currentTarget.checked ? new Set(pending.map((r) => r.id)) : new Set())}
                />
              </th>
            )}
            <th scope="col">{t('afcol.affiliate')}</th>
            <th scope="col" class="num">
              {t('afcol.amount')}
            </th>
            <th scope="col">{t('col.status')}</th>
            <th scope="col">{t('afcol.customer')}</th>
            <th scope="col" class="num">
              {t('afcol.sale')}
            </th>
            <th scope="col">{t('afcol.created')}</th>
            {write && <th scope="col">{t('afcol.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const vars = { amount: amountOf(r), who: who[r.referrerId]! };
            return (
              <tr key={r.id}>
                {write && (
                  <td>
                    <input type="checkbox" aria-label={t('com.selectLabel', vars)} disabled={r.status !== 'PENDING'} checked={selected.has(r.id)} onChange={(e) => toggle(r.id, e.currentTarget.checked)} />
                  </td>
                )}
                <th scope="row">{who[r.referrerId]}</th>
                <td class="num">
                  {amountOf(r)}
                  {r.currencyISO !== r.campaignCurrencyISO && r.amountInCampaignCurrency !== null && <span class="sub">{money(r.amountInCampaignCurrency, r.campaignCurrencyISO)}</span>}
                </td>
                <td>
                  <StatusBadge prefix="cstatus" status={r.status} />
                  {r.status === 'PENDING' && r.holdDuration ? <span class="sub">{t('com.hold', { count: num(r.holdDuration) })}</span> : null}
                </td>
                <td>
                  {customers[r.referredId]} <span class="sub">{r.event}</span>
                </td>
                <td class="num">{r.saleAmount === null ? '—' : money(r.saleAmount, r.currencyISO)}</td>
                <td>{when(r.createdAt)}</td>
                {write && (
                  <td>
                    {r.status === 'PENDING' && (
                      <RowButtons
                        buttons={[
                          mayApprove && { text: t('com.approve'), label: t('com.approveLabel', vars), disabled: busy, onClick: () => run('approve', [r]) },
                          mayDelete && { text: t('com.delete'), label: t('com.deleteLabel', vars), kind: 'danger', disabled: busy, onClick: () => run('delete', [r]) },
                        ]}
                      />
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </ListTable>
    </>
  );
}

export default function Commissions({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <AffiliatePage programId={id} title={t('com.title')}>
      {(c) => (
        <>
          <p class="hint">{t('com.help')}</p>
          <CountedStates url={`${campaignPath(c.id)}/commissions/counts`} states={STATUSES} preferred="PENDING" all="">
            {(status, counts, recount) => <List c={c} status={status} counts={counts} recount={recount} />}
          </CountedStates>
        </>
      )}
    </AffiliatePage>
  );
}
