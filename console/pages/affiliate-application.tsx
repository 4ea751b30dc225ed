// One affiliate application (AF2): the applicant, their answers and risk, and the decision (AF3):
// approve, or deny with an optional reason, private note and immediate reapply; for a denied one,
// moving the reapply time earlier.
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api, can } from '../api.ts';
import { Link } from '../router.tsx';
import { announce, Async, ErrorSummary, Field, PageTitle, useAction } from '../ui.tsx';
import { t, when } from '../i18n/index.ts';
import { affiliatePath, campaignPath, StatusBadge } from './affiliate-kit.tsx';
import type { affiliateApplication } from '../../shared/schemas/affiliate.ts';
import type { z } from 'zod';

type Application = z.infer<typeof affiliateApplication>;

function answerText(v: string | number | boolean): string {
  return typeof v === 'boolean' ? t(v ? 'appl.yes' : 'appl.no') : String(v);
}

/** Epoch ms as the value of a `datetime-local` input (local time). */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

function Decide({ programId, a, done }: { programId: string; a: Application; done: (next: Application) => void }) {
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [reapply, setReapply] = useState(false);
  const [at, setAt] = useState(a.reapplyAllowedAt ? localInput(a.reapplyAllowedAt) : '');
  const { busy, error, run } = useAction();
  const path = `${campaignPath(programId)}/affiliate-applications/${encodeURIComponent(a.id)}`;
  const send = (body: Record<string, unknown>, message: (next: Application) => string) =>
    run(async () => {
      const next = await api<Application>('PATCH', path, body);
      announce(message(next));
      done(next);
    });
  const deny = (e: Event) => {
    e.preventDefault();
    void send({ status: 'DENIED', rejectionReason: reason.trim() || undefined, reviewNote: note.trim() || undefined, allowImmediateReapply: reapply || undefined }, () => t('appl.denied'));
  };
  const move = (e: Event) => {
    e.preventDefault();
    void send({ reapplyAllowedAt: at ? new Date(at).getTime() : undefined }, () => t('appl.moved'));
  };
  if (!can('participant:write')) return <p>{t('aff.readOnly')}</p>;
  if (a.status === 'DENIED' && a.reapplyAllowedAt)
    return (
      <form class="card" aria-labelledby="move-title" onSubmit={move}>
        <h2 id="move-title">{t('appl.moveReapply')}</h2>
        <p class="hint">{t('appl.moveReapplyHelp')}</p>
        <ErrorSummary error={error} />
        <Field id="reapply-at" label={t('appl.reapplyInput')}>
          <input id="reapply-at" type="datetime-local" value={at} required onInput={(e) => setAt(e.currentTarget.value)} />
        </Field>
        <button type="submit" disabled={busy}>
          {t('appl.moveButton')}
        </button>
      </form>
    );
  if (a.status !== 'PENDING') return <p>{t('appl.closed')}</p>;
  return (
    <section class="card" aria-labelledby="decide-title">
      <h2 id="decide-title">{t('appl.decide')}</h2>
      <p class="hint">{t('appl.decideHelp')}</p>
      <ErrorSummary error={error} />
      <div class="buttons">
        <button type="button" disabled={busy} onClick={() => send({ status: 'APPROVED' }, (next) => t('appl.approved', { email: next.email ?? next.id }))}>
          {t('appl.approve')}
        </button>
      </div>
      <form onSubmit={deny} aria-label={t('appl.deny')}>
        <Field id="deny-reason" label={t('appl.reason')}>
          <input id="deny-reason" value={reason} maxLength={255} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <Field id="deny-note" label={t('appl.note')}>
          <textarea id="deny-note" value={note} maxLength={500} rows={3} onInput={(e) => setNote(e.currentTarget.value)} />
        </Field>
        <label class="choice">
          <input type="checkbox" checked={reapply} onChange={(e) => setReapply(e.currentTarget.checked)} />
          <span>{t('appl.allowReapply')}</span>
        </label>
        <button type="submit" class="danger" disabled={busy}>
          {t('appl.deny')}
        </button>
      </form>
    </section>
  );
}

function Detail({ programId, initial }: { programId: string; initial: Application }) {
  const [a, setA] = useState(initial);
  const name = [a.firstName, a.lastName].filter(Boolean).join(' ') || a.email;
  const rows: Array<[string, ComponentChildren]> = [
    [t('inv.email'), a.email ?? '—'],
    [t('appl.status'), <StatusBadge prefix="astatus" status={a.status} />],
    [t('afcol.submitted'), when(a.createdAt)],
    [t('appl.terms'), when(a.termsAcceptedAt)],
    [t('appl.decided'), when(a.decidedAt)],
  ];
  if (a.participantId) rows.push([t('appl.participant'), <code>{a.participantId}</code>]);
  if (a.rejectionReason) rows.push([t('appl.rejectionReason'), a.rejectionReason]);
  if (a.reapplyAllowedAt) rows.push([t('appl.reapplyAt'), when(a.reapplyAllowedAt)]);
  return (
    <>
      <PageTitle>{name ? t('appl.title', { name }) : t('appl.anonymous', { id: a.id })}</PageTitle>
      <p>
        <Link href={affiliatePath(programId)}>{t('appl.back')}</Link>
      </p>
      <section class="card" aria-labelledby="applicant-title">
        <h2 id="applicant-title">{t('appl.details')}</h2>
        <dl class="pairs">
          {rows.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
          <div>
            <dt>{t('appl.risk')}</dt>
            <dd>
              {a.riskLevel ? <StatusBadge prefix="risk" status={a.riskLevel} /> : t('risk.none')} <span class="hint">{t('appl.riskHelp')}</span>
            </dd>
          </div>
        </dl>
      </section>
      <section class="card" aria-labelledby="answers-title">
        <h2 id="answers-title">{t('appl.answers')}</h2>
        {a.answers.length ? (
          <dl class="pairs">
            {a.answers.map((x) => (
              <div key={x.fieldId}>
                <dt>{x.label}</dt>
                <dd>{answerText(x.value)}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p>{t('appl.noAnswers')}</p>
        )}
      </section>
      <Decide programId={programId} a={a} done={setA} />
    </>
  );
}

export default function ApplicationPage({ params }: { params: Record<string, string> }) {
  const { programId, applicationId } = params as { programId: string; applicationId: string };
  return (
    <Async depKey={`${programId}/${applicationId}`} load={() => api<Application>('GET', `${campaignPath(programId)}/affiliate-applications/${encodeURIComponent(applicationId)}`)}>
      {(a) => <Detail programId={programId} initial={a} />}
    </Async>
  );
}
