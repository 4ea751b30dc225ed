// Program settings, Options (CF5/CF6): every option of the document, grouped and in plain words, the
// rarely changed ones folded into <details>. Only what was changed is sent (PATCH merges); a refused
// value is explained next to its field.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, useAction } from '../ui.tsx';
import { Button, Card, PageHeader } from '../components.tsx';
import { programRenamed } from '../programs.ts';
import { t, type MessageKey } from '../i18n/index.ts';
import { CheckField, Group, SaveError, SelectField, TextField } from './settings-kit.tsx';
import { SpecField, SpecSection, useDraft } from './settings-spec.tsx';
import { APPLICATION_SECTION, COOKIE_WINDOW_DAYS, CREDIT_WINDOW_DAYS, FRAUD_SECTION, RECAPTCHA_SECTION, TAX_SECTION } from './settings-options-spec.ts';
import { Languages, PayoutSettings, PayoutThreshold, Questions, RecaptchaSecret } from './settings-options-extra.tsx';
import type { CampaignOptions } from '../../shared/schemas/program-config-options.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';

type Type = 'REFERRAL' | 'AFFILIATE';
const days = (n: number) => t('options.days', { count: n });

function OptionsForm({ programId, type, currency, saved }: { programId: string; type: Type; currency: string; saved: CampaignOptions }) {
  const { draft: d, busy, save, dirty } = useDraft(saved);
  const readOnly = !can('program:write');
  const doc = d.doc;
  const check = (p: string, l: MessageKey, h?: MessageKey) => <SpecField s={{ k: 'check', p, l, h }} d={d} prefix="op" />;
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await save((changes) => api<CampaignOptions>('PATCH', `/campaign/${encodeURIComponent(programId)}/options`, changes));
    announce(t(ok ? 'settings.saved' : 'settings.notSaved'));
  };
  const events = Object.keys(doc.notificationEmails.events);
  return (
    <form onSubmit={submit} class="settings-form" noValidate>
      <fieldset disabled={readOnly} class="bare">
        {type === 'REFERRAL' && (
          <Group id="g-rewards" title={t('options.rewards')}>
            {check('requireManualRewardApproval', 'options.requireManualRewardApproval', 'options.requireManualRewardApprovalHint')}
            {check('autoFulfillRewards', 'options.autoFulfillRewards', 'options.autoFulfillRewardsHint')}
          </Group>
        )}
        <SpecSection section={APPLICATION_SECTION} d={d} prefix="op" />
        {type === 'AFFILIATE' && (
          <Group id="g-form" title={t('op.form')}>
            <Questions d={d} />
          </Group>
        )}
        <Group id="g-payouts" title={t('op.payouts')}>
          {type === 'AFFILIATE' && <PayoutThreshold d={d} currency={currency} />}
          <PayoutSettings d={d} affiliate={type === 'AFFILIATE'} />
        </Group>
        <SpecSection section={TAX_SECTION} d={d} prefix="op" />
        <Group id="g-languages" title={t('op.languages')}>
          <Languages d={d} />
        </Group>
        <Group id="g-tracking" title={t('options.tracking')}>
          <SelectField
            id="o-referralCookieWindowDays"
            field="referralCookieWindowDays"
            error={d.error}
            label={t('options.cookieWindow')}
            hint={t('options.cookieWindowHint')}
            value={String(doc.referralCookieWindowDays)}
            options={COOKIE_WINDOW_DAYS.map((n) => [String(n), days(n)] as const)}
            onChange={(v) => d.set('referralCookieWindowDays', Number(v))}
          />
          <SelectField
            id="o-referralCreditWindowDays"
            field="referralCreditWindowDays"
            error={d.error}
            label={t('options.creditWindow')}
            hint={t('options.creditWindowHint')}
            value={String(doc.referralCreditWindowDays ?? 'never')}
            options={[['never', t('options.never')] as const, ...CREDIT_WINDOW_DAYS.map((n) => [String(n), days(n)] as const)]}
            onChange={(v) => d.set('referralCreditWindowDays', v === 'never' ? null : Number(v))}
          />
          <SelectField
            id="o-attributionModel"
            field="attributionModel"
            error={d.error}
            label={t('options.attribution')}
            value={doc.attributionModel}
            options={[['LAST_CLICK', t('options.lastClick')] as const, ['FIRST_CLICK', t('options.firstClick')] as const]}
            onChange={(v) => d.set('attributionModel', v)}
          />
          {check('blockPaidAdsTraffic', 'options.blockPaidAds', 'options.blockPaidAdsHint')}
          {type === 'REFERRAL' && check('allowClientSideReferralTrigger', 'options.clientTrigger', 'options.clientTriggerHint')}
        </Group>
        <Group id="g-privacy" title={t('options.privacy')}>
          {type === 'REFERRAL' && check('requireParticipantAuth', 'options.requireAuth', 'options.requireAuthHint')}
          {check('enforceGdprCompliance', 'options.gdpr', 'options.gdprHint')}
          <SpecField s={{ k: 'select', p: 'referralEmailPrivacy.masking', o: ['PARTIAL', 'FULL'], l: 'options.masking', ol: 'options.mask' }} d={d} prefix="op" />
          {check('referralEmailPrivacy.allowInvitedEmailDisclosureAfterSignIn', 'op.referralEmailPrivacy.allowInvitedEmailDisclosureAfterSignIn', 'op.referralEmailPrivacy.allowInvitedEmailDisclosureAfterSignIn.hint')}
        </Group>
        <SpecSection section={FRAUD_SECTION} d={d} prefix="op" />
        <Group id="g-op-recaptcha" title={t('op.recaptcha')}>
          {RECAPTCHA_SECTION.fields.map((s) => (
            <SpecField key={s.k === 'set' ? s.l : s.p} s={s} d={d} prefix="op" />
          ))}
          <RecaptchaSecret d={d} />
        </Group>
        <Group id="g-reminder" title={t('options.reminder')}>
          {check('followUpReminder.isEnabled', 'options.reminderOn', 'options.reminderHint')}
          <SpecField s={{ k: 'int', p: 'followUpReminder.delayDays', l: 'options.reminderDays', h: 'options.reminderDaysHint' }} d={d} prefix="op" />
        </Group>
        <Group id="g-notify" title={t('options.notify')}>
          <SpecField s={{ k: 'lines', p: 'notificationEmails.recipients', l: 'options.recipients', h: 'options.recipientsHint' }} d={d} prefix="op" />
          <fieldset class="bare">
            <legend class="sub">{t('options.events')}</legend>
            {events.map((ev) => (
              <CheckField key={ev} id={`o-ev-${ev}`} field={`notificationEmails.events.${ev}`} error={d.error} label={t(`event.${ev}` as MessageKey)} checked={!!doc.notificationEmails.events[ev]} onChange={(v) => d.set(`notificationEmails.events.${ev}`, v)} />
            ))}
          </fieldset>
        </Group>
      </fieldset>
      <SaveError error={d.error} />
      {!readOnly && (
        <div class="buttons sticky-actions">
          <button type="submit" disabled={busy || !dirty}>
            {busy ? t('form.saving') : t('settings.save')}
          </button>
        </div>
      )}
    </form>
  );
}

