// The participant page's "Codes" section (issue #25, docs/integrations.md "Codes"): the
// participant's coupon and promotion codes (BC2), added (BC1) and removed (BC4) through the REST
// operations; a refusal shows its message and the fields it names.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, ErrorSummary, Field, useAction } from '../ui.tsx';
import { t } from '../i18n/index.ts';
import type { BillingCode, BillingCodeList } from '../../shared/schemas/billing-codes.ts';
import type { ParticipantCtx } from './participant.tsx';

const MAPPED = ['stripePromotionCodeId', 'stripeCouponId', 'paddleDiscountId'] as const;

function CodeRows({ codes, writer, onRemove, busy }: { codes: BillingCode[]; writer: boolean; onRemove: (c: BillingCode) => void; busy: boolean }) {
  if (codes.length === 0) return <p>{t('codes.none')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>
          {t('codes.table')} ({t('codes.count', { count: codes.length })})
        </caption>
        <thead>
          <tr>
            <th scope="col">{t('codes.col.code')}</th>
            <th scope="col">{t('codes.col.mapped')}</th>
            {writer && <th scope="col">{t('codes.col.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {codes.map((c) => (
            <tr key={c.id}>
              <td>
                <code>{c.code}</code>
              </td>
              <td class="wrap">
                {MAPPED.filter((k) => c[k])
                  .map((k) => t(`codes.mapped.${k}`, { id: c[k]! }))
                  .join(' · ')}
              </td>
              {writer && (
                <td>
                  <button type="button" class="secondary" disabled={busy} onClick={() => onRemove(c)}>
                    {t('codes.remove', { code: c.code })}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Codes({ x }: { x: ParticipantCtx }) {
  const writer = can('participant:write');
  const [version, setVersion] = useState(0);
  const [code, setCode] = useState('');
  const [ids, setIds] = useState({ stripePromotionCodeId: '', stripeCouponId: '', paddleDiscountId: '' });
  const a = useAction();
  const { error, busy } = a;
  /** Runs `fn`, then reads the codes again. */
  const run = (fn: () => Promise<void>) =>
    a.run(async () => {
      await fn();
      setVersion((v) => v + 1);
    });
  const add = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const body: Record<string, string> = { code: code.trim() };
      for (const k of MAPPED) if (ids[k].trim()) body[k] = ids[k].trim();
      const made = await api<BillingCode>('POST', `${x.path}/codes`, body);
      setCode('');
      setIds({ stripePromotionCodeId: '', stripeCouponId: '', paddleDiscountId: '' });
      announce(t('codes.added', { code: made.code }));
    });
  };
  const remove = (c: BillingCode) =>
    run(async () => {
      await api('DELETE', `/campaign/${encodeURIComponent(x.c.id)}/codes/${encodeURIComponent(c.id)}`);
      announce(t('codes.removed', { code: c.code }));
    });
  const idField = (k: (typeof MAPPED)[number], label: string, hint: string) => (
    <Field id={`pt-code-${k}`} label={label} hint={hint}>
      <input
        id={`pt-code-${k}`}
        value={ids[k]}
        maxLength={255}
        autoComplete="off"
        spellcheck={false}
        aria-describedby={`pt-code-${k}-hint`}
        onInput={(e) => {
          const v = e.currentTarget.value;
          setIds((o) => ({ ...o, [k]: v }));
        }}
      />
    </Field>
  );
  return (
    <section aria-labelledby="pt-codes">
      <h2 id="pt-codes">{t('codes.title')}</h2>
      <p>{t('codes.intro')}</p>
      <Async depKey={`${x.p.id}/${version}`} load={() => api<BillingCodeList>('GET', `${x.path}/codes`)}>
        {({ codes }) => <CodeRows codes={codes} writer={writer} busy={busy} onRemove={(c) => void remove(c)} />}
      </Async>
      {writer && (
        <form onSubmit={add} aria-labelledby="pt-codes-add">
          <h3 id="pt-codes-add">{t('codes.addTitle')}</h3>
          <ErrorSummary error={error} />
          <Field id="pt-code" label={t('codes.code')} hint={t('codes.codeHint')}>
            <input id="pt-code" value={code} required minLength={2} maxLength={64} autoComplete="off" spellcheck={false} aria-describedby="pt-code-hint" onInput={(e) => setCode(e.currentTarget.value)} />
          </Field>
          <p class="hint">{t('codes.mapHint')}</p>
          {idField('stripePromotionCodeId', t('codes.promo'), t('codes.promoHint'))}
          {idField('stripeCouponId', t('codes.coupon'), t('codes.couponHint'))}
          {idField('paddleDiscountId', t('codes.paddle'), t('codes.paddleHint'))}
          <button type="submit" disabled={busy}>
            {t('codes.add')}
          </button>
        </form>
      )}
      {!writer && <ErrorSummary error={error} />}
    </section>
  );
}
