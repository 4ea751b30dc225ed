// A program's Stripe (BI1–BI5) or Paddle Billing (BI6–BI10) connection (issue #25): its state and
// the endpoint URL to add in the billing system, the form that connects it or replaces its
// credentials (both write-only: nothing secret is ever shown), disconnecting, and the log of the
// events the billing system sent (docs/integrations.md). One page for both: the provider comes from
// the address (/integrations/stripe, /integrations/paddle).
import { useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { announce, Async, ErrorSummary, Field, PageTitle, useAction } from '../ui.tsx';
import { Card } from '../components.tsx';
import { money, t, when, type MessageKey } from '../i18n/index.ts';
import type { BillingConnection, BillingEventList } from '../../shared/schemas/billing.ts';
import { StripePageAttribution } from './stripe-page-attribution.tsx';

const PAGE = 20;

type Provider = 'stripe' | 'paddle';

/** The provider's wording of a message: Stripe's keys are `integrations.x`, Paddle's `integrations.paddle.x`. */
const say = (provider: Provider, key: string, vars?: Record<string, string>) => t((provider === 'stripe' ? `integrations.${key}` : `integrations.paddle.${key}`) as MessageKey, vars as never);

/** The connect body in the provider's field names. */
function credentials(provider: Provider, secret: string, key: string): Record<string, string> {
  if (provider === 'paddle') return { webhookSecretKey: secret, ...(key ? { apiKey: key } : {}) };
  return { webhookSigningSecret: secret, ...(key ? { restrictedApiKey: key } : {}) };
}

function Credentials({ provider, base, connection, onSaved }: { provider: Provider; base: string; connection: BillingConnection; onSaved: (c: BillingConnection) => void }) {
  const [secret, setSecret] = useState('');
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  const active = connection.state === 'ACTIVE';
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const saved = await api<BillingConnection>('POST', base, credentials(provider, secret.trim(), key.trim()));
      setSecret('');
      setKey('');
      announce(active ? t('integrations.replaced') : say(provider, 'connected'));
      onSaved(saved);
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby={`${provider}-form-title`} noValidate>
      <h2 id={`${provider}-form-title`}>{active ? t('integrations.replaceTitle') : say(provider, 'connectTitle')}</h2>
      <Field id={`${provider}-secret`} label={say(provider, 'secret')} hint={say(provider, 'secretHint')}>
        <input id={`${provider}-secret`} type="password" autoComplete="off" spellcheck={false} required aria-describedby={`${provider}-secret-hint`} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
      </Field>
      <Field id={`${provider}-key`} label={say(provider, 'key')} hint={say(provider, 'keyHint')}>
        <input id={`${provider}-key`} type="password" autoComplete="off" spellcheck={false} aria-describedby={`${provider}-key-hint`} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </Field>
      <ErrorSummary error={error} />
      <button type="submit" disabled={busy}>
        {busy ? t('state.loading') : active ? t('integrations.replace') : say(provider, 'connect')}
      </button>
    </form>
  );
}

function Connection({ provider, base, first }: { provider: Provider; base: string; first: BillingConnection }) {
  const [connection, setConnection] = useState(first);
  const { busy, error, run } = useAction();
  const writable = can('program:write');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(connection.webhookUrl ?? '');
      announce(t('integrations.copied'));
    } catch {
      // Without clipboard access the URL stays on screen to copy by hand.
    }
  };
  const disconnect = () =>
    run(async () => {
      await api('DELETE', base);
      setConnection(await api<BillingConnection>('GET', base));
      announce(say(provider, 'disconnected'));
    });
  return (
    <>
      <section class="card" aria-labelledby={`${provider}-state-title`}>
        <h2 id={`${provider}-state-title`}>{t('integrations.state')}</h2>
        <p>
          <span class={`badge integration-${connection.state.toLowerCase()}`}>{t(`integrations.state.${connection.state}` as MessageKey)}</span>
        </p>
        {connection.webhookUrl && (
          <>
            <Field id={`${provider}-endpoint`} label={t('integrations.endpoint')} hint={say(provider, 'endpointHint')}>
              <input id={`${provider}-endpoint`} type="text" readOnly value={connection.webhookUrl} aria-describedby={`${provider}-endpoint-hint`} onFocus={(e) => e.currentTarget.select()} />
            </Field>
            <button type="button" class="secondary" onClick={copy}>
              {t('integrations.copy')}
            </button>
          </>
        )}
        <h3>{say(provider, 'events')}</h3>
        <ul class="plain rows">
          {connection.events.map((e) => (
            <li key={e}>
              <code>{e}</code>
            </li>
          ))}
        </ul>
        {connection.state !== 'NOT_CONNECTED' && <p>{connection.lastEventAt ? t('integrations.lastEvent', { when: when(connection.lastEventAt) }) : t('integrations.noEvent')}</p>}
        {connection.hasRestrictedApiKey && <p>{say(provider, 'keyStored', { hint: connection.restrictedApiKeyHint ?? '' })}</p>}
      </section>
      {writable ? (
        <>
          <Credentials provider={provider} base={base} connection={connection} onSaved={setConnection} />
          {connection.state === 'ACTIVE' && (
            <section class="card" aria-labelledby={`${provider}-disconnect-title`}>
              <h2 id={`${provider}-disconnect-title`}>{say(provider, 'disconnect')}</h2>
              <p id={`${provider}-disconnect-hint`}>{say(provider, 'disconnectHint')}</p>
              <ErrorSummary error={error} />
              <button type="button" class="danger" disabled={busy} aria-describedby={`${provider}-disconnect-hint`} onClick={disconnect}>
                {say(provider, 'disconnect')}
              </button>
            </section>
          )}
        </>
      ) : (
        <p>{t('integrations.readOnly')}</p>
      )}
      {connection.unmatchedRefunds > 0 && <UnmatchedRefunds base={base} count={connection.unmatchedRefunds} />}
      {connection.id && <EventLog base={base} />}
    </>
  );
}

