// The participant page's lists: referrals (RF2), rewards (PR1, referral programs) or commissions
// (AF11, affiliate programs), and the activity log (P13, "Show more" by offset).
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { Link } from '../router.tsx';
import { Async, ErrorSummary } from '../ui.tsx';
import { money, t, when, type MessageKey } from '../i18n/index.ts';
import type { ParticipantCtx } from './participant.tsx';

type Referral = { id: string; email: string; firstName?: string; lastName?: string; referralStatus: string; createdAt: number };
type Reward = { id: string; status: string; isReferrer: boolean; approvedAt: number | null; fulfilledAt: number | null; createdAt?: number };
type Commission = { id: string; status: string; createdAt: number; currencyISO: string; amount: number | null; event: string };
type ActivityRow = { type: string; text: string; createdAt: number };

export function Referrals({ x }: { x: ParticipantCtx }) {
  const base = `/console/programs/${encodeURIComponent(x.c.id)}/participants/`;
  return (
    <section aria-labelledby="pt-referrals">
      <h2 id="pt-referrals">{t('pt.referrals')}</h2>
      <Async depKey={`${x.p.id}/${x.p.referralCount}`} load={() => api<{ referrals: Referral[] }>('GET', `${x.path}/referrals${query({ limit: 50 })}`)}>
        {({ referrals }) =>
          referrals.length === 0 ? (
            <p>{t('pt.noReferrals')}</p>
          ) : (
            <ul class="plain rows">
              {referrals.map((r) => (
                <li key={r.id}>
                  {r.id.startsWith('inv_') ? r.email : <Link href={base + encodeURIComponent(r.id)}>{r.email}</Link>} · {t(`pt.status.${r.referralStatus}` as MessageKey)} · {when(r.createdAt)}
                </li>
              ))}
            </ul>
          )
        }
      </Async>
    </section>
  );
}

export function Rewards({ x }: { x: ParticipantCtx }) {
  return (
    <section aria-labelledby="pt-rewards">
      <h2 id="pt-rewards">{t('pt.rewards')}</h2>
      <Async depKey={x.p.id} load={() => api<{ rewards: Reward[] }>('GET', `${x.path}/rewards${query({ limit: 50 })}`)}>
        {({ rewards }) =>
          rewards.length === 0 ? (
            <p>{t('pt.noRewards')}</p>
          ) : (
            <ul class="plain rows">
              {rewards.map((r) => (
                <li key={r.id}>
                  <strong>{t(r.status === 'FULFILLED' ? 'rewards.state.FULFILLED' : r.approvedAt != null ? 'rewards.state.APPROVED' : 'rewards.state.AWAITING_APPROVAL')}</strong> · {t(r.isReferrer ? 'pt.reward.referrer' : 'pt.reward.friend')}
                  {r.fulfilledAt ? ` · ${when(r.fulfilledAt)}` : r.approvedAt ? ` · ${when(r.approvedAt)}` : ''}
                </li>
              ))}
            </ul>
          )
        }
      </Async>
    </section>
  );
}

export function Commissions({ x }: { x: ParticipantCtx }) {
  return (
    <section aria-labelledby="pt-commissions">
      <h2 id="pt-commissions">{t('pt.commissions')}</h2>
      <Async depKey={x.p.id} load={() => api<{ commissions: Commission[] }>('GET', `${x.path}/commissions${query({ limit: 50 })}`)}>
        {({ commissions }) =>
          commissions.length === 0 ? (
            <p>{t('pt.noCommissions')}</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption>{t('pt.commissions')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('pt.col.earned')}</th>
                    <th scope="col">{t('pt.col.event')}</th>
                    <th scope="col">{t('col.status')}</th>
                    <th scope="col" class="num">
                      {t('pt.col.amount')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {commissions.map((m) => (
                    <tr key={m.id}>
                      <td>{when(m.createdAt)}</td>
                      <td>{m.event}</td>
                      <td>{t(`cstatus.${m.status}` as MessageKey)}</td>
                      <td class="num">{m.amount === null ? '—' : money(m.amount, m.currencyISO)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Async>
    </section>
  );
}

export function Activity({ x }: { x: ParticipantCtx }) {
  const [rows, setRows] = useState<ActivityRow[]>([]);
  const [offset, setOffset] = useState<number | null>(0);
  const [error, setError] = useState<unknown>(null);
  const more = async (from: number) => {
    setError(null);
    try {
      const page = await api<{ activityLogs: ActivityRow[]; offset: number | null }>('GET', `${x.path}/activity-logs${query({ limit: 20, offset: from })}`);
      setRows((r) => (from === 0 ? page.activityLogs : [...r, ...page.activityLogs]));
      setOffset(page.offset);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void more(0);
  }, [x.p.id]);
  return (
    <section aria-labelledby="pt-activity">
      <h2 id="pt-activity">{t('pt.activity')}</h2>
      <ErrorSummary error={error} />
      {rows.length === 0 && !error ? (
        <p>{t('pt.noActivity')}</p>
      ) : (
        <ol class="plain rows">
          {rows.map((r, i) => (
            <li key={i}>
              <time dateTime={new Date(r.createdAt).toISOString()}>{when(r.createdAt)}</time> · {r.text}
            </li>
          ))}
        </ol>
      )}
      {offset !== null && rows.length > 0 && (
        <button type="button" class="secondary" onClick={() => more(offset)}>
          {t('pt.moreActivity')}
        </button>
      )}
    </section>
  );
}
