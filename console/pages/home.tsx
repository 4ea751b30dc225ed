// Home: the team's programs with their state and headline numbers, and creating a program.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { announce, Async, Badge, ErrorSummary, Field, PageTitle, useAction } from '../ui.tsx';
import { num, t } from '../i18n/index.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';

function Programs({ campaigns }: { campaigns: Campaign[] }) {
  if (!campaigns.length) return <p>{t('home.none')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>
          {t('home.table')} ({t('home.count', { count: campaigns.length })})
        </caption>
        <thead>
          <tr>
            <th scope="col">{t('col.name')}</th>
            <th scope="col">{t('col.type')}</th>
            <th scope="col">{t('col.status')}</th>
            <th scope="col" class="num">
              {t('col.participants')}
            </th>
            <th scope="col" class="num">
              {t('col.referrals')}
            </th>
            <th scope="col" class="num">
              {t('col.impressions')}
            </th>
          </tr>
        </thead>
        <tbody>
          {campaigns.map((c) => (
            <tr key={c.id}>
              <th scope="row">
                <Link href={`/console/programs/${encodeURIComponent(c.id)}`}>{c.name}</Link>
              </th>
              <td>
                <Badge k={`type.${c.type}`} />
              </td>
              <td>
                <Badge k={`status.${c.status}`} />
              </td>
              <td class="num">{num(c.participantCount)}</td>
              <td class="num">{num(c.referralCount)}</td>
              <td class="num">{num(c.impressionCount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CreateProgram() {
  const [type, setType] = useState<'REFERRAL' | 'AFFILIATE'>('REFERRAL');
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState('USD');
  const { busy, error, run } = useAction();
  if (!can('program:write')) return <p>{t('create.readOnly')}</p>;
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const created = await api<Campaign>('POST', '/campaigns', { type, name: name.trim() || undefined, currencyISO: currency.trim() || undefined });
      announce(t('create.done', { name: created.name }));
      navigate(`/console/programs/${encodeURIComponent(created.id)}`);
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby="create-title" class="card">
      <h2 id="create-title">{t('create.title')}</h2>
      <ErrorSummary error={error} />
      <fieldset>
        <legend>{t('create.type')}</legend>
        {(['REFERRAL', 'AFFILIATE'] as const).map((v) => (
          <label class="choice" key={v}>
            <input type="radio" name="type" value={v} checked={type === v} onChange={() => setType(v)} />
            <span>
              <strong>{t(`type.${v}`)}</strong> {t(v === 'REFERRAL' ? 'create.referralHint' : 'create.affiliateHint')}
            </span>
          </label>
        ))}
      </fieldset>
      <Field id="program-name" label={t('create.name')}>
        <input id="program-name" value={name} maxLength={255} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field id="program-currency" label={t('create.currency')}>
        <input id="program-currency" value={currency} maxLength={3} size={5} autoComplete="off" onInput={(e) => setCurrency(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? t('form.saving') : t('create.submit')}
      </button>
    </form>
  );
}

export default function Home() {
  return (
    <>
      <PageTitle>{t('home.title')}</PageTitle>
      <Async depKey="programs" load={() => api<{ campaigns: Campaign[] }>('GET', '/campaigns')}>
        {(d) => <Programs campaigns={d.campaigns} />}
      </Async>
      {can('program:write') && (
        <section class="card setup-cta" aria-labelledby="setup-title">
          <h2 id="setup-title">{t('home.setupTitle')}</h2>
          <p>{t('home.setupText')}</p>
          <Link href="/console/setup" class="button">
            {t('home.setupLink')}
          </Link>
        </section>
      )}
      <CreateProgram />
    </>
  );
}
