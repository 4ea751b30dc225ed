// A program's participants over P1 and its refloop extensions: server-side search, filters
// (referred, status, fraud risk, affiliate), sort and cursor pages. The address bar holds the whole
// state (search, filters, order and the cursors of the pages walked), so a view can be shared.
import { useEffect, useState } from 'preact/hooks';
import { api, can, query } from '../api.ts';
import { Link, navigate, params } from '../router.tsx';
import { Async, Field } from '../ui.tsx';
import { Button, ButtonLink, EmptyState, PageHeader } from '../components.tsx';
import { AddParticipant } from './participant-add.tsx';
import { num, t, when, type MessageKey } from '../i18n/index.ts';
import { rememberProgramType } from '../program-type.ts';
import type { Participant } from '../../shared/schemas/participant.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';

type Page = { participants: Participant[]; nextId: string | null };

const PAGE = 50;
/** Most cursors the address keeps (the oldest are dropped; "First page" always works). */
const TRAIL = 40;
/** The filter controls: query parameter, P1 parameter and its values. */
const FILTERS = [
  { name: 'referred', values: ['true', 'false'], label: 'pt.referred' },
  { name: 'referralStatus', values: ['CREDIT_PENDING', 'CREDIT_AWARDED', 'CREDIT_EXPIRED'], label: 'pt.status' },
  { name: 'fraudRiskLevel', values: ['LOW', 'MEDIUM', 'HIGH'], label: 'pt.fraud' },
  { name: 'isAffiliate', values: ['true', 'false'], label: 'pt.affiliate' },
] as const;
const OPTION_KEY: Record<string, string> = { referred: 'pt.referred', referralStatus: 'pt.status', fraudRiskLevel: 'pt.fraud', isAffiliate: 'pt.affiliate' };
const SORTS = ['createdAt', 'referralCount', 'email'] as const;
const STATE_KEYS = ['search', 'sort', ...FILTERS.map((f) => f.name)];

/** The list's state as the address bar holds it. */
function readState(): { view: Record<string, string>; trail: string[] } {
  const p = params();
  const view: Record<string, string> = {};
  for (const k of STATE_KEYS) {
    const v = p.get(k);
    if (v) view[k] = v;
  }
  return { view, trail: (p.get('pages') ?? '').split(',').filter(Boolean) };
}

function href(programId: string, view: Record<string, string>, trail: string[] = []): string {
  return `/console/programs/${encodeURIComponent(programId)}/participants${query({ ...view, pages: trail.slice(-TRAIL).join(',') })}`;
}

/** What an empty page says: with a search or filter active, that nothing matches; else how people join, with the ways to add some. */
function Empty({ c, filtered, onAdd }: { c: Campaign; filtered: boolean; onAdd?: () => void }) {
  if (filtered) return <p>{t('participants.none')}</p>;
  return (
    <EmptyState
      title={t('pt.empty.title')}
      text={t('pt.empty.text')}
      action={
        onAdd && (
          <>
            <Button onClick={onAdd}>{t('pt.add.open')}</Button>
            <ButtonLink kind="secondary" href={`/console/programs/${encodeURIComponent(c.id)}/data`}>
              {t('pt.empty.import')}
            </ButtonLink>
          </>
        )
      }
    />
  );
}

