// The count of a list in each state, for its filter (issue #32 defect 5): the counts operations
// (PR6, AF16–AF18, FR2) read once per visit and again after an action changed a state, and the
// state a list opens in: the one the address asks for, else the one that needs the owner when
// something is in it, else everything, so a page with rows never opens on "nothing matches".
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api } from './api.ts';
import { Link, params } from './router.tsx';
import { num, t } from './i18n/index.ts';

/** Counts by state, with the total under `ALL`. */
export type Counts = Record<string, number>;

/**
 * Reads `url` (a counts operation) and decides the state the list shows: `asked` (the address's
 * value under `param`) when it is one of `states`, else `preferred` when it has rows, else `all`.
 * Renders `children` once the counts are in (a failed read falls back to `preferred`, uncounted).
 */
export function CountedStates<S extends string>({
  url,
  states,
  preferred,
  all,
  param = 'status',
  children,
}: {
  url: string;
  states: readonly S[];
  preferred: S;
  all: S | '';
  param?: string;
  children: (state: S | '', counts: Counts | null, recount: () => void) => ComponentChildren;
}) {
  const [counts, setCounts] = useState<{ url: string; counts: Counts | null; opened: S | '' } | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    // The state a visit opens in is chosen from the first counts and kept: a list does not switch
    // under the owner's hands when their last pending item is done (it then says nothing is left).
    const opened = (c: Counts | null, before: typeof counts): S | '' => (before && before.url === url ? before.opened : !c || (c[preferred] ?? 0) > 0 ? preferred : all);
    api<Counts>('GET', url).then(
      (c) => live && setCounts((before) => ({ url, counts: c, opened: opened(c, before) })),
      () => live && setCounts((before) => ({ url, counts: null, opened: opened(null, before) })),
    );
    return () => {
      live = false;
    };
  }, [url, round]);
  if (!counts || counts.url !== url) return <p aria-live="polite">{t('state.loading')}</p>;
  const asked = params().get(param);
  const c = counts.counts;
  const state: S | '' = asked !== null && ((states as readonly string[]).includes(asked) || asked === all) ? (asked as S | '') : counts.opened;
  return <>{children(state, c, () => setRound((n) => n + 1))}</>;
}

/** A state's name with its count when known: "Pending (3)". */
export function withCount(label: string, counts: Counts | null, state: string): string {
  const n = counts?.[state || 'ALL'];
  return n === undefined ? label : t('filter.count', { label, count: num(n) });
}

/** A list's states as links with their counts (`?<param>=<state>` addresses), the shown one marked current. */
export function StateTabs<S extends string>({ label, states, current, base, param = 'state', name, counts }: { label: string; states: readonly S[]; current: S; base: string; param?: string; name: (state: S) => string; counts: Counts | null }) {
  return (
    <nav aria-label={label} class="tabs">
      <ul>
        {states.map((s) => (
          <li key={s}>
            <Link href={`${base}?${param}=${s}`} aria-current={s === current ? 'page' : undefined}>
              {withCount(name(s), counts, s)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * What an empty list says (issue #32): filtered to one state (`filtered`) while the whole list has
 * rows, `none` and a link to the whole list (`allHref`), so the owner is one click from what there
 * is; when the whole list is empty, `children` (its EmptyState: what is missing, how rows arrive,
 * the next action). `counts` without a total (a failed read) still offers the link, uncounted.
 */
export function EmptyList({ filtered, counts, none, allHref, children }: { filtered: boolean; counts: Counts | null; none: string; allHref: string; children: ComponentChildren }) {
  const total = counts?.ALL;
  if (!filtered || total === 0) return <>{children}</>;
  return (
    <p class="filtered-empty">
      {none} <Link href={allHref}>{total === undefined ? t('state.showAllUncounted') : t('state.showAll', { count: num(total) })}</Link>
    </p>
  );
}

/** Whether the whole list is known to be empty (its filter then has nothing to choose from and is left out). */
export const noneAtAll = (counts: Counts | null): boolean => counts?.ALL === 0;
