// The guided first-program setup: five steps, each its own address (`/console/setup` before the
// program exists, then `/console/programs/{id}/setup/{step}`), so Back and Forward, reloads and
// shared links land on the same step. Each step is a plain form (Enter submits); the heading names
// the step and takes focus.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, can, session } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { announce, Async, ErrorSummary, PageTitle, useAction } from '../ui.tsx';
import { t, type MessageKey } from '../i18n/index.ts';
import { defaultProgramName, rememberProgramType } from '../program-type.ts';
import { RewardForm } from '../reward-form.tsx';
import { WidgetPreview } from '../widget-preview.tsx';
import { DesignFields } from './settings-design.tsx';
import { Snippet } from './settings-installation.tsx';
import { SaveError, setIn, TextField } from './settings-kit.tsx';
import { programRenamed } from '../programs.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import type { CampaignReward } from '../../shared/schemas/reward-config.ts';
import type { CampaignDesign } from '../../shared/schemas/program-config-design.ts';
import { draftBrandColors } from '../../shared/brand.ts';

const STEPS = ['program', 'reward', 'design', 'install', 'launch'] as const;
type Step = (typeof STEPS)[number];
const stepUrl = (id: string, step: Step) => `/console/programs/${encodeURIComponent(id)}/setup/${step}`;

function Progress({ step }: { step: Step }) {
  const at = STEPS.indexOf(step);
  return (
    <ol class="steps" aria-label={t('setup.progress')}>
      {STEPS.map((s, i) => (
        <li key={s} class={i < at ? 'done' : i === at ? 'current' : ''} aria-current={i === at ? 'step' : undefined}>
          <span class="step-n" aria-hidden="true">
            {i + 1}
          </span>{' '}
          {t(`setup.step.${s}`)}
          {i < at && <span class="visually-hidden"> {t('setup.completed')}</span>}
        </li>
      ))}
    </ol>
  );
}

/** Back (to the previous step's address) and the step's submit button. */
function Nav({ back, next, busy }: { back?: string; next: string; busy?: boolean }) {
  return (
    <div class="buttons setup-nav">
      {back && (
        <button type="button" class="secondary" onClick={() => navigate(back)}>
          {t('setup.back')}
        </button>
      )}
      <button type="submit" disabled={busy}>
        {busy ? t('form.saving') : next}
      </button>
    </div>
  );
}

function ProgramStep({ campaign }: { campaign?: Campaign }) {
  const [type, setType] = useState<'REFERRAL' | 'AFFILIATE'>(campaign?.type ?? 'REFERRAL');
  const [name, setName] = useState(campaign?.name ?? defaultProgramName('REFERRAL'));
  const [currency, setCurrency] = useState(campaign?.currencyISO ?? 'USD');
  const { busy, error, run } = useAction();
  const choose = (v: 'REFERRAL' | 'AFFILIATE') => {
    // The offered name follows the type until the owner writes their own.
    if (name === defaultProgramName(type)) setName(defaultProgramName(v));
    setType(v);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      // The name is always sent: the API refuses an empty one (next to the field) instead of naming the program itself.
      const c = campaign
        ? await api<Campaign>('PATCH', `/campaign/${encodeURIComponent(campaign.id)}`, { name })
        : await api<Campaign>('POST', '/campaigns', { type, name, currencyISO: currency.trim() || undefined });
      rememberProgramType(c.id, c.type);
      if (campaign) programRenamed(c.id, c.name);
      else announce(t('create.done', { name: c.name }));
      navigate(stepUrl(c.id, 'reward'));
    });
  };
  return (
    <form onSubmit={submit} class="card" aria-labelledby="step-title" noValidate>
      <ErrorSummary error={error} />
      <fieldset disabled={!!campaign}>
        <legend>{t('create.type')}</legend>
        {campaign && <p class="hint">{t('setup.typeFixed')}</p>}
        {(['REFERRAL', 'AFFILIATE'] as const).map((v) => (
          <label class="choice" key={v}>
            <input type="radio" name="setup-type" value={v} checked={type === v} onChange={() => choose(v)} />
            <span>
              <strong>{t(`type.${v}`)}</strong> {t(v === 'REFERRAL' ? 'create.referralHint' : 'create.affiliateHint')}
            </span>
          </label>
        ))}
      </fieldset>
      <TextField id="setup-name" field="name" error={error} label={t('create.name')} hint={t('setup.nameHint')} value={name} maxLength={255} required onInput={setName} />
      {!campaign && (
        <TextField id="setup-currency" field="currencyISO" error={error} label={t('create.currency')} value={currency} maxLength={3} size={5} autoComplete="off" onInput={setCurrency} />
      )}
      <Nav next={t('setup.next')} busy={busy} />
    </form>
  );
}