/** The program's name (C4 `PATCH /campaign/{id}` with `name`): its own small form, since it is not part of the options document. */
function ProgramName({ programId, name, onSaved }: { programId: string; name: string; onSaved: (name: string) => void }) {
  const [draft, setDraft] = useState(name);
  const { busy, error, run } = useAction();
  const readOnly = !can('program:write');
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const c = await api<Campaign>('PATCH', `/campaign/${encodeURIComponent(programId)}`, { name: draft });
      setDraft(c.name);
      programRenamed(c.id, c.name);
      onSaved(c.name);
      announce(t('settings.nameSaved', { name: c.name }));
    });
  };
  return (
    <Card id="program-name" title={t('settings.nameTitle')}>
      <form onSubmit={submit} noValidate>
        <SaveError error={error} />
        <fieldset disabled={readOnly} class="bare">
          <TextField id="o-name" field="name" error={error} label={t('settings.programName')} hint={t('settings.programNameHint')} value={draft} maxLength={255} required onInput={setDraft} />
        </fieldset>
        {!readOnly && (
          <div class="buttons">
            <Button type="submit" kind="secondary" disabled={busy || draft === name}>
              {busy ? t('form.saving') : t('settings.saveName')}
            </Button>
          </div>
        )}
      </form>
    </Card>
  );
}

function Page({ c, o }: { c: Campaign; o: CampaignOptions }) {
  const [name, setName] = useState(c.name);
  return (
    <>
      <PageHeader title={t('settings.optionsTitle')} meta={name} />
      <ProgramName programId={c.id} name={name} onSaved={setName} />
      <OptionsForm programId={c.id} type={c.type} currency={c.currencyISO ?? 'USD'} saved={o} />
    </>
  );
}

export default function OptionsPage({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const path = `/campaign/${encodeURIComponent(id)}`;
  return (
    <Async depKey={id} load={() => Promise.all([api<Campaign>('GET', path), api<CampaignOptions>('GET', `${path}/options`)])}>
      {([c, o]) => <Page c={c} o={o} />}
    </Async>
  );
}