function Table({ rows, c }: { rows: Participant[]; c: Campaign }) {
  const base = `/console/programs/${encodeURIComponent(c.id)}/participants/`;
  return (
    <div class="table-wrap">
      {/* Below 640 px each participant is a card of labelled lines (table.stack). */}
      <table class="stack">
        <caption>
          {t('participants.table', { name: c.name })} ({t('participants.count', { count: rows.length })})
        </caption>
        <thead>
          <tr>
            <th scope="col">{t('col.email')}</th>
            <th scope="col">{t('col.name')}</th>
            <th scope="col" class="num">
              {t('col.referrals')}
            </th>
            <th scope="col">{t('pt.field.status')}</th>
            <th scope="col">{t('pt.col.risk')}</th>
            <th scope="col">{t('col.joined')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <tr key={p.id}>
              <th scope="row">
                <Link href={base + encodeURIComponent(p.id)}>{p.email}</Link>
              </th>
              <td data-label={t('col.name')}>{[p.firstName, p.lastName].filter(Boolean).join(' ') || '—'}</td>
              <td class="num" data-label={t('col.referrals')}>
                {num(p.referralCount)}
              </td>
              <td data-label={t('pt.field.status')}>{p.referralStatus ? t(`pt.status.${p.referralStatus}` as MessageKey) : '—'}</td>
              <td data-label={t('pt.col.risk')}>{t(`pt.fraud.${p.fraudRiskLevel}` as MessageKey)}</td>
              <td data-label={t('col.joined')}>{when(p.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Search box, filters and order; submitting starts again at the first page. */
function Controls({ c, view }: { c: Campaign; view: Record<string, string> }) {
  const [draft, setDraft] = useState(view);
  useEffect(() => setDraft(view), [JSON.stringify(view)]);
  const set = (k: string, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const apply = (e: Event) => {
    e.preventDefault();
    const clean = Object.fromEntries(Object.entries(draft).filter(([, v]) => v && v.trim()).map(([k, v]) => [k, k === 'search' ? v.trim() : v]));
    // Replaces the entry: Back leaves the list instead of stepping through each search.
    navigate(href(c.id, clean), true);
  };
  return (
    <form role="search" aria-label={t('pt.filters')} onSubmit={apply} class="pt-controls">
      <Field id="pt-search" label={t('pt.search')} hint={t('pt.searchHint')}>
        <input id="pt-search" type="search" aria-describedby="pt-search-hint" maxLength={254} value={draft.search ?? ''} onInput={(e) => set('search', e.currentTarget.value)} />
      </Field>
      {FILTERS.filter((f) => f.name !== 'isAffiliate' || c.type === 'AFFILIATE').map((f) => (
        <Field key={f.name} id={`pt-${f.name}`} label={t(f.label)}>
          <select id={`pt-${f.name}`} value={draft[f.name] ?? ''} onChange={(e) => set(f.name, e.currentTarget.value)}>
            <option value="">{t('pt.any')}</option>
            {f.values.map((v) => (
              <option key={v} value={v}>
                {t(`${OPTION_KEY[f.name]}.${v}` as MessageKey)}
              </option>
            ))}
          </select>
        </Field>
      ))}
      <Field id="pt-sort" label={t('pt.sort')}>
        <select id="pt-sort" value={draft.sort ?? 'createdAt'} onChange={(e) => set('sort', e.currentTarget.value)}>
          {SORTS.map((s) => (
            <option key={s} value={s}>
              {t(`pt.sort.${s}`)}
            </option>
          ))}
        </select>
      </Field>
      <div class="pt-buttons">
        <button type="submit">{t('pt.searchButton')}</button>
        {Object.keys(view).length > 0 && (
          <button type="button" class="secondary" onClick={() => navigate(href(c.id, {}), true)}>
            {t('pt.clear')}
          </button>
        )}
      </div>
    </form>
  );
}

function List({ c, version, onAdd }: { c: Campaign; version: number; onAdd?: () => void }) {
  const { view, trail } = readState();
  const after = trail.at(-1);
  const key = JSON.stringify([c.id, view, after, version]);
  const filtered = Object.keys(view).length > 0 || trail.length > 0;
  // A program nobody has joined yet shows its empty state alone: there is nothing to search or filter.
  const [none, setNone] = useState(false);
  const extended = Object.keys(view).length > 0 ? { sort: 'createdAt', ...view } : {};
  return (
    <>
      {(!none || filtered) && <Controls c={c} view={view} />}
      <Async
        depKey={key}
        load={() =>
          api<Page>('GET', `/campaign/${encodeURIComponent(c.id)}/participants${query({ limit: PAGE, ...extended, nextId: after })}`).then((page) => {
            setNone(!filtered && page.participants.length === 0);
            return page;
          })
        }
      >
        {(page) => (
          <>
            {page.participants.length ? <Table rows={page.participants} c={c} /> : <Empty c={c} filtered={filtered} onAdd={onAdd} />}
            {(page.participants.length > 0 || trail.length > 0) && (
              <nav aria-label={t('pt.pages')} class="pager">
                {trail.length > 0 && (
                  <>
                    <Link class="button secondary" href={href(c.id, view)}>
                      {t('pt.first')}
                    </Link>
                    <Link class="button secondary" href={href(c.id, view, trail.slice(0, -1))} rel="prev">
                      {t('pt.prev')}
                    </Link>
                  </>
                )}
                <span>{t('pt.pageNo', { page: trail.length + 1 })}</span>
                {page.nextId && (
                  <Link class="button" href={href(c.id, view, [...trail, page.nextId])} rel="next">
                    {t('pt.next')}
                  </Link>
                )}
              </nav>
            )}
          </>
        )}
      </Async>
    </>
  );
}

/** The header's "Add participant" disclosure, the form it opens, and the list (read again after an add). */
function Body({ c }: { c: Campaign }) {
  const [open, setOpen] = useState(false);
  const [version, setVersion] = useState(0);
  const writable = can('participant:write');
  const show = () => {
    setOpen(true);
    // After the form renders: its first field takes focus, as a disclosure's content should be reachable at once.
    setTimeout(() => document.getElementById('pa-email')?.focus());
  };
  const close = () => {
    setOpen(false);
    document.getElementById('pa-open')?.focus();
  };
  const added = () => {
    setOpen(false);
    // The new participant is first in the unfiltered list, newest first.
    if (Object.keys(readState().view).length || readState().trail.length) navigate(href(c.id, {}), true);
    setVersion((v) => v + 1);
  };
  return (
    <>
      <PageHeader
        title={t('participants.title')}
        action={
          writable && (
            <Button id="pa-open" aria-expanded={open} aria-controls="add-participant-panel" onClick={() => (open ? setOpen(false) : show())}>
              {t('pt.add.open')}
            </Button>
          )
        }
      />
      <div id="add-participant-panel" hidden={!open}>
        {open && <AddParticipant programId={c.id} onAdded={added} onClose={close} />}
      </div>
      <List c={c} version={version} onAdd={writable && !open ? show : undefined} />
    </>
  );
}

export default function Participants({ params: route }: { params: Record<string, string> }) {
  const id = route.programId!;
  return (
    <>
      <Async
        depKey={id}
        load={() =>
          api<Campaign>('GET', `/campaign/${encodeURIComponent(id)}`).then((c) => {
            rememberProgramType(c.id, c.type);
            return c;
          })
        }
      >
        {(c) => <Body c={c} />}
      </Async>
    </>
  );
}
