// Program settings, Rewards (RC1–RC4): the program's reward configurations, each editable in
// place or deleted after confirming, and a form to add another of a type the program allows.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, ErrorSummary, PageTitle } from '../ui.tsx';
import { money, t } from '../i18n/index.ts';
import { RewardForm } from '../reward-form.tsx';
import type { CampaignReward } from '../../shared/schemas/reward-config.ts';

type Type = 'REFERRAL' | 'AFFILIATE';

/** A reward's terms in one line. */
function summary(r: CampaignReward): string {
  const c = r.commissionStructure;
  if (c) return c.type === 'PERCENT' ? t('reward.sumPercent', { percent: c.percent ?? 0 }) : t('reward.sumFixed', { amount: money(c.amount ?? 0, c.amountISO) });
  const parts = [r.description ?? ''];
  if (r.type === 'MILESTONE') parts.push(t('reward.sumMilestone', { count: r.conversionsRequired ?? 0 }));
  if (r.type === 'LEADERBOARD') parts.push(t('reward.sumWinners', { count: r.numberOfWinners ?? 0 }));
  return parts.filter(Boolean).join(' · ');
}

function Rewards({ programId, type, currency, rewards, reload }: { programId: string; type: Type; currency: string; rewards: CampaignReward[]; reload: () => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const write = can('program:write');
  const remove = async (r: CampaignReward) => {
    if (!confirm(t('reward.confirmDelete', { title: r.title ?? r.id }))) return;
    setError(null);
    try {
      await api('DELETE', `/campaign/${encodeURIComponent(programId)}/reward-configs/${encodeURIComponent(r.id)}`);
      announce(t('reward.deleted', { title: r.title ?? r.id }));
      reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <ErrorSummary error={error} />
      {rewards.length === 0 ? (
        <p>{t('reward.none')}</p>
      ) : (
        <ul class="reward-list">
          {rewards.map((r) => (
            <li key={r.id} class="card">
              {editing === r.id ? (
                <>
                  <h2 id={`r-${r.id}`}>{t('reward.editTitle', { title: r.title ?? r.id })}</h2>
                  <RewardForm
                    programId={programId}
                    programType={type}
                    currency={currency}
                    reward={r}
                    idPrefix={`edit-${r.id}`}
                    submitLabel={t('reward.saveChanges')}
                    onCancel={() => setEditing(null)}
                    onSaved={(saved) => {
                      setEditing(null);
                      announce(t('reward.updated', { title: saved.title ?? saved.id }));
                      reload();
                    }}
                  />
                </>
              ) : (
                <>
                  <h2 id={`r-${r.id}`}>{r.title ?? r.id}</h2>
                  <p>
                    <span class="badge">{t(`reward.type.${r.type}`)}</span> {summary(r)}
                    {!r.isVisible && <span class="badge"> {t('reward.hidden')}</span>}
                  </p>
                  {write && (
                    <div class="buttons compact">
                      <button type="button" class="secondary small" aria-label={t('reward.editLabel', { title: r.title ?? r.id })} onClick={() => setEditing(r.id)}>
                        {t('reward.edit')}
                      </button>
                      <button type="button" class="danger small" aria-label={t('reward.deleteLabel', { title: r.title ?? r.id })} onClick={() => remove(r)}>
                        {t('reward.delete')}
                      </button>
                    </div>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {write &&
        (adding ? (
          <section class="card" aria-labelledby="add-reward-title">
            <h2 id="add-reward-title">{t('reward.addTitle')}</h2>
            <RewardForm
              programId={programId}
              programType={type}
              currency={currency}
              idPrefix="new"
              submitLabel={t('reward.create')}
              onCancel={() => setAdding(false)}
              onSaved={(saved) => {
                setAdding(false);
                announce(t('reward.created', { title: saved.title ?? saved.id }));
                reload();
              }}
            />
          </section>
        ) : (
          <button type="button" onClick={() => setAdding(true)}>
            {t('reward.add')}
          </button>
        ))}
    </>
  );
}

export default function RewardsSettingsPage({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const path = `/campaign/${encodeURIComponent(id)}`;
  return (
    <>
      <PageTitle>{t('settings.rewardsTitle')}</PageTitle>
      <Async depKey={id} load={() => Promise.all([api<{ type: Type; currencyISO: string | null }>('GET', path), api<{ rewards: CampaignReward[] }>('GET', `${path}/reward-configs`)])}>
        {([c, list], reload) => <Rewards programId={id} type={c.type} currency={c.currencyISO ?? 'USD'} rewards={list.rewards} reload={reload} />}
      </Async>
    </>
  );
}
