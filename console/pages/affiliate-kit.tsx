// What the affiliate pages share: the program gate (affiliate programs only),
// the status filter kept in the address bar, the paged list's table, names for participant ids, and
// one action runner that takes several items in turn and shows each item's result.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api } from '../api.ts';
import { navigate, params } from '../router.tsx';
import { rememberProgramType } from '../program-type.ts';
import { Async, Field, MoreButton, PageTitle, problem } from '../ui.tsx';
import { t, type MessageKey } from '../i18n/index.ts';
import type { Campaign } from '../../shared/schemas/campaign.ts';
import { EmptyList, withCount, type Counts } from '../state-counts.tsx';
import { EmptyState } from '../components.tsx';

/** The console address of a program's affiliate page `sub` ('' = applications). */
export function affiliatePath(programId: string, sub = ''): string {
  return `/console/programs/${encodeURIComponent(programId)}/affiliates${sub ? `/${sub}` : ''}`;
}

/** The REST path of the program: `/campaign/{id}`. */
export function campaignPath(programId: string): string {
  return `/campaign/${encodeURIComponent(programId)}`;
}

/** An affiliate page: its heading (its pages are items of the frame's Affiliates group), then `children` with the program (a referral program gets an explanation instead). */
export function AffiliatePage({ programId, title, children }: { programId: string; title: string; children: (c: Campaign) => ComponentChildren }) {
  return (
    <>
      <PageTitle>{title}</PageTitle>
      <Async depKey={programId} load={() => api<Campaign>('GET', campaignPath(programId))}>
        {(c) => {
          rememberProgramType(c.id, c.type);
          return c.type === 'AFFILIATE' ? children(c) : <p class="warning">{t('aff.notAffiliate')}</p>;
        }}
      </Async>
    </>
  );
}

/** The `status` of the address bar's query, if it is one of `statuses`; `fallback` when absent. */
export function statusParam<S extends string>(statuses: readonly S[], fallback: S | ''): S | '' {
  const q = params().get('status');
  if (q === null) return fallback;
  return (statuses as readonly string[]).includes(q) ? (q as S) : '';
}

/** A status filter that writes `?status=` into the address (so the filtered list can be shared). */
export function StatusFilter<S extends string>({ id, statuses, value, prefix, counts = null }: { id: string; statuses: readonly S[]; value: S | ''; prefix: string; counts?: Counts | null }) {
  const [chosen, setChosen] = useState<string>(value);
  useEffect(() => setChosen(value), [value]);
  const submit = (e: Event) => {
    e.preventDefault();
    navigate(`${location.pathname}?status=${encodeURIComponent(chosen)}`);
  };
  return (
    <form class="inline filter" onSubmit={submit}>
      <Field id={id} label={t('aff.filter')}>
        <select id={id} value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
          <option value="">{withCount(t('aff.all'), counts, '')}</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {withCount(t(`${prefix}.${s}` as MessageKey), counts, s)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" class="secondary">
        {t('aff.filterButton')}
      </button>
    </form>
  );
}

/** A table's scrolling frame: focusable and named, so a keyboard can scroll a table wider than a phone. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap aff" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/**
 * A paged list's table: `empty` once the first page came back empty (see EmptyListOf), else the
 * table (`children`: its head and body) captioned `label` with `count` (how many are shown), then
 * "More" when `more` reads the next page.
 */
export function ListTable({ loaded, rows, label, count, more, empty, children }: { loaded: boolean; rows: number; label: string; count: string; more?: () => void; empty: ComponentChildren; children: ComponentChildren }) {
  return (
    <>
      {loaded && !rows && empty}
      {rows > 0 && (
        <TableWrap label={label}>
          <table>
            <caption>
              {label} ({count})
            </caption>
            {children}
          </table>
        </TableWrap>
      )}
      <MoreButton show={more} label={t('aff.more')} onClick={() => more?.()} />
    </>
  );
}

/**
 * An affiliate list's empty message: filtered to a status while the list has rows, that nothing is
 * in it with a link to all (`?status=`); else the EmptyState `title`, `text` and `action`.
 */
export function EmptyListOf({ status, counts, title, text, action }: { status: string; counts: Counts | null; title: string; text: string; action?: ComponentChildren }) {
  return (
    <EmptyList filtered={status !== ''} counts={counts} none={t('aff.none')} allHref={`${location.pathname}?status=`}>
      <EmptyState title={title} text={text} action={action} />
    </EmptyList>
  );
}

/** A status badge of the affiliate pages (`prefix` is the status family: astatus, istatus, cstatus, pstatus). */
export function StatusBadge({ prefix, status }: { prefix: string; status: string }) {
  return <span class={`badge ${prefix}-${status.toLowerCase()}`}>{t(`${prefix}.${status}` as MessageKey)}</span>;
}

const emails = new Map<string, string>();

/** Emails of the program's participants with these ids (P4 for each not yet known), id → email. */
export function useEmails(programId: string, ids: string[]): Record<string, string> {
  const [, setVersion] = useState(0);
  const wanted = [...new Set(ids)].filter((id) => !emails.has(`${programId}/${id}`));
  useEffect(() => {
    if (!wanted.length) return;
    let live = true;
    void Promise.all(
      wanted.map((id) =>
        api<{ email: string }>('GET', `${campaignPath(programId)}/participant/${encodeURIComponent(id)}`).then(
          (p) => emails.set(`${programId}/${id}`, p.email),
          () => emails.set(`${programId}/${id}`, id),
        ),
      ),
    ).then(() => live && setVersion((v) => v + 1));
    return () => {
      live = false;
    };
  }, [programId, wanted.join(',')]);
  return Object.fromEntries(ids.map((id) => [id, emails.get(`${programId}/${id}`) ?? id]));
}

/** One item's outcome in a run over several items. */
export interface Outcome {
  key: string;
  label: string;
  error: string | null;
}

/** Runs `act` on each item in turn (never in parallel: each answer is the REST operation's own), collecting every outcome. */
export async function eachInTurn<T>(items: T[], describe: (item: T) => { key: string; label: string }, act: (item: T) => Promise<unknown>): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const item of items) {
    const d = describe(item);
    try {
      await act(item);
      out.push({ ...d, error: null });
    } catch (e) {
      out.push({ ...d, error: problem(e) });
    }
  }
  return out;
}

/** The list of outcomes of the last run: each item done or why not. */
export function Outcomes({ outcomes }: { outcomes: Outcome[] }) {
  if (!outcomes.length) return null;
  const ok = outcomes.filter((o) => !o.error).length;
  const failed = ok < outcomes.length;
  return (
    <section class={failed ? 'card outcomes error' : 'card outcomes'} aria-labelledby="outcomes-title">
      <h2 id="outcomes-title">{t('com.results')}</h2>
      <p>{t('com.done', { count: outcomes.length, ok })}</p>
      <ul>
        {outcomes.map((o) => (
          <li key={o.key}>{o.error ? t('com.resultFailed', { label: o.label, message: o.error }) : t('com.resultOk', { label: o.label })}</li>
        ))}
      </ul>
    </section>
  );
}
