// Payouts: run them (PO1), download the payout file (PO3: generic, PayPal or Wise CSV, saved as a
// file), list them (AF14, cursor pages) and report each one's outcome with a reason (PO2).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, ErrorSummary, Field, useAction, usePages } from '../ui.tsx';
import { download } from './data-table.tsx';
import { money, num, t, when, type MessageKey } from '../i18n/index.ts';
import { AffiliatePage, affiliatePath, campaignPath, EmptyListOf, StatusBadge, ListTable, StatusFilter, useEmails } from './affiliate-kit.tsx';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import { CountedStates, noneAtAll, type Counts } from '../state-counts.tsx';
import { ButtonLink } from '../components.tsx';
import type { Payout, PayoutList, PayoutRunResponse } from '../../shared/schemas/payout.ts';

const STATUSES = ['UPCOMING', 'QUEUED', 'ISSUED', 'FAILED', 'REVERSED'] as const;
const FORMATS = ['generic', 'paypal', 'wise'] as const;
/** The moves PO2 allows from each status. */
const MOVES: Record<Payout['status'], Array<'QUEUED' | 'ISSUED' | 'FAILED' | 'REVERSED'>> = {
  UPCOMING: ['ISSUED', 'QUEUED', 'FAILED'],
  QUEUED: ['ISSUED', 'FAILED'],
  ISSUED: ['REVERSED'],
  FAILED: [],
  REVERSED: [],
};

function Run({ c, ran }: { c: Campaign; ran: () => void }) {
  const a = useAction();
  const run = () =>
    a.run(async () => {
      const res = await api<PayoutRunResponse>('POST', `${campaignPath(c.id)}/payouts/run`, {});
      announce(t('pay.created', { count: res.payoutsCreated }));
      ran();
    });
  return (
    <section class="card" aria-labelledby="run-title">
      <h2 id="run-title">{t('pay.run')}</h2>
      <p class="hint">{t('pay.runHelp')}</p>
      <ErrorSummary error={a.error} />
      <button type="button" disabled={a.busy} onClick={run}>
        {t('pay.runButton')}
      </button>
    </section>
  );
}

function Export({ c }: { c: Campaign }) {
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('generic');
  const [status, setStatus] = useState('');
  const [currency, setCurrency] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const cur = currency.trim().toUpperCase();
      const text = await api<string>('GET', `${campaignPath(c.id)}/payouts/export.csv${query({ format, status, currency: cur })}`);
      const lines = text.split('\r\n').filter(Boolean).length - (format === 'paypal' ? 0 : 1);
      const file = `payouts-${c.id}-${format}${cur ? `-${cur}` : ''}.csv`;
      download(file, text);
      announce(t('pay.downloaded', { file, count: lines }));
    });
  };
  return (
    <form class="card" aria-labelledby="export-title" onSubmit={submit}>
      <h2 id="export-title">{t('pay.export')}</h2>
      <p class="hint">{t('pay.exportHelp')}</p>
      <ErrorSummary error={error} />
      <div class="row">
        <Field id="export-format" label={t('pay.format')}>
          <select id="export-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as typeof format)}>
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {t(`fmt.${f}`)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="export-status" label={t('pay.exportStatus')}>
          <select id="export-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">{t('pay.toPay')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`pstatus.${s}`)}
              </option>
            ))}
          </select>
        </Field>
        <Field id="export-currency" label={t('pay.currency')}>
          <input id="export-currency" value={currency} maxLength={3} size={5} autoComplete="off" onInput={(e) => setCurrency(e.currentTarget.value)} />
        </Field>
      </div>
      <button type="submit" disabled={busy}>
        {t('pay.download')}
      </button>
    </form>
  );
}

function Outcome({ c, p, who, done, cancel }: { c: Campaign; p: Payout; who: string; done: (next: Payout) => void; cancel: () => void }) {
  const moves = MOVES[p.status];
  const [status, setStatus] = useState(moves[0] ?? '');
  const [reason, setReason] = useState('');
  const { busy, error, run } = useAction();
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), [p.id]);
  const vars = { amount: money(p.amount, p.currencyISO), who };
  const noDestination = status === 'ISSUED' && !p.provider;
  const submit = (e: Event) => {
    e.preventDefault();
    void run(
      async () => {
        const next = await api<Payout>('POST', `${campaignPath(c.id)}/payouts/${encodeURIComponent(p.id)}/status`, { status, reason: reason.trim() || undefined });
        announce(t('pay.saved', { ...vars, status: t(`pstatus.${next.status}`) }));
        done(next);
      },
      // Paid without a destination on file: only if the owner paid another way, so ask first (issue #32).
      noDestination ? t('pay.noDestinationConfirm', vars) : undefined,
    );
  };
  return (
    <form class="card" aria-labelledby="outcome-title" onSubmit={submit}>
      <h2 id="outcome-title" tabIndex={-1} ref={ref}>
        {t('pay.updateTitle', vars)}
      </h2>
      <p class="hint">{t('pay.updateHelp')}</p>
      <ErrorSummary error={error} />
      {moves.length ? (
        <>
          <fieldset>
            <legend>{t('pay.newStatus')}</legend>
            {moves.map((m) => (
              <label class="choice" key={m}>
                <input type="radio" name="payout-status" value={m} checked={status === m} onChange={() => setStatus(m)} />
                <span>{t(`pstatus.${m}` as MessageKey)}</span>
              </label>
            ))}
          </fieldset>
          {noDestination && (
            <p class="warning" id="payout-no-destination">
              {t('pay.noDestinationWarning', { who })}
            </p>
          )}
          <Field id="payout-reason" label={t('pay.reason')}>
            <textarea id="payout-reason" rows={2} maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </Field>
        </>
      ) : (
        <p>{t('pay.final')}</p>
      )}
      <div class="buttons">
        {moves.length > 0 && (
          <button type="submit" disabled={busy}>
            {t('pay.save')}
          </button>
        )}
        <button type="button" class="secondary" onClick={cancel}>
          {t('pay.cancel')}
        </button>
      </div>
    </form>
  );
}

