// Home: the team's programs with their state and headline numbers, the guided setup as the one
// primary action (an empty state says so for a team with none), and a quick create form.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { announce, Async, Badge, ErrorSummary, Field, useAction } from '../ui.tsx';
import { Button, ButtonLink, Card, EmptyState, PageHeader, StatusBadge, Table } from '../components.tsx';
import { num, t } from '../i18n/index.ts';
import { messageFor } from '../field-messages.ts';
import { defaultProgramName } from '../program-type.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';

function Programs({ campaigns }: { campaigns: Campaign[] }) {
  if (!campaigns.length)
    return (
      <Card id="no-programs">
        <EmptyState title={t('home.emptyTitle')} text={t('home.emptyText')} action={can('program:write') ? <ButtonLink href="/console/setup">{t('home.setupLink')}</ButtonLink> : undefined} />
      </Card>
    );
  return (
    <Table caption={t('home.table')} count={campaigns.length}>
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
            <td data-label={t('col.type')}>
              <Badge k={`type.${c.type}`} />
            </td>
            <td data-label={t('col.status')}>
              <StatusBadge state={c.status}>{t(`status.${c.status}`)}</StatusBadge>
            </td>
            <td class="num" data-label={t('col.participants')}>
              {num(c.participantCount)}
            </td>
            <td class="num" data-label={t('col.referrals')}>
              {num(c.referralCount)}
            </td>
            <td class="num" data-label={t('col.impressions')}>
              {num(c.impressionCount)}
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function CreateProgram() {
  const [type, setType] = useState<'REFERRAL' | 'AFFILIATE'>('REFERRAL');
  const [name, setName] = useState(defaultProgramName('REFERRAL'));
  const [currency, setCurrency] = useState('USD');
  const { busy, error, run } = useAction();
  if (!can('program:write')) return <p>{t('create.readOnly')}</p>;
  const choose = (v: 'REFERRAL' | 'AFFILIATE') => {
    // The offered name follows the type until the owner writes their own.
    if (name === defaultProgramName(type)) setName(defaultProgramName(v));
    setType(v);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const created = await api<Campaign>('POST', '/campaigns', { type, name, currencyISO: currency.trim() || undefined });
      announce(t('create.done', { name: created.name }));
      navigate(`/console/programs/${encodeURIComponent(created.id)}`);
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby="create-title" class="card" noValidate>
      <div class="card-header">
        <div>
          <h2 id="create-title">{t('create.title')}</h2>
          <p>{t('home.quickCreateText')}</p>
        </div>
      </div>
      <ErrorSummary error={error} />
      <fieldset class="choice-cards-set">
        <legend>{t('create.type')}</legend>
        <div class="choice-cards">
          {(['REFERRAL', 'AFFILIATE'] as const).map((v) => (
            <label class="choice" key={v}>
              <input type="radio" name="type" value={v} checked={type === v} onChange={() => choose(v)} />
              <span>
                <strong>{t(`type.${v}`)}</strong>
                <span class="hint block">{t(v === 'REFERRAL' ? 'create.referralHint' : 'create.affiliateHint')}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <Field id="program-name" label={t('create.name')} error={messageFor(error, 'name')}>
        <input id="program-name" data-field="name" value={name} maxLength={255} required onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field id="program-currency" label={t('create.currency')}>
        <input id="program-currency" value={currency} maxLength={3} size={5} autoComplete="off" onInput={(e) => setCurrency(e.currentTarget.value)} />
      </Field>
      <Button type="submit" kind="secondary" disabled={busy}>
        {busy ? t('form.saving') : t('create.submit')}
      </Button>
    </form>
  );
}

/** The programs list: the team's programs with their state and numbers, "New program" as the one primary action, and a quick create form. */
export default function Home() {
  return (
    <>
      <PageHeader title={t('home.title')} meta={<p>{t('home.subtitle')}</p>} action={can('program:write') ? <ButtonLink href="/console/setup">{t('home.new')}</ButtonLink> : undefined} />
      <Async depKey="programs" load={() => api<{ campaigns: Campaign[] }>('GET', '/campaigns')}>
        {(d) => <Programs campaigns={d.campaigns} />}
      </Async>
      <CreateProgram />
    </>
  );
}
