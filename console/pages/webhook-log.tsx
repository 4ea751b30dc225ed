// One webhook's delivery log (W6, newest first in cursor pages): each delivery's state, its latest
// reply, every attempt on demand (W8), and replaying a finished delivery as a new one (W7).
import { useEffect, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, ErrorSummary, MoreButton, useAction } from '../ui.tsx';
import { num, t, when, type MessageKey } from '../i18n/index.ts';
import type { Webhook, WebhookDelivery, WebhookDeliveryAttempt, WebhookDeliveryDetail, WebhookDeliveryList } from '../../shared/schemas/webhook.ts';

const EXCERPT = 80;

/** What an attempt got back: the status code and the start of the reply, or the error. */
function reply(a: WebhookDeliveryAttempt | null) {
  if (!a) return <span>{t('webhooks.noReply')}</span>;
  const body = a.responseBody ?? '';
  return (
    <>
      <strong>{a.statusCode ?? a.error ?? t('webhooks.noReply')}</strong>
      {a.statusCode !== null && a.error && a.error !== `HTTP ${a.statusCode}` ? ` ${a.error}` : ''}
      {body && (
        <>
          {' '}
          <code class="excerpt">{body.length > EXCERPT ? `${body.slice(0, EXCERPT)}…` : body}</code>
        </>
      )}
    </>
  );
}

function Attempts({ base, d }: { base: string; d: WebhookDelivery }) {
  const [detail, setDetail] = useState<WebhookDeliveryDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const open = async (e: Event) => {
    if (!(e.currentTarget as HTMLDetailsElement).open || detail) return;
    try {
      setDetail(await api<WebhookDeliveryDetail>('GET', `${base}/deliveries/${encodeURIComponent(d.id)}`));
    } catch (err) {
      setError(err);
    }
  };
  if (d.attemptCount === 0) return null;
  return (
    <details onToggle={open}>
      <summary>{t('webhooks.showAttempts')}</summary>
      <ErrorSummary error={error} />
      {detail && (
        <ol class="attempts" aria-label={t('webhooks.attemptsOf', { id: d.id })}>
          {detail.attempts.map((a) => (
            <li key={a.attempt}>
              {t('webhooks.attempt', { n: a.attempt })}, {when(a.at)}, {num(a.durationMs)} ms: {reply(a)}
              {a.responseBody && a.responseBody.length > EXCERPT && <pre>{a.responseBody}</pre>}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}

/** The delivery log of `hook`; `refresh` changes when something new may be in it (a test was sent). */
export function DeliveryLog({ programId, hook, refresh }: { programId: string; hook: Webhook; refresh: number }) {
  const base = `/campaign/${encodeURIComponent(programId)}/webhooks/${encodeURIComponent(hook.id)}`;
  const [rows, setRows] = useState<WebhookDelivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction();
  const load = async (nextId: string | null) => {
    setError(null);
    try {
      const page = await api<WebhookDeliveryList>('GET', `${base}/deliveries${query({ limit: 20, nextId })}`);
      setRows((r) => (nextId && r ? [...r, ...page.deliveries] : page.deliveries));
      setNext(page.nextId);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void load(null);
  }, [base, refresh]);
  const replay = (d: WebhookDelivery) =>
    run(async () => {
      const copy = await api<WebhookDelivery>('POST', `${base}/deliveries/${encodeURIComponent(d.id)}/replay`, {});
      announce(t('webhooks.replayed', { id: copy.id }));
      await load(null);
    });
  const caption = t('webhooks.logCaption', { url: hook.payloadUrl ?? '' });
  return (
    <div class="log">
      <div class="log-head">
        <h3>{t('webhooks.log')}</h3>
        <button type="button" class="secondary" onClick={() => load(null)} aria-label={`${t('webhooks.refresh')}: ${hook.payloadUrl ?? ''}`}>
          {t('webhooks.refresh')}
        </button>
      </div>
      <ErrorSummary error={error} />
      {rows && !rows.length && <p>{t('webhooks.logEmpty')}</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
          <table>
            <caption>{caption}</caption>
            <thead>
              <tr>
                <th scope="col">{t('col.created')}</th>
                <th scope="col">{t('col.event')}</th>
                <th scope="col">{t('col.status')}</th>
                <th scope="col" class="num">
                  {t('webhooks.attempts')}
                </th>
                <th scope="col">{t('col.response')}</th>
                <th scope="col">{t('col.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <th scope="row">
                    {when(d.createdAt)}
                    <br />
                    <code class="id">{d.id}</code>
                  </th>
                  <td>{t(`webhookEvent.${d.event}` as MessageKey)}</td>
                  <td>
                    <span class={`badge delivery-${d.status.toLowerCase()}`}>{t(`delivery.${d.status}`)}</span>
                    {d.test && <span class="tag"> {t('webhooks.testTag')}</span>}
                    {d.replayOf && <span class="tag"> {t('webhooks.replayOf', { id: d.replayOf })}</span>}
                    {d.nextAttemptAt && <span class="tag"> {t('webhooks.nextTry', { when: when(d.nextAttemptAt) })}</span>}
                  </td>
                  <td class="num">{num(d.attemptCount)}</td>
                  <td>
                    {reply(d.lastAttempt)}
                    <Attempts base={base} d={d} />
                  </td>
                  <td>
                    {can('program:write') && !d.test && d.status !== 'PENDING' && (
                      <button type="button" class="secondary" disabled={busy} aria-label={t('webhooks.replayLabel', { id: d.id })} onClick={() => replay(d)}>
                        {t('webhooks.replay')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton show={next} label={t('webhooks.more')} onClick={() => load(next)} />
    </div>
  );
}
