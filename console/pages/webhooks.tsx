// A program's webhooks (W1): add (W2), edit (W3), delete (W4), send a test and read the reply (W5),
// and each webhook's delivery log. The signing secret is write-only in the API, so the console shows
// the one it sent exactly once, right after the API accepted it.
import { useState } from 'preact/hooks';
import { api, can } from '../api.ts';
import { announce, Async, ErrorSummary, Field, PageTitle, SecretBox, useAction } from '../ui.tsx';
import { t, when } from '../i18n/index.ts';
import type { Webhook, WebhookEvent, WebhookTestResponse } from '../../shared/schemas/webhook.ts';
import { DeliveryLog } from './webhook-log.tsx';
import { Button, EmptyState } from '../components.tsx';

/** The events in the API's order (a copy of WEBHOOK_EVENTS: importing the schema module would bring zod into the page). */
const EVENTS = ['PARTICIPANT_REACHED_A_GOAL', 'NEW_PARTICIPANT_ADDED', 'CAMPAIGN_ENDED', 'PARTICIPANT_FRAUD_STATUS_UPDATED', 'NEW_COMMISSION_ADDED', 'COMMISSION_ADJUSTED', 'NEW_PAYOUT_ISSUED'] as const satisfies readonly WebhookEvent[];

/** A new random signing secret (32 bytes, hex). */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Create (no `hook`) or edit a webhook; `onSaved` gets the saved webhook and the secret sent, if any. */
function WebhookForm({ base, hook, onSaved, onCancel }: { base: string; hook?: Webhook; onSaved: (w: Webhook, secret: string | null) => void; onCancel?: () => void }) {
  const [url, setUrl] = useState(hook?.payloadUrl ?? '');
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(hook?.events ?? []));
  const [enabled, setEnabled] = useState(hook?.isEnabled ?? true);
  const [secret, setSecret] = useState('');
  const { busy, error, run } = useAction();
  const p = hook ? `hook-${hook.id}` : 'hook-new';
  const toggle = (e: WebhookEvent, on: boolean) =>
    setEvents((s) => {
      const n = new Set(s);
      if (on) n.add(e);
      else n.delete(e);
      return n;
    });
  const submit = (e: Event) => {
    e.preventDefault();
    const sent = hook ? secret.trim() || null : secret.trim() || newSecret();
    const body = { payloadUrl: url.trim(), events: EVENTS.filter((x) => events.has(x)), isEnabled: enabled, ...(sent ? { secret: sent } : {}) };
    void run(async () => {
      const saved = hook ? await api<Webhook>('PATCH', `${base}/${encodeURIComponent(hook.id)}`, body) : await api<Webhook>('POST', base, body);
      announce(t(hook ? 'webhooks.saved' : 'webhooks.created'));
      onSaved(saved, sent);
    });
  };
  return (
    <form onSubmit={submit} class="webhook-form" aria-label={hook ? t('webhooks.editTitle') : t('webhooks.add')}>
      <ErrorSummary error={error} />
      <Field id={`${p}-url`} label={t('webhooks.url')} hint={t('webhooks.urlHint')}>
        <input id={`${p}-url`} type="text" inputMode="url" autoComplete="off" required aria-describedby={`${p}-url-hint`} value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </Field>
      <fieldset>
        <legend>{t('webhooks.events')}</legend>
        {EVENTS.map((ev) => (
          <label class="choice" key={ev}>
            <input type="checkbox" checked={events.has(ev)} onChange={(e) => toggle(ev, e.currentTarget.checked)} />
            {t(`webhookEvent.${ev}`)}
          </label>
        ))}
      </fieldset>
      <label class="choice">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        {t('webhooks.enabled')}
      </label>
      <Field id={`${p}-secret`} label={t(hook ? 'webhooks.newSecret' : 'webhooks.secret')} hint={t(hook ? 'webhooks.newSecretHint' : 'webhooks.secretHint')}>
        <input id={`${p}-secret`} type="text" autoComplete="off" spellcheck={false} aria-describedby={`${p}-secret-hint`} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
      </Field>
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {t(hook ? 'webhooks.save' : 'webhooks.create')}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            {t('webhooks.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}

/** The secret just sent, shown this once. */
function SecretOnce({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  return (
    <SecretBox
      titleId="secret-title"
      level={2}
      focus="card"
      title={t('webhooks.secretTitle', { url })}
      body={t('webhooks.secretOnce')}
      secret={secret}
      copyLabel={t('webhooks.copy')}
      copied={t('webhooks.copied')}
      doneLabel={t('webhooks.saved.done')}
      onDone={onDone}
    />
  );
}

function TestForm({ base, hook, onSent }: { base: string; hook: Webhook; onSent: () => void }) {
  const [event, setEvent] = useState<WebhookEvent>(hook.events[0] ?? 'NEW_PARTICIPANT_ADDED');
  const [result, setResult] = useState<WebhookTestResponse | null>(null);
  const { busy, error, run } = useAction();
  const id = `test-${hook.id}`;
  const send = (e: Event) => {
    e.preventDefault();
    setResult(null);
    void run(async () => {
      const r = await api<WebhookTestResponse>('POST', `${base}/${encodeURIComponent(hook.id)}/test`, { event });
      setResult(r);
      announce(r.success ? t('webhooks.testOk', { status: r.response.statusCode ?? '' }) : t('webhooks.testFailed', { reason: r.response.msg ?? '' }));
      onSent();
    });
  };
  return (
    <form class="inline test-form" onSubmit={send} aria-label={`${t('webhooks.test')}: ${hook.payloadUrl ?? ''}`}>
      <Field id={id} label={t('webhooks.testEvent')}>
        <select id={id} value={event} onChange={(e) => setEvent(e.currentTarget.value as WebhookEvent)}>
          {EVENTS.map((ev) => (
            <option key={ev} value={ev}>
              {t(`webhookEvent.${ev}`)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={busy}>
        {t('webhooks.testSend')}
      </button>
      <ErrorSummary error={error} />
      {result && (
        <div class={result.success ? 'result ok' : 'result error'} data-test-result>
          <p>{result.success ? t('webhooks.testOk', { status: result.response.statusCode ?? '' }) : t('webhooks.testFailed', { reason: result.response.statusCode ? t('webhooks.testRefused', { status: result.response.statusCode }) : (result.response.msg ?? '') })}</p>
          {result.response.msg && (
            <p>
              {t('webhooks.testReply')}: <code class="excerpt">{result.response.msg}</code>
            </p>
          )}
        </div>
      )}
    </form>
  );
}

function WebhookCard({ base, programId, hook, reload }: { base: string; programId: string; hook: Webhook; reload: () => void }) {
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const { error, run } = useAction();
  const [sent, setSent] = useState(0);
  const titleId = `hook-title-${hook.id}`;
  const writer = can('program:write');
  const remove = () =>
    run(async () => {
      await api('DELETE', `${base}/${encodeURIComponent(hook.id)}`);
      announce(t('webhooks.deleted'));
      reload();
    }, t('webhooks.confirmDelete', { url: hook.payloadUrl ?? '' }));
  return (
    <section class="card webhook" aria-labelledby={titleId}>
      <h2 id={titleId} class="url">
        {hook.payloadUrl}
      </h2>
      <p>
        <span class={`badge ${hook.isEnabled ? 'status-in_progress' : 'status-complete'}`}>{t(hook.isEnabled ? 'webhooks.on' : 'webhooks.off')}</span>
      </p>
      {hook.autoDisabledDueToFailures ? (
        <p class="warning">{t('webhooks.autoDisabled', { count: hook.failureCount, when: when(hook.lastFailureAt) })}</p>
      ) : hook.failureCount > 0 ? (
        <p class="warning">{t('webhooks.failing', { count: hook.failureCount, when: when(hook.lastFailureAt) })}</p>
      ) : null}
      {hook.events.length ? (
        <ul class="tags" aria-label={t('webhooks.events')}>
          {hook.events.map((e) => (
            <li key={e}>{t(`webhookEvent.${e}`)}</li>
          ))}
        </ul>
      ) : (
        <p>{t('webhooks.noEvents')}</p>
      )}
      {secret && <SecretOnce url={hook.payloadUrl ?? ''} secret={secret} onDone={() => setSecret(null)} />}
      <ErrorSummary error={error} />
      {writer && !editing && (
        <div class="buttons">
          <button type="button" class="secondary" aria-describedby={titleId} onClick={() => setEditing(true)}>
            {t('webhooks.edit')}
          </button>
          <button type="button" class="danger" aria-describedby={titleId} onClick={remove}>
            {t('webhooks.delete')}
          </button>
        </div>
      )}
      {editing && (
        <WebhookForm
          base={base}
          hook={hook}
          onCancel={() => setEditing(false)}
          onSaved={(_w, s) => {
            setEditing(false);
            setSecret(s);
            reload();
          }}
        />
      )}
      {writer && <TestForm base={base} hook={hook} onSent={() => setSent((n) => n + 1)} />}
      <DeliveryLog programId={programId} hook={hook} refresh={sent} />
    </section>
  );
}

function List({ programId, hooks, reload }: { programId: string; hooks: Webhook[]; reload: () => void }) {
  const base = `/campaign/${encodeURIComponent(programId)}/webhooks`;
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  return (
    <>
      {created && <SecretOnce url={created.url} secret={created.secret} onDone={() => setCreated(null)} />}
      {hooks.length === 0 && (
        <EmptyState
          title={t('webhooks.empty.title')}
          text={t('webhooks.empty.text')}
          action={can('program:write') && <Button onClick={() => document.getElementById('hook-new-url')?.focus()}>{t('webhooks.add')}</Button>}
        />
      )}
      {hooks.map((h) => (
        <WebhookCard key={h.id} base={base} programId={programId} hook={h} reload={reload} />
      ))}
      {can('program:write') ? (
        <section class="card" aria-labelledby="add-title">
          <h2 id="add-title">{t('webhooks.add')}</h2>
          <WebhookForm
            key={hooks.length}
            base={base}
            onSaved={(w, s) => {
              setCreated({ url: w.payloadUrl ?? '', secret: s! });
              reload();
            }}
          />
        </section>
      ) : (
        <p>{t('webhooks.readOnly')}</p>
      )}
    </>
  );
}

export default function Webhooks({ params }: { params: Record<string, string> }) {
  const id = params.programId!;
  return (
    <>
      <PageTitle>{t('webhooks.title')}</PageTitle>
      <p>{t('webhooks.intro')}</p>
      <Async depKey={id} load={() => api<{ webhooks: Webhook[] }>('GET', `/campaign/${encodeURIComponent(id)}/webhooks`)}>
        {(d, reload) => <List programId={id} hooks={d.webhooks} reload={reload} />}
      </Async>
    </>
  );
}
