// The audit log page (issue #35): the team's audit trail newest first (AU1), filtered by member or
// key, resource, action and dates (the filters live in the address, so a filtered view can be
// shared), a page at a time; "Download CSV" is a plain link to AU2 with the same filters, so the
// browser downloads the streamed file with the session cookie.
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { Async, ErrorSummary, Field, useAction } from '../ui.tsx';
import { Button, Card, EmptyState, PageHeader, Table } from '../components.tsx';
import { navigate, params } from '../router.tsx';
import { t, when, type MessageKey } from '../i18n/index.ts';
import { AUDIT_ACTION_GROUPS, AUDIT_RESOURCE_TYPES, actionLabel, agentLabel, resourceLabel } from '../audit-actions.ts';

interface Entry {
  id: string;
  seq: number;
  at: number;
  actor: { type: 'MEMBER' | 'API_KEY' | 'SYSTEM' | 'ANONYMOUS'; id: string | null; label: string | null };
  ip: string | null;
  userAgent: string | null;
  action: string;
  resource: { type: string | null; id: string | null };
  changes: { ids?: Record<string, string>; fields?: Record<string, { before?: unknown; after?: unknown }> | string[]; event?: { id: string; type: string } } | null;
  hash: string;
}
interface AuditPage {
  entries: Entry[];
  nextCursor: string | null;
}

