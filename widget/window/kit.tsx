// What only the lazy panels use (issue #24 moved it out of ui.tsx, which ships with the window's
// first load): the loading/error/empty wrapper, statistic tiles, money and dates.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { locale, t } from '../i18n/index.ts';
import { ApiError } from './api.ts';
import { loads } from './state.ts';
import { Note, errorText } from './ui.tsx';

type Load<T> = { s: 'loading' } | { s: 'ready'; d: T } | { s: 'error'; e: unknown };

/** Loads data for a panel and shows loading, error (404 = unavailable), empty or the content; loads again after every `refresh` (the old content stays until then). */
export function Async<T>(props: { load: () => Promise<T>; empty?: (d: T) => boolean; emptyText?: string; children: (d: T, reload: () => void) => ComponentChildren }) {
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

/** Minor units as a localized amount. */
export function money(minor: number | null | undefined, currency = 'USD'): string {
  if (minor == null) return '—';
  try {
    const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    return new Intl.NumberFormat(locale(), { style: 'currency', currency }).format(minor / 10 ** digits);
  } catch {
    return `${minor} ${currency}`;
  }
}

/** Epoch ms as a short date in the window's language. */
export const day = (ms: number) => new Date(ms).toLocaleDateString(locale());