function RewardStep({ campaign }: { campaign: Campaign }) {
  const back = stepUrl(campaign.id, 'program');
  return (
    <Async depKey={campaign.id} load={() => api<{ rewards: CampaignReward[] }>('GET', `/campaign/${encodeURIComponent(campaign.id)}/reward-configs`)}>
      {({ rewards }) => (
        <div class="card">
          <p>{t(rewards.length ? 'setup.rewardStarter' : 'setup.rewardNone')}</p>
          <RewardForm
            programId={campaign.id}
            programType={campaign.type}
            currency={campaign.currencyISO ?? 'USD'}
            // The starter is a switched-off placeholder (rest-v2 §3.2: nothing is awarded until enabled); configuring it here switches it on.
            reward={rewards[0] && { ...rewards[0], isVisible: true }}
            idPrefix="setup-reward"
            submitLabel={t('setup.saveNext')}
            cancelLabel={t('setup.back')}
            onCancel={() => navigate(back)}
            onSaved={(r) => {
              announce(t('reward.updated', { title: r.title ?? r.id }));
              navigate(stepUrl(campaign.id, 'design'));
            }}
          />
        </div>
      )}
    </Async>
  );
}

function DesignStep({ campaign, saved }: { campaign: Campaign; saved: CampaignDesign }) {
  const [edited, setDraft] = useState(saved);
  // The colours that follow the brand (issue #32) follow the unsaved main colour too, in the preview.
  const draft = useMemo(() => draftBrandColors(saved, edited), [saved, edited]);
  const [changes, setChanges] = useState<Record<string, unknown>>({});
  const { busy, error, run } = useAction();
  const set = (path: string, v: unknown) => {
    setDraft((d) => setIn(d, path, v));
    setChanges((c) => setIn(c, path, v));
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      if (Object.keys(changes).length) await api('PATCH', `/campaign/${encodeURIComponent(campaign.id)}/design`, changes);
      navigate(stepUrl(campaign.id, 'install'));
    });
  };
  return (
    <div class="split">
      <form onSubmit={submit} class="card settings-form" noValidate>
        <SaveError error={error} />
        <DesignFields draft={draft} set={set} error={error} compact />
        <Nav back={stepUrl(campaign.id, 'reward')} next={t('setup.saveNext')} busy={busy} />
      </form>
      <WidgetPreview programId={campaign.id} design={draft} />
    </div>
  );
}

function InstallStep({ campaign }: { campaign: Campaign }) {
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        navigate(stepUrl(campaign.id, 'launch'));
      }}
    >
      <p>{t('setup.installIntro')}</p>
      <Snippet programId={campaign.id} />
      <Nav back={stepUrl(campaign.id, 'design')} next={t('setup.next')} />
    </form>
  );
}

function LaunchStep({ campaign }: { campaign: Campaign }) {
  const { busy, error, run } = useAction();
  const programUrl = `/console/programs/${encodeURIComponent(campaign.id)}`;
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await api('PATCH', `/campaign/${encodeURIComponent(campaign.id)}`, { status: 'IN_PROGRESS' });
      announce(t('setup.launched', { name: campaign.name }));
      navigate(programUrl);
    });
  };
  if (campaign.status !== 'DRAFT') return <p class="card">{t('setup.alreadyLive')}</p>;
  // A team not yet verified sends no participant email or affiliate invite (issue #32): say so before launch.
  const unverified = session.value && session.value.team?.verificationStatus !== 'VERIFIED';
  return (
    <form onSubmit={submit} class="card">
      <p>{t('setup.launchIntro', { name: campaign.name })}</p>
      {unverified && (
        <div class="warning" role="note">
          <p>{t(campaign.type === 'AFFILIATE' ? 'home.todo.verifyAffiliate' : 'home.todo.verify')}</p>
          <p>
            <Link href="/console/team">{t('setup.verifyLink')}</Link>
          </p>
        </div>
      )}
      <ErrorSummary error={error} />
      <Nav back={stepUrl(campaign.id, 'install')} next={t('setup.launch')} busy={busy} />
      <p>
        <a
          href={programUrl}
          onClick={(e) => {
            e.preventDefault();
            navigate(programUrl);
          }}
        >
          {t('setup.later')}
        </a>
      </p>
    </form>
  );
}

function Steps({ step, campaign }: { step: Step; campaign?: Campaign }) {
  const n = STEPS.indexOf(step) + 1;
  const title = t('setup.title', { n, total: STEPS.length, step: t(`setup.step.${step}` as MessageKey) });
  return (
    <>
      <PageTitle>{title}</PageTitle>
      <Progress step={step} />
      <h2 id="step-title" class="visually-hidden">
        {t(`setup.step.${step}`)}
      </h2>
      {step === 'program' && <ProgramStep campaign={campaign} />}
      {campaign && step === 'reward' && <RewardStep campaign={campaign} />}
      {campaign && step === 'design' && (
        <Async depKey={`${campaign.id}-design`} load={() => api<CampaignDesign>('GET', `/campaign/${encodeURIComponent(campaign.id)}/design`)}>
          {(d) => <DesignStep campaign={campaign} saved={d} />}
        </Async>
      )}
      {campaign && step === 'install' && <InstallStep campaign={campaign} />}
      {campaign && step === 'launch' && <LaunchStep campaign={campaign} />}
    </>
  );
}

export default function SetupPage({ params }: { params: Record<string, string> }) {
  if (!can('program:write')) return <p>{t('create.readOnly')}</p>;
  const id = params.programId;
  const step = (STEPS as readonly string[]).includes(params.step ?? '') ? (params.step as Step) : 'program';
  if (!id) return <Steps step="program" />;
  return (
    <Async depKey={`${id}-${step}`} load={() => api<Campaign>('GET', `/campaign/${encodeURIComponent(id)}`)}>
      {(c) => <Steps step={step} campaign={c} />}
    </Async>
  );
}
