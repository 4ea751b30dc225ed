// A program: its state and numbers, its rewards, and the state moves the API allows (launch, end,
// clone), each explained before it is taken.
import { api, can } from '../api.ts';
import { navigate } from '../router.tsx';
import { announce, Async, Badge, ErrorSummary, PageTitle, useAction } from '../ui.tsx';
import { num, t } from '../i18n/index.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';

function Actions({ c, reload }: { c: Campaign; reload: () => void }) {
  const { error, busy, run: act } = useAction();
  const move = (status: 'IN_PROGRESS' | 'COMPLETE') =>
    act(async () => {
      if (status === 'COMPLETE' && !confirm(t('program.confirmEnd', { name: c.name }))) return;
      await api('PATCH', `/campaign/${encodeURIComponent(c.id)}`, { status });
      announce(t(status === 'IN_PROGRESS' ? 'program.launched' : 'program.ended'));
      reload();
    });
  const clone = () =>
    act(async () => {
      const copy = await api<Campaign>('POST', `/campaign/${encodeURIComponent(c.id)}/clone`, {});
      announce(t('program.cloned', { name: copy.name }));
      navigate(`/console/programs/${encodeURIComponent(copy.id)}`);
    });
  const help = c.status === 'DRAFT' ? 'program.draftHelp' : c.status === 'IN_PROGRESS' ? 'program.liveHelp' : 'program.completeHelp';
  return (
    <section aria-labelledby="actions-title" class="card">
      <h2 id="actions-title">{t('program.actions')}</h2>
      <p>{t(help)}</p>
      <ErrorSummary error={error} />
      {can('program:write') && (
        <div class="buttons">
          {c.status === 'DRAFT' && (
            <button type="button" disabled={busy} onClick={() => move('IN_PROGRESS')}>
              {t('program.launch')}
            </button>
          )}
          {c.status !== 'COMPLETE' && (
            <button type="button" class="danger" disabled={busy} onClick={() => move('COMPLETE')}>
              {t('program.end')}
            </button>
          )}
          <button type="button" class="secondary" disabled={busy} onClick={clone}>
            {t('program.clone')}
          </button>
        </div>
      )}
    </section>
  );
}

function Overview({ c, reload }: { c: Campaign; reload: () => void }) {
  return (
    <>
      <PageTitle>{c.name}</PageTitle>
      <p class="badges">
        <Badge k={`type.${c.type}`} /> <Badge k={`status.${c.status}`} />
      </p>
      <dl class="stats">
        <div>
          <dt>{t('col.participants')}</dt>
          <dd>{num(c.participantCount)}</dd>
        </div>
        <div>
          <dt>{t('col.referrals')}</dt>
          <dd>{num(c.referralCount)}</dd>
        </div>
        <div>
          <dt>{t('col.impressions')}</dt>
          <dd>{num(c.impressionCount)}</dd>
        </div>
        <div>
          <dt>{t('program.currency')}</dt>
          <dd>{c.currencyISO ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('program.id')}</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
        </div>
      </dl>
      <section aria-labelledby="rewards-title" class="card">
        <h2 id="rewards-title">{t('program.rewards')}</h2>
        {c.rewards.length ? (
          <ul>
            {c.rewards.map((r) => (
              <li key={r.id}>{r.description || r.type}</li>
            ))}
          </ul>
        ) : (
          <p class="warning">{t('program.noRewards')}</p>
        )}
      </section>
      <Actions c={c} reload={reload} />
    </>
  );
}

export default function Program({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <Async depKey={id} load={() => api<Campaign>('GET', `/campaign/${encodeURIComponent(id)}`)}>
      {(c, reload) => <Overview c={c} reload={reload} />}
    </Async>
  );
}
