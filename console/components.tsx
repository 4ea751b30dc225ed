// The console's components (issue #32): one set that pages compose instead of styling themselves.
// Button and ButtonLink, Card, PageHeader, StatusBadge, EmptyState, Kpi, FilterBar and Table; their
// look is the tokens of console/styles.css. The older pieces (PageTitle, Field, Badge, RowButtons,
// SecretBox …) stay in console/ui.tsx and wear the same tokens.
import type { ComponentChildren, ComponentProps } from 'preact';
import { useState } from 'preact/hooks';
import { Link } from './router.tsx';
import { PageTitle } from './ui.tsx';
import { num, t } from './i18n/index.ts';

/** The four kinds of button: the one primary action of a place, the others, a destructive one, a quiet link-like one. */
export type ButtonKind = 'primary' | 'secondary' | 'critical' | 'plain';

function buttonClass(kind: ButtonKind, size?: 'small', extra?: string): string | undefined {
  return [kind === 'primary' ? '' : kind, size, extra].filter(Boolean).join(' ') || undefined;
}

/** A button (type "button" unless told otherwise) of `kind`, optionally small. */
export function Button({ kind = 'primary', size, type = 'button', class: extra, ...rest }: Omit<ComponentProps<'button'>, 'size'> & { kind?: ButtonKind; size?: 'small' }) {
  return <button type={type} class={buttonClass(kind, size, extra as string | undefined)} {...rest} />;
}

/** An in-console link that looks like a button (for an action that is a place: "New program"). */
export function ButtonLink({ kind = 'primary', size, href, children }: { kind?: ButtonKind; size?: 'small'; href: string; children: ComponentChildren }) {
  return (
    <Link href={href} class={['button', buttonClass(kind, size)].filter(Boolean).join(' ')}>
      {children}
    </Link>
  );
}

/**
 * A card: a titled section (its heading names the region) with an optional action at the header's
 * right. `flush` drops the padding, for a Table that the card then frames; `focusable` lets a
 * script move focus to the heading (when the control that had it goes away).
 */
export function Card({ id, title, level = 2, description, action, flush, focusable, children }: { id: string; title?: string; level?: 2 | 3; description?: ComponentChildren; action?: ComponentChildren; flush?: boolean; focusable?: boolean; children?: ComponentChildren }) {
  const H = level === 2 ? 'h2' : 'h3';
  return (
    <section class={flush ? 'card flush' : 'card'} aria-labelledby={title ? `${id}-title` : undefined} id={id}>
      {title && (
        <div class="card-header">
          <div>
            <H id={`${id}-title`} tabIndex={focusable ? -1 : undefined}>
              {title}
            </H>
            {description && <p>{description}</p>}
          </div>
          {action}
        </div>
      )}
      {children}
    </section>
  );
}

/** The page's header: its title (the heading that takes focus), a line of subtitle and badges, and the one primary action on the right. */
export function PageHeader({ title, meta, action }: { title: string; meta?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div class="page-header-text">
        <PageTitle>{title}</PageTitle>
        {meta && <div class="page-header-meta">{meta}</div>}
      </div>
      {action && <div class="page-header-action">{action}</div>}
    </div>
  );
}

/** The tone a state is shown in: done well, needs attention, gone wrong, informative, or nothing to say. */
export type Tone = 'success' | 'warning' | 'critical' | 'info' | 'neutral';

const TONES: Record<string, Tone> = {
  IN_PROGRESS: 'success', APPROVED: 'success', PAID: 'success', ISSUED: 'success', ACCEPTED: 'success', FULFILLED: 'success', SUCCEEDED: 'success', SAFE: 'success', ACTIVE: 'success',
  DRAFT: 'warning', PENDING: 'warning', AWAITING_APPROVAL: 'warning', UPCOMING: 'warning', QUEUED: 'warning', REVIEW: 'warning', MEDIUM: 'warning',
  DENIED: 'critical', FAILED: 'critical', REVERSED: 'critical', REVOKED: 'critical', DELETED: 'critical', BLOCKED: 'critical', FRAUD: 'critical', HIGH: 'critical',
  COMPLETE: 'neutral', EXPIRED: 'neutral',
};

/** The tone of a state name shared by the REST resources (IN_PROGRESS, PENDING, FAILED …); neutral when unknown. */
export function toneOf(state: string): Tone {
  return TONES[state.toUpperCase()] ?? 'neutral';
}

