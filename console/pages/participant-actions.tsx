// The participant page's actions, each one REST operation: the fraud override (P5 fraudRiskLevel),
// referral credit (P8 trigger, P9 cancel), an email (P11) and delete (P6, after a confirmation).
import { useRef, useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { Link, navigate } from '../router.tsx';
import { announce, ErrorSummary, Field, useAction } from '../ui.tsx';
import { t, type MessageKey } from '../i18n/index.ts';
import { FRAUD_REASONS } from '../i18n/en-fraud.ts';
import type { Participant } from '../../shared/schemas/participant.ts';
import type { ParticipantCtx } from './participant.tsx';

/** A reason code in plain words (an unknown future code is shown as itself). */
export function reasonText(code: string): string {
  return (FRAUD_REASONS as readonly string[]).includes(code) ? t(`fraud.reason.${code}` as MessageKey) : t('fraud.reason.other', { code });
}

export function FraudState({ x }: { x: ParticipantCtx }) {
  const { p } = x;
  const a = useAction();
  const set = (level: 'LOW' | 'HIGH') =>
    a.run(async () => {
      x.replace(await api<Participant>('POST', x.path, { fraudRiskLevel: level }));
      announce(t('pt.blocked', { level: t(`pt.fraud.${level}`) }));
    });
  const base = `/console/programs/${encodeURIComponent(x.c.id)}/participants/`;
  return (
    <section aria-labelledby="pt-fraud">
      <h2 id="pt-fraud">{t('pt.fraudState')}</h2>
      <p>
        <span class={`badge risk-${p.fraudRiskLevel.toLowerCase()}`}>{t('pt.fraudLevel', { level: t(`pt.fraud.${p.fraudRiskLevel}` as MessageKey) })}</span>
      </p>
      {p.fraudReasonCode && <p>{reasonText(p.fraudReasonCode)}</p>}
      {p.allMatchingFraudsters.length > 0 && (
        <>
          <h3>{t('pt.fraudMatches')}</h3>
          <ul>
            {p.allMatchingFraudsters.map((m) => (
              <li key={m.id}>
                <Link href={base + encodeURIComponent(m.id)}>{m.email}</Link>
              </li>
            ))}
          </ul>
        </>
      )}
      <ErrorSummary error={a.error} />
      {can('participant:write') &&
        (p.fraudRiskLevel === 'HIGH' ? (
          <button type="button" class="secondary" disabled={a.busy} onClick={() => set('LOW')}>
            {t('pt.unblock')}
          </button>
        ) : (
          <button type="button" class="danger" disabled={a.busy} onClick={() => set('HIGH')}>
            {t('pt.block')}
          </button>
        ))}
    </section>
  );
}

export function ReferralCredit({ x }: { x: ParticipantCtx }) {
  const a = useAction();
  const [delay, setDelay] = useState('');
  const [said, setSaid] = useState('');
  const reread = async () => x.replace(await api<Participant>('GET', x.path));
  const nothing = !x.p.referredBy || x.p.referralStatus === 'CREDIT_AWARDED';
  const trigger = (e: Event) => {
    e.preventDefault();
    void a.run(async () => {
      const body = delay.trim() ? { delayInDays: Number(delay) } : {};
      const r = await api<{ success: boolean; message?: string }>('POST', `${x.path}/ref`, body);
      setSaid(r.message ?? t('pt.triggered'));
      announce(r.message ?? t('pt.triggered'));
      await reread();
    });
  };
  const cancel = () =>
    a.run(async () => {
      const r = await api<{ success: boolean; message?: string }>('DELETE', `${x.path}/ref`);
      setSaid(r.message ?? t('pt.cancelled'));
      announce(r.message ?? t('pt.cancelled'));
      await reread();
    });
  return (
    <section aria-labelledby="pt-referral">
      <h2 id="pt-referral">{t('pt.referral')}</h2>
      {/* Nothing to credit (no referrer, or credited already): the buttons say why they are off (issue #32). */}
      {!x.p.referredBy ? <p id="pt-no-credit">{t('pt.notReferred')}</p> : x.p.referralStatus === 'CREDIT_AWARDED' && <p id="pt-no-credit">{t('pt.alreadyCredited')}</p>}
      {said && <p class="said">{said}</p>}
      <ErrorSummary error={a.error} />
      {can('participant:write') && (
        <form onSubmit={trigger} class="inline">
          <Field id="pt-delay" label={t('pt.delay')}>
            <input id="pt-delay" type="number" inputMode="numeric" min={1} max={90} value={delay} onInput={(e) => setDelay(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={a.busy || nothing} aria-describedby={nothing ? 'pt-no-credit' : undefined}>
            {t('pt.trigger')}
          </button>
          <button type="button" class="secondary" disabled={a.busy || !x.p.referredBy} aria-describedby={!x.p.referredBy ? 'pt-no-credit' : undefined} onClick={cancel}>
            {t('pt.cancelTrigger')}
          </button>
        </form>
      )}
    </section>
  );
}

export function EmailParticipant({ x }: { x: ParticipantCtx }) {
  const a = useAction();
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const send = (e: Event) => {
    e.preventDefault();
    void a.run(async () => {
      await api('POST', `${x.path}/email`, { subject, body });
      setSubject('');
      setBody('');
      announce(t('pt.sent'));
    });
  };
  return (
    <section aria-labelledby="pt-email">
      <h2 id="pt-email">{t('pt.email')}</h2>
      <form onSubmit={send}>
        <ErrorSummary error={a.error} />
        <Field id="pt-subject" label={t('pt.subject')}>
          <input id="pt-subject" value={subject} maxLength={255} onInput={(e) => setSubject(e.currentTarget.value)} />
        </Field>
        <Field id="pt-body" label={t('pt.body')}>
          <textarea id="pt-body" rows={4} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={a.busy}>
          {t('pt.send')}
        </button>
      </form>
    </section>
  );
}

export function DeleteParticipant({ x }: { x: ParticipantCtx }) {
  const a = useAction();
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const ask = () => {
    setAsking(true);
    queueMicrotask(() => confirmRef.current?.focus());
  };
  const remove = () =>
    a.run(async () => {
      await api('DELETE', x.path);
      announce(t('pt.deleted', { email: x.p.email }));
      navigate(x.listHref);
    });
  return (
    <section aria-labelledby="pt-delete">
      <h2 id="pt-delete">{t('pt.delete')}</h2>
      <ErrorSummary error={a.error} />
      {asking ? (
        <div role="group" aria-labelledby="pt-delete-warn" class="confirm">
          <p id="pt-delete-warn">{t('pt.deleteWarn', { email: x.p.email })}</p>
          <button type="button" class="danger" ref={confirmRef} disabled={a.busy} onClick={remove}>
            {t('pt.deleteConfirm')}
          </button>
          <button type="button" class="secondary" onClick={() => setAsking(false)}>
            {t('pt.deleteCancel')}
          </button>
        </div>
      ) : (
        <button type="button" class="danger" onClick={ask}>
          {t('pt.delete')}
        </button>
      )}
    </section>
  );
}
