// One reward configuration's form (RC2 create, RC3 edit) with the fields its type uses; the API's
// refusals are shown next to their fields. Used by the rewards settings page and the guided setup.
import { useState } from 'preact/hooks';
import { api } from './api.ts';
import { t } from './i18n/index.ts';
import { useAction } from './ui.tsx';
import { MoneyInput, currencyDigits, fromMinor } from './money-input.tsx';
import { CheckField, SaveError, SelectField, TextField, getIn, setIn } from './pages/settings-kit.tsx';
import type { CampaignReward, RewardType } from '../shared/schemas/reward-config.ts';

const REFERRAL_TYPES = ['DOUBLE_SIDED', 'SINGLE_SIDED', 'MILESTONE', 'LEADERBOARD'] as const;
const whole = (v: string): number | string | null => (v.trim() === '' ? null : /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v);

/** The form's state: the reward's fields as they will be sent. */
type Draft = Record<string, unknown>;

function initial(programType: 'REFERRAL' | 'AFFILIATE', currency: string, reward?: Partial<CampaignReward>): Draft {
  const type = reward?.type ?? (programType === 'AFFILIATE' ? 'AFFILIATE' : 'DOUBLE_SIDED');
  const d: Draft = {
    type,
    title: reward?.title ?? '',
    description: reward?.description ?? '',
    isVisible: reward?.isVisible ?? true,
  };
  if (type === 'AFFILIATE') {
    const c = reward?.commissionStructure;
    d.commissionStructure = { type: c?.type ?? 'PERCENT', percent: c?.percent ?? 20, amount: c?.amount ?? null, amountISO: c?.amountISO ?? currency, duration: c?.duration ?? 'FOREVER', durationInMonths: c?.durationInMonths ?? null, holdDuration: c?.holdDuration ?? 30, approvalRequired: c?.approvalRequired ?? true };
    return d;
  }
  d.event = reward?.event ?? 'CONVERSION';
  d.couponCode = reward?.couponCode ?? '';
  if (type === 'DOUBLE_SIDED') Object.assign(d, { referralDescription: reward?.referralDescription ?? '', referralCouponCode: reward?.referralCouponCode ?? '' });
  if (type === 'MILESTONE') d.conversionsRequired = reward?.conversionsRequired ?? 3;
  if (type === 'LEADERBOARD') d.numberOfWinners = reward?.numberOfWinners ?? 3;
  if (type !== 'MILESTONE') Object.assign(d, { isUnlimited: reward?.isUnlimited ?? true, limit: reward?.limit != null && reward.limit >= 0 ? reward.limit : null, limitDuration: reward?.limitDuration ?? 'IN_TOTAL' });
  return d;
}

/** What the API is sent: empty texts (but the name) as null; `type` only on create; no event for a leaderboard. */
function body(d: Draft, creating: boolean): Draft {
  const out: Draft = {};
  for (const [k, v] of Object.entries(d)) {
    if (k === 'type' && !creating) continue;
    if (k === 'event' && d.type === 'LEADERBOARD') continue;
    if ((k === 'limit' || k === 'limitDuration') && d.isUnlimited) continue;
    // An emptied name is sent as typed, so the API says it is required instead of restoring a default.
    out[k] = v === '' && k !== 'title' ? null : v;
  }
  const c = out.commissionStructure as Draft | undefined;
  if (c) {
    // Only the keys the chosen basis and duration use.
    const keep = Object.entries(c).filter(([k]) => (c.type === 'PERCENT' ? k !== 'amount' && k !== 'amountISO' : k !== 'percent') && (k !== 'durationInMonths' || c.duration === 'REPEATING'));
    out.commissionStructure = Object.fromEntries(keep.map(([k, v]) => [k, v === '' ? null : v]));
  }
  return out;
}

