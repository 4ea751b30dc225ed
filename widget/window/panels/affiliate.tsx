// Affiliate panels: summary, commissions, payouts and payout settings. Their operations come with
// issue #6; until then they answer 404 and the panels say "not available".
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { countUnread, ctx, me, state } from '../state.ts';
import { commissions, markCommissionsRead, markPayoutsRead, payouts, requestPayoutConfirmation } from '../ops.ts';
import { Async, KitCss, Tiles, day, money } from '../kit.tsx';
import { Note, Section, copy, design, errorText } from '../ui.tsx';

/** Affiliate summary tiles: clicks, referral revenue, total paid out, upcoming payout. */
export function AffiliateSummary() {
  const d = design().affiliateSummary;
  // The design's three tiles keep their labels and visibility; the upcoming payout has no design entry.
  const tile = (k: 'clicks' | 'revenue' | 'payouts', key: MessageKey, v: string | number): Array<[string, string | number]> =>
    d?.tiles?.[k]?.isVisible === false ? [] : [[copy(d?.tiles?.[k]?.label, key), v]];
  return (
    <Section title={copy(d?.title, 'affiliate.title')}>
      <Async load={ctx.api.affiliateSummary}>
        {(m) => (
          <Tiles
            items={[
              ...tile('clicks', 'affiliate.clicks', me()?.impressionCount ?? 0),
              ...tile('revenue', 'affiliate.revenue', money(m.referralRevenue, m.currencyISO)),
              ...tile('payouts', 'affiliate.paid', money(m.totalPaidOut, m.currencyISO)),
              [t('affiliate.upcoming'), money(m.upcomingPayout, m.currencyISO)],
            ]}
          />
        )}
      </Async>
    </Section>
  );
}

type Row = { id: string; status: string; createdAt: number; amount: number | null; currencyISO: string };

/** Commissions or payouts: the list, and mark-read while the summary counts unread ones. */
function Ledger(props: { title: MessageKey; prefix: 'commissions' | 'payouts'; load: () => Promise<Row[]>; unread: 'unreadCommissionsCount' | 'unreadPayoutsCount'; markRead: () => Promise<unknown> }) {
  const load = () => Promise.all([props.load(), ctx.api.affiliateSummary().then((m) => m[props.unread], () => 0)]);
  const d = design()[props.prefix] as { title?: string; emptyState?: string; statusLabels?: Record<string, string> } | undefined;
  return (
    <Section title={copy(d?.title, props.title)}>
      <Async load={load} empty={([l]) => !l.length} emptyText={copy(d?.emptyState, `${props.prefix}.empty` as MessageKey)}>
        {([rows, unread], reload) => (
          <>
            {unread > 0 && <p class="new">{t('badge.label', { count: unread })}</p>}
            <ul>
              {rows.map((r) => (
                <li key={r.id}>
                  <span>{money(r.amount, r.currencyISO)}</span>
                  <span class="m">
                    {copy(d?.statusLabels?.[r.status], `${props.prefix}.${r.status}` as MessageKey)} · {day(r.createdAt)}
                  </span>
                </li>
              ))}
            </ul>
            {unread > 0 && (
              <button type="button" class="s" onClick={() => props.markRead().then(countUnread).then(reload, reload)}>
                {t('rewards.markRead')}
              </button>
            )}
          </>
        )}
      </Async>
    </Section>
  );
}

/** The affiliate's commissions. */
export function Commissions() {
  return <Ledger title="commissions.title" prefix="commissions" load={() => commissions({ limit: 50 }).then((l) => l.commissions)} unread="unreadCommissionsCount" markRead={markCommissionsRead} />;
}

/** The affiliate's payouts. */
export function Payouts() {
  return <Ledger title="payouts.title" prefix="payouts" load={() => payouts({ limit: 50 }).then((l) => l.payouts)} unread="unreadPayoutsCount" markRead={markPayoutsRead} />;
}

/** Payout settings: what is still required, and the program's enabled providers (confirm only when canConfirm). */
export function PayoutSettings() {
  const [msg, setMsg] = useState('');
  const s = state.value;
  if (s.status !== 'ready') return null;
  const providers = s.win.payoutSettings.payoutDestinations.enabledProviders;
  const required = s.win.participant?.payoutSettings?.requiredActions ?? [];
  const confirm = async (provider: string) => {
    try {
      const r = await requestPayoutConfirmation(provider);
      setMsg(t('payoutSettings.requested', { provider: r.providerDisplayName }));
    } catch (e) {
      setMsg(errorText(e));
    }
  };
  return (
    <Section title={copy(s.win.design?.participantSettings?.title, 'payoutSettings.title')}>
      {required.length > 0 && <p>{t('payoutSettings.required', { actions: required.map((a) => t(`payoutSettings.${a}` as MessageKey)).join(', ') })}</p>}
      {!providers.length && <p class="m">{t('payoutSettings.empty')}</p>}
      <KitCss />
      <ul>
        {providers.map((p) => (
          <li key={p.provider}>
            {p.canConfirm ? (
              <button type="button" onClick={() => confirm(p.provider)}>
                {t('payoutSettings.confirm', { provider: p.provider })}
              </button>
            ) : (
              <span class="m">{t('payoutSettings.unavailable', { provider: p.provider })}</span>
            )}
          </li>
        ))}
      </ul>
      {msg && <Note text={msg} />}
    </Section>
  );
}