const PAGE = 50;
const DAY = 86_400_000;
const FILTERS = ['actor', 'resourceType', 'resourceId', 'action', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function readFilters(): Filters {
  const p = params();
  return Object.fromEntries(FILTERS.map((f) => [f, p.get(f) ?? ''])) as Filters;
}

/** The API's query for the filters: dates are whole days, `to` inclusive (the API's `to` is exclusive). */
function apiFilters(f: Filters): Record<string, string | number | undefined> {
  const day = (d: string) => (/^\d{4}-\d{2}-\d{2}$/.test(d) ? Date.parse(`${d}T00:00:00Z`) : NaN);
  const from = day(f.from);
  const to = day(f.to);
  return {
    actor: f.actor || undefined,
    resourceType: f.resourceType || undefined,
    resourceId: f.resourceId || undefined,
    action: f.action || undefined,
    from: Number.isFinite(from) ? from : undefined,
    to: Number.isFinite(to) ? to + DAY : undefined,
  };
}

function who(e: Entry): string {
  if (e.actor.type === 'MEMBER') return e.actor.label ?? e.actor.id ?? '—';
  return t(`audit.actor.${e.actor.type}`, { label: e.actor.label ?? e.actor.id ?? '' });
}

const show = (v: unknown): string => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function Changes({ e }: { e: Entry }) {
  const fields = e.changes?.fields;
  // A billing webhook's entry names the provider's event it applied.
  const event = e.changes?.event ? <span class="hint">{t('audit.event', { id: e.changes.event.id, type: e.changes.event.type })}</span> : null;
  if (!fields || (Array.isArray(fields) ? fields.length === 0 : Object.keys(fields).length === 0)) return event ?? <span class="hint">{t('audit.noChanges')}</span>;
  if (Array.isArray(fields)) return <span>{fields.join(', ')}</span>;
  return (
    <>
      {event}
      <ul class="audit-changes">
        {Object.entries(fields).map(([name, c]) => (
          <li key={name}>
            <code>{name}</code>: {'before' in c ? <>{show(c.before)} → </> : null}
            {show(c.after)}
          </li>
        ))}
      </ul>
    </>
  );
}

function Entries({ first, filters }: { first: AuditPage; filters: Filters }) {
  const [pages, setPages] = useState<AuditPage[]>([first]);
  const { busy, error, run } = useAction();
  const entries = pages.flatMap((p) => p.entries);
  const cursor = pages[pages.length - 1]!.nextCursor;
  const more = () =>
    run(async () => {
      const next = await api<AuditPage>('GET', `/team/audit-log${query({ ...apiFilters(filters), limit: PAGE, cursor })}`);
      setPages([...pages, next]);
    });
  if (!entries.length)
    return (
      <Card id="no-audit">
        <EmptyState title={t('audit.none')} text={t('audit.none.text')} />
      </Card>
    );
  return (
    <>
      <Table caption={t('audit.table')} count={entries.length}>
        <thead>
          <tr>
            <th scope="col">{t('audit.when')}</th>
            <th scope="col">{t('audit.who')}</th>
            <th scope="col">{t('audit.what')}</th>
            <th scope="col">{t('audit.resource')}</th>
            <th scope="col">{t('audit.changes')}</th>
            <th scope="col">{t('audit.from.ip')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <th scope="row">
                <time dateTime={new Date(e.at).toISOString()}>{when(e.at)}</time>
              </th>
              <td data-label={t('audit.who')}>{who(e)}</td>
              <td data-label={t('audit.what')}>
                {actionLabel(e.action)}
                <span class="hint audit-code">{t('audit.code', { code: e.action })}</span>
              </td>
              <td data-label={t('audit.resource')}>
                {e.resource.type ? resourceLabel(e.resource.type) : '—'}
                {e.resource.id && <code class="audit-id">{e.resource.id}</code>}
              </td>
              <td data-label={t('audit.changes')}>
                <Changes e={e} />
              </td>
              <td data-label={t('audit.from.ip')}>
                {e.ip ?? '—'}
                {e.userAgent && <span class="hint audit-agent">{agentLabel(e.userAgent)}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <ErrorSummary error={error} />
      {cursor && (
        <Button kind="secondary" disabled={busy} onClick={more}>
          {busy ? t('state.loading') : t('audit.more')}
        </Button>
      )}
    </>
  );
}

function FilterForm({ filters }: { filters: Filters }) {
  const [f, setF] = useState<Filters>(filters);
  // The team's members as suggestions for the member filter (an API key prefix can still be typed).
  const [members, setMembers] = useState<string[]>([]);
  useEffect(() => {
    api<{ members: Array<{ email: string }> }>('GET', '/team/members')
      .then((r) => setMembers(r.members.map((m) => m.email)))
      .catch(() => undefined);
  }, []);
  const set = (k: keyof Filters) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  // An action or resource type in the address that the lists do not have (an older link) stays selectable.
  const grouped = new Set<string>(Object.values(AUDIT_ACTION_GROUPS).flat());
  const resources = [...AUDIT_RESOURCE_TYPES].sort((a, b) => resourceLabel(a).localeCompare(resourceLabel(b)));
  const submit = (e: Event) => {
    e.preventDefault();
    const q = query(Object.fromEntries(FILTERS.map((k) => [k, f[k].trim() || undefined])));
    navigate(`/console/audit${q}`);
  };
  const text = (k: keyof Filters, label: string, hint?: string, list?: string) => (
    <Field id={`audit-${k}`} label={label} hint={hint}>
      <input id={`audit-${k}`} type="text" value={f[k]} onInput={set(k)} maxLength={320} list={list} />
    </Field>
  );
  return (
    <form class="card audit-filters" aria-label={t('audit.filters')} role="search" onSubmit={submit}>
      <div class="row">
        {text('actor', t('audit.actor'), t('audit.actorHint'), 'audit-members')}
        <datalist id="audit-members">
          {members.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <Field id="audit-action" label={t('audit.action')} hint={t('audit.actionHint')}>
          <select id="audit-action" value={f.action} onChange={set('action')}>
            <option value="">{t('audit.anyAction')}</option>
            {f.action && !grouped.has(f.action) && <option value={f.action}>{actionLabel(f.action)}</option>}
            {Object.entries(AUDIT_ACTION_GROUPS).map(([group, actions]) => (
              <optgroup key={group} label={t(`audit.group.${group}` as MessageKey)}>
                {actions.map((a) => (
                  <option key={a} value={a}>
                    {actionLabel(a)}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </Field>
      </div>
      <div class="row">
        <Field id="audit-resourceType" label={t('audit.resourceType')}>
          <select id="audit-resourceType" value={f.resourceType} onChange={set('resourceType')}>
            <option value="">{t('audit.anyResource')}</option>
            {f.resourceType && !AUDIT_RESOURCE_TYPES.includes(f.resourceType) && <option value={f.resourceType}>{f.resourceType}</option>}
            {resources.map((r) => (
              <option key={r} value={r}>
                {resourceLabel(r)}
              </option>
            ))}
          </select>
        </Field>
        {text('resourceId', t('audit.resourceId'))}
      </div>
      <div class="row">
        <Field id="audit-from" label={t('audit.from')}>
          <input id="audit-from" type="date" value={f.from} onInput={set('from')} />
        </Field>
        <Field id="audit-to" label={t('audit.to')}>
          <input id="audit-to" type="date" value={f.to} onInput={set('to')} />
        </Field>
      </div>
      <div class="buttons">
        <Button type="submit">{t('audit.apply')}</Button>
        <Button kind="secondary" onClick={() => navigate('/console/audit')}>
          {t('audit.clear')}
        </Button>
      </div>
    </form>
  );
}

export default function AuditLog() {
  const filters = readFilters();
  const key = JSON.stringify(filters);
  const csv = `/console/api/v2/team/audit-log/export.csv${query(apiFilters(filters))}`;
  return (
    <>
      <PageHeader
        title={t('audit.title')}
        action={
          <a class="button secondary" href={csv} download="audit-log.csv" id="audit-csv">
            {t('audit.csv')}
          </a>
        }
      />
      <p>{t('audit.intro')}</p>
      <FilterForm key={key} filters={filters} />
      <Async depKey={key} load={() => api<AuditPage>('GET', `/team/audit-log${query({ ...apiFilters(filters), limit: PAGE })}`)}>
        {(first) => <Entries key={key} first={first} filters={filters} />}
      </Async>
    </>
  );
}