/** Issue #35: the refunds whose sale never arrived within 30 days, so no commission was reversed; the owner checks them by hand. */
function UnmatchedRefunds({ base, count }: { base: string; count: number }) {
  return (
    <Card id="unmatched-refunds" title={t('integrations.unmatched.title', { count })} description={t('integrations.unmatched.hint')}>
      <Async depKey={`${base}:unmatched`} load={() => api<BillingEventList>('GET', `${base}/events${query({ limit: 100, outcome: 'UNMATCHED' })}`)}>
        {(list) => (
          <ul class="plain rows">
            {list.events.map((e) => (
              <li key={e.id} data-event={e.eventId}>
                {t(e.refund?.refundId ? 'integrations.unmatched.item' : 'integrations.unmatched.itemCharge', {
                  refund: e.refund?.refundId ?? e.refund?.saleRef ?? e.eventId,
                  amount: e.refund ? money(e.refund.amount, e.refund.currency) : '—',
                  when: when(e.receivedAt),
                })}
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Card>
  );
}

function EventLog({ base }: { base: string }) {
  return (
    <div>
      <h2>{t('integrations.log')}</h2>
      <Async depKey={base} load={() => api<BillingEventList>('GET', `${base}/events${query({ limit: PAGE })}`)}>
        {(first) => <EventPages base={base} first={first} />}
      </Async>
    </div>
  );
}

function EventPages({ base, first }: { base: string; first: BillingEventList }) {
  const [pages, setPages] = useState<BillingEventList[]>([first]);
  const { busy, error, run } = useAction();
  const events = pages.flatMap((p) => p.events);
  const next = pages[pages.length - 1]!.nextId;
  const more = () =>
    run(async () => {
      const page = await api<BillingEventList>('GET', `${base}/events${query({ limit: PAGE, nextId: next })}`);
      setPages([...pages, page]);
    });
  if (!events.length) return <p>{t('integrations.logNone')}</p>;
  const caption = t('integrations.log');
  return (
    <>
      <p aria-live="polite">{t('integrations.logCount', { count: events.length })}</p>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
        <table class="billing-events">
          <caption class="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{t('integrations.col.received')}</th>
              <th scope="col">{t('integrations.col.event')}</th>
              <th scope="col">{t('integrations.col.outcome')}</th>
              <th scope="col">{t('integrations.col.reason')}</th>
              <th scope="col">{t('integrations.col.participant')}</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id}>
                <td data-label={t('integrations.col.received')}>
                  <time dateTime={new Date(e.receivedAt).toISOString()}>{when(e.receivedAt)}</time>
                </td>
                <td data-label={t('integrations.col.event')}>
                  <code>{e.type}</code>
                  <br />
                  <small>
                    <code>{e.eventId}</code> · {t('integrations.deliveries', { count: e.deliveries })}
                  </small>
                </td>
                <td data-label={t('integrations.col.outcome')}>
                  <span class={`badge outcome-${e.outcome.toLowerCase()}`}>{t(`integrations.outcome.${e.outcome}` as MessageKey)}</span>
                </td>
                <td data-label={t('integrations.col.reason')}>{e.reason ?? ''}</td>
                <td data-label={t('integrations.col.participant')}>{e.participantId ? <a href={`${location.pathname.replace(/\/integrations(\/[a-z]+)?\/?$/, '')}/participants/${encodeURIComponent(e.participantId)}`}>{e.participantId}</a> : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ErrorSummary error={error} />
      {next && (
        <button type="button" class="secondary" disabled={busy} onClick={more}>
          {busy ? t('state.loading') : t('integrations.logMore')}
        </button>
      )}
    </>
  );
}

export default function Integrations({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  const provider: Provider = params.provider === 'paddle' ? 'paddle' : 'stripe';
  const base = `/campaign/${encodeURIComponent(id)}/integrations/${provider}`;
  return (
    <>
      <PageTitle>{say(provider, 'title')}</PageTitle>
      <p>{say(provider, 'intro')}</p>
      <Async depKey={base} load={() => api<BillingConnection>('GET', base)}>
        {(c) => <Connection provider={provider} base={base} first={c} />}
      </Async>
      {provider === 'stripe' && <StripePageAttribution programId={id} />}
    </>
  );
}