/** The reward form; `onSaved` gets the saved reward. */
export function RewardForm(props: { programId: string; programType: 'REFERRAL' | 'AFFILIATE'; /** The program's currency: a fixed commission's prefilled currency. */ currency: string; reward?: Partial<CampaignReward> & { id?: string }; submitLabel: string; cancelLabel?: string; idPrefix: string; onSaved: (r: CampaignReward) => void; onCancel?: () => void }) {
  const { programId, programType, reward, idPrefix: p } = props;
  const creating = !reward?.id;
  const [d, setD] = useState<Draft>(() => initial(programType, props.currency, reward));
  const [texts, setTexts] = useState<Record<string, string>>({});
  const { busy, error, run } = useAction();
  const set = (path: string, v: unknown) => setD((x) => setIn(x, path, v));
  const type = d.type as RewardType;
  const text = (path: string, key: Parameters<typeof t>[0], opts: { hint?: Parameters<typeof t>[0]; multiline?: boolean } = {}) => (
    <TextField id={`${p}-${path}`} field={path} error={error} label={t(key)} hint={opts.hint && t(opts.hint)} multiline={opts.multiline} value={String(getIn(d, path) ?? '')} onInput={(v) => set(path, v)} />
  );
  const number = (path: string, key: Parameters<typeof t>[0], hint?: Parameters<typeof t>[0]) => (
    <TextField
      id={`${p}-${path}`}
      field={path}
      error={error}
      label={t(key)}
      hint={hint && t(hint)}
      inputMode="decimal"
      size={8}
      value={texts[path] ?? (getIn(d, path) == null ? '' : String(getIn(d, path)))}
      onInput={(v) => {
        setTexts((x) => ({ ...x, [path]: v }));
        set(path, whole(v));
      }}
    />
  );
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const base = `/campaign/${encodeURIComponent(programId)}/reward-configs`;
      const saved = creating ? await api<CampaignReward>('POST', base, body(d, true)) : await api<CampaignReward>('PATCH', `${base}/${encodeURIComponent(reward!.id!)}`, body(d, false));
      props.onSaved(saved);
    });
  };
  const cs = 'commissionStructure';
  const typedISO = String(getIn(d, `${cs}.amountISO`) ?? '').trim().toUpperCase();
  const fixedCurrency = /^[A-Z]{3}$/.test(typedISO) ? typedISO : props.currency;
  return (
    <form onSubmit={submit} class="reward-form" noValidate>
      {creating && programType === 'REFERRAL' && (
        <SelectField
          id={`${p}-type`}
          field="type"
          error={error}
          label={t('reward.type')}
          value={type}
          options={REFERRAL_TYPES.map((rt) => [rt, t(`reward.type.${rt}`)] as const)}
          onChange={(v) => setD({ ...initial(programType, props.currency, { type: v as RewardType }), title: d.title, description: d.description })}
        />
      )}
      <p class="hint">{t(`reward.typeHint.${type}`)}</p>
      {text('title', 'reward.title')}
      {text('description', type === 'DOUBLE_SIDED' ? 'reward.referrerGets' : type === 'AFFILIATE' ? 'reward.affiliateGets' : 'reward.description', { multiline: false })}
      {type === 'DOUBLE_SIDED' && text('referralDescription', 'reward.friendGets')}
      {type !== 'AFFILIATE' && type !== 'LEADERBOARD' && (
        <SelectField id={`${p}-event`} field="event" error={error} label={t('reward.event')} hint={t('reward.eventHint')} value={String(d.event)} options={[['CONVERSION', t('reward.conversion')] as const, ['LEAD', t('reward.lead')] as const]} onChange={(v) => set('event', v)} />
      )}
      {type === 'MILESTONE' && number('conversionsRequired', 'reward.conversionsRequired')}
      {type === 'LEADERBOARD' && number('numberOfWinners', 'reward.winners')}
      {type !== 'AFFILIATE' && text('couponCode', 'reward.coupon', { hint: 'reward.couponHint' })}
      {type === 'DOUBLE_SIDED' && text('referralCouponCode', 'reward.friendCoupon')}
      {type !== 'AFFILIATE' && type !== 'MILESTONE' && (
        <>
          <CheckField id={`${p}-isUnlimited`} field="isUnlimited" error={error} label={t('reward.unlimited')} checked={!!d.isUnlimited} onChange={(v) => set('isUnlimited', v)} />
          {!d.isUnlimited && number('limit', 'reward.limit')}
          {!d.isUnlimited && (
            <SelectField id={`${p}-limitDuration`} field="limitDuration" error={error} label={t('reward.limitDuration')} value={String(d.limitDuration)} options={(['IN_TOTAL', 'PER_MONTH', 'PER_YEAR'] as const).map((x) => [x, t(`reward.limit.${x}`)] as const)} onChange={(v) => set('limitDuration', v)} />
          )}
        </>
      )}
      {type === 'AFFILIATE' && (
        <fieldset class="bare">
          <legend class="sub">{t('reward.commission')}</legend>
          <SelectField id={`${p}-cs-type`} field={`${cs}.type`} error={error} label={t('reward.commissionType')} value={String(getIn(d, `${cs}.type`))} options={[['PERCENT', t('reward.percent')] as const, ['FIXED', t('reward.fixed')] as const]} onChange={(v) => set(`${cs}.type`, v)} />
          {getIn(d, `${cs}.type`) === 'FIXED' && text(`${cs}.amountISO`, 'reward.amountISO')}
          {getIn(d, `${cs}.type`) === 'PERCENT' ? (
            number(`${cs}.percent`, 'reward.percentValue', 'reward.percentHint')
          ) : (
            <MoneyInput
              id={`${p}-${cs}.amount`}
              field={`${cs}.amount`}
              error={error}
              label={t('reward.amount')}
              hint={t('reward.amountHint', { example: fromMinor(10 * 10 ** currencyDigits(fixedCurrency), currencyDigits(fixedCurrency)) })}
              currency={fixedCurrency}
              minor={getIn(d, `${cs}.amount`) as number | null}
              onChange={(v) => set(`${cs}.amount`, v)}
            />
          )}
          <SelectField id={`${p}-cs-duration`} field={`${cs}.duration`} error={error} label={t('reward.duration')} value={String(getIn(d, `${cs}.duration`))} options={(['FOREVER', 'REPEATING', 'ONCE'] as const).map((x) => [x, t(`reward.duration.${x}`)] as const)} onChange={(v) => set(`${cs}.duration`, v)} />
          {getIn(d, `${cs}.duration`) === 'REPEATING' && number(`${cs}.durationInMonths`, 'reward.months')}
          {number(`${cs}.holdDuration`, 'reward.hold', 'reward.holdHint')}
          <CheckField id={`${p}-cs-approval`} field={`${cs}.approvalRequired`} error={error} label={t('reward.approval')} checked={!!getIn(d, `${cs}.approvalRequired`)} onChange={(v) => set(`${cs}.approvalRequired`, v)} />
        </fieldset>
      )}
      <CheckField id={`${p}-isVisible`} field="isVisible" error={error} label={t(type === 'AFFILIATE' ? 'reward.visibleAffiliate' : 'reward.visible')} hint={t(type === 'AFFILIATE' ? 'reward.visibleHintAffiliate' : 'reward.visibleHint')} checked={!!d.isVisible} onChange={(v) => set('isVisible', v)} />
      <SaveError error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {busy ? t('form.saving') : props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" class="secondary" onClick={props.onCancel}>
            {props.cancelLabel ?? t('reward.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
