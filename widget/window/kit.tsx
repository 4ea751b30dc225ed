// What only the lazy panels use (issue #24 moved it out of ui.tsx, which ships with the window's
// first load): the loading/error/empty wrapper, statistic tiles, money and dates.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { locale, t } from '../i18n/index.ts';
import { ApiError } from './api.ts';
import { loads } from './state.ts';
import { Note, errorText, money } from './ui.tsx';

/**
 * The lazy panels' own rules (issue #32 moved them out of ui.tsx's stylesheet, which ships with the
 * window's first load): list rows, sub-headings, tables and "new" markers. Every `Async` draws them
 * (a shadow root's stylesheet applies to all of it), and a panel with rows outside one draws `KitCss`.
 */
export const KIT_CSS = `h3{font-size:14px;margin:8px 0 4px}li{padding:6px 0;border-bottom:1px solid #e5e7eb;display:flex;gap:8px;justify-content:space-between;flex-wrap:wrap}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:4px;border-bottom:1px solid #e5e7eb}
.new{background:var(--p);color:var(--bt);border-radius:9px;padding:0 6px;font-size:12px}p.new{width:fit-content}`;

/** The lazy panels' rules as a style element. */
export const KitCss = () => <style>{KIT_CSS}</style>;

/** Minor units as a localized amount (the home shows money too, so it lives with the first load). */
export { money };

type Load<T> = { s: 'loading' } | { s: 'ready'; d: T } | { s: 'error'; e: unknown };

/** Loads data for a panel and shows loading, error (404 = unavailable), empty or the content; loads again after every `refresh` (the old content stays until then). */
export function Async<T>(props: Parameters<typeof Shown<T>>[0]) {
  return (
    <>
      <KitCss />
      <Shown {...props} />
    </>
  );
}

function Shown<T>(props: { load: () => Promise<T>; empty?: (d: T) => boolean; emptyText?: string; children: (d: T, reload: () => void) => ComponentChildren }) {
  const [v, set] = useState<Load<T>>({ s: 'loading' });
  const [n, bump] = useState(0);
  const k = loads.value;
  useEffect(() => {
    let live = true;
    props.load().then(
      (d) => live && set({ s: 'ready', d }),
      (e) => live && set({ s: 'error', e }),
    );
    return () => void (live = false);
  }, [n, k]);
  if (v.s === 'loading') return <Note text={t('state.loading')} />;
  if (v.s === 'error')
    return (
      <div role="alert">
        <p>{errorText(v.e)}</p>
        {!(v.e instanceof ApiError && v.e.status === 404) && (
          <button type="button" class="s" onClick={() => bump(n + 1)}>
            {t('state.retry')}
          </button>
        )}
      </div>
    );
  if (props.empty?.(v.d)) return <p class="m">{props.emptyText}</p>;
  return <>{props.children(v.d, () => bump(n + 1))}</>;
}

/** Statistic tiles: label (already resolved: design text or catalogue) and value. */
export function Tiles({ items }: { items: Array<[string, string | number]> }) {
  return (
    <div class="g">
      {items.map(([label, v]) => (
        <div class="tile" key={label}>
          <b>{v}</b>
          <span class="m">{label}</span>
        </div>
      ))}
    </div>
  );
}

/** Epoch ms as a short date in the window's language. */
export const day = (ms: number) => new Date(ms).toLocaleDateString(locale());