function List({ c, version, status, counts, recount }: { c: Campaign; version: number; status: (typeof STATUSES)[number] | ''; counts: Counts | null; recount: () => void }) {
  const { pages, setPages, error, load } = usePages<PayoutList>((nextId) => `${campaignPath(c.id)}/payouts${query({ limit: 50, nextId, status })}`);
  const [editing, setEditing] = useState<string | null>(null);
  useEffect(() => {
    void load(null, true);
  }, [c.id, status, version]);
  const rows = pages.flatMap((p) => p.payouts);
  const next = pages.at(-1)?.nextId ?? null;
  const who = useEmails(c.id, rows.map((r) => r.participantId));
  const open = rows.find((r) => r.id === editing);
  const write = can('reward:write');
  return (
    <section aria-labelledby="payouts-title">
      <h2 id="payouts-title">{t('pay.table')}</h2>
      {!noneAtAll(counts) && <StatusFilter id="payout-status-filter" statuses={STATUSES} value={status} prefix="pstatus" counts={counts} />}
      <ErrorSummary error={error} />
      <ListTable loaded={pages.length > 0} rows={rows.length} label={t('pay.table')} count={t('aff.shown', { count: rows.length })} more={next ? () => load(next, false) : undefined}
        empty={<EmptyListOf status={status} counts={counts} title={t('pay.empty.title')} text={t('pay.empty.text')} action={<ButtonLink kind="secondary" href={affiliatePath(c.id, 'commissions')}>{t('pay.empty.commissions')}</ButtonLink>} />}
      >
        <thead>
          <tr>
            <th scope="col">{t('afcol.affiliate')}</th>
            <th scope="col" class="num">
              {t('afcol.amount')}
            </th>
            <th scope="col">{t('col.status')}</th>
            <th scope="col">{t('afcol.provider')}</th>
            <th scope="col" class="num">
              {t('afcol.commissions')}
            </th>
            <th scope="col">{t('afcol.created')}</th>
            {write && <th scope="col">{t('afcol.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <th scope="row">{who[r.participantId]}</th>
              <td class="num">{money(r.amount, r.currencyISO)}</td>
              <td>
                <StatusBadge prefix="pstatus" status={r.status} />
              </td>
              <td>{r.provider ?? t('pay.noDestination')}</td>
              <td class="num">{num(r.commissionIds.length)}</td>
              <td>{when(r.createdAt)}</td>
              {write && (
                <td>
                  {MOVES[r.status].length > 0 && (
                    // A paid payout can only be reversed (a bounce, a chargeback): its button says so.
                    <button type="button" class="secondary" aria-label={t(r.status === 'ISSUED' ? 'pay.reverseLabel' : 'pay.updateLabel', { amount: money(r.amount, r.currencyISO), who: who[r.participantId]! })} onClick={() => setEditing(r.id)}>
                      {t(r.status === 'ISSUED' ? 'pay.reverse' : 'pay.update')}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </ListTable>
      {open && (
        <Outcome
          key={open.id}
          c={c}
          p={open}
          who={who[open.participantId]!}
          cancel={() => setEditing(null)}
          done={(changed) => {
            setPages((ps) => ps.map((p) => ({ ...p, payouts: p.payouts.map((x) => (x.id === changed.id ? changed : x)) })));
            setEditing(null);
            recount();
          }}
        />
      )}
    </section>
  );
}

export default function Payouts({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const [version, setVersion] = useState(0);
  return (
    <AffiliatePage programId={id} title={t('pay.title')}>
      {(c) => (
        <>
          {can('reward:write') && <Run c={c} ran={() => setVersion((v) => v + 1)} />}
          <Export c={c} />
          <CountedStates key={version} url={`${campaignPath(c.id)}/payouts/counts`} states={STATUSES} preferred="UPCOMING" all="">
            {(status, counts, recount) => <List c={c} version={version} status={status} counts={counts} recount={recount} />}
          </CountedStates>
        </>
      )}
    </AffiliatePage>
  );
}