/** A state as a small pill in its tone (`tone` or the state's own, see toneOf). */
export function StatusBadge({ state, tone, children }: { state?: string; tone?: Tone; children: ComponentChildren }) {
  return <span class={`badge tone-${tone ?? toneOf(state ?? '')}`}>{children}</span>;
}

/** An empty list's message: a small drawing, what is missing, one line on why it matters, and the next action. */
export function EmptyState({ title, text, level = 2, action }: { title: string; text: string; level?: 1 | 2 | 3; action?: ComponentChildren }) {
  const H = level === 3 ? 'h3' : 'h2';
  return (
    <div class="empty-state">
      <svg viewBox="0 0 48 48" fill="none" aria-hidden="true" focusable="false">
        <rect x="6" y="10" width="36" height="28" rx="6" stroke="currentColor" stroke-width="2.5" opacity="0.35" />
        <path d="M6 20h36" stroke="currentColor" stroke-width="2.5" opacity="0.35" />
        <circle cx="24" cy="29" r="5" stroke="currentColor" stroke-width="2.5" />
        <path d="M24 26.5v5M21.5 29h5" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" />
      </svg>
      {level === 1 ? <PageTitle>{title}</PageTitle> : <H>{title}</H>}
      <p>{text}</p>
      {action && <div class="buttons">{action}</div>}
    </div>
  );
}

/** One headline number: its label, the value, and an optional change or help line (tone up/down when it is a change). */
export function Kpi({ label, value, delta, trend, help }: { label: string; value: ComponentChildren; delta?: string; trend?: 'up' | 'down'; help?: string }) {
  return (
    <li class="kpi">
      <p class="kpi-label">{label}</p>
      <p class="kpi-value">{value}</p>
      {delta && <p class={`kpi-delta ${trend ?? ''}`.trim()}>{delta}</p>}
      {help && <p class="kpi-delta">{help}</p>}
    </li>
  );
}

/** A row of KPI cards (a list, so a screen reader hears how many). */
export function Kpis({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <ul class="kpis" aria-label={label}>
      {children}
    </ul>
  );
}

/** One choice of a FilterBar's status filter: the state's value ('' = all), its words and, when known, how many are in it. */
export interface FilterOption {
  value: string;
  label: string;
  count?: number;
}

/**
 * A table's filters: the status as a segmented control of links (so the filtered list has an
 * address, with a count per state when given) and, with `search`, a search field that submits.
 */
export function FilterBar({ label, options, value, href, search }: { label: string; options: FilterOption[]; value: string; href: (value: string) => string; search?: { id: string; label: string; value: string; onSearch: (q: string) => void } }) {
  const [q, setQ] = useState(search?.value ?? '');
  return (
    <div class="filter-bar">
      <nav aria-label={label} class="segmented-nav">
        <ul class="segmented">
          {options.map((o) => (
            <li key={o.value}>
              <Link href={href(o.value)} aria-current={o.value === value ? 'page' : undefined}>
                {o.label}
                {o.count !== undefined && <span class="seg-count">{num(o.count)}</span>}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {search && (
        <form
          role="search"
          class="search"
          onSubmit={(e) => {
            e.preventDefault();
            search.onSearch(q.trim());
          }}
        >
          <label for={search.id} class="visually-hidden">
            {search.label}
          </label>
          <input id={search.id} type="search" value={q} placeholder={search.label} onInput={(e) => setQ(e.currentTarget.value)} />
          <Button kind="secondary" type="submit">
            {t('filter.search')}
          </Button>
        </form>
      )}
    </div>
  );
}

/**
 * A table in its card: a caption with how many rows are shown, rows that stack into labelled
 * blocks below 640 px (`stack`: give each cell a data-label), a scrolling frame a keyboard can
 * scroll, and, while rows are selected, the bulk-action bar with `bulk`'s buttons.
 */
export function Table({ caption, count, stack = true, selected = 0, bulk, children }: { caption: string; count?: number; stack?: boolean; selected?: number; bulk?: ComponentChildren; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table class={stack ? 'stack' : undefined}>
        <caption>
          {caption}
          {count !== undefined && <span class="count"> {t('table.shown', { count })}</span>}
        </caption>
        {children}
      </table>
      {selected > 0 && (
        <div class="bulk-bar" role="region" aria-label={t('table.selected', { count: selected })}>
          <span>{t('table.selected', { count: selected })}</span>
          {bulk}
        </div>
      )}
    </div>
  );
}
