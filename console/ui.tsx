// The console's shared pieces: the page heading that takes focus, loading/error states around a
// request, the polite notice line, form fields and the error summary of a refused request.
import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren, JSX } from 'preact';
import { ApiError } from './api.ts';
import { t, type MessageKey } from './i18n/index.ts';

/** The one polite status line (what an action did), read by screen readers. */
export const notice = signal('');
let announcedAt = 0;

/** Called when the page changes: a notice survives only the navigation its own action made (within a second), then clears. */
export function pageChanged(): void {
  if (Date.now() - announcedAt > 1000) notice.value = '';
}

/** Shows `text` in the status line. */
export function announce(text: string): void {
  notice.value = '';
  announcedAt = Date.now();
  queueMicrotask(() => (notice.value = text));
}

/** The page's `<h1>`: sets the document title and takes focus when the page opens. */
export function PageTitle({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · ${t('app.name')}`;
    ref.current?.focus({ preventScroll: true });
  }, [children]);
  return (
    <h1 id="page-title" tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** Why a request failed, in words. */
export function problem(e: unknown): string {
  return e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e);
}

/**
 * Runs `load` (again when `depKey` changes, or on "Try again" and `reload`) and shows loading, the
 * error object's message, or `children` with the data. A reload keeps the old data on screen.
 */
export function Async<T>({ load, depKey, children }: { load: () => Promise<T>; depKey: string; children: (data: T, reload: () => void) => ComponentChildren }) {
  const [run, setRun] = useState(0);
  const [state, setState] = useState<{ key: string; data?: T; error?: unknown }>({ key: depKey });
  useEffect(() => {
    let live = true;
    setState((p) => (p.key === depKey ? { key: depKey, data: p.data } : { key: depKey }));
    load().then(
      (data) => live && setState({ key: depKey, data }),
      (error) => live && setState({ key: depKey, error }),
    );
    return () => {
      live = false;
    };
  }, [depKey, run]);
  const reload = () => setRun((n) => n + 1);
  if (state.error !== undefined)
    return (
      <div role="alert" class="error">
        <p>{t('state.error', { message: problem(state.error) })}</p>
        <button type="button" onClick={reload}>
          {t('state.retry')}
        </button>
      </div>
    );
  if (state.data === undefined || state.key !== depKey) return <p aria-live="polite">{t('state.loading')}</p>;
  return <>{children(state.data, reload)}</>;
}

/** The summary of a refused request: its message and each field's problem. */
export function ErrorSummary({ error }: { error: unknown }) {
  if (!error) return null;
  const fields = error instanceof ApiError ? error.errors : [];
  return (
    <div role="alert" class="error">
      <p>{problem(error)}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.field}>
              <strong>{f.field}</strong>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A labelled form control with an optional hint. */
export function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: JSX.Element }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children}
    </div>
  );
}

/** A translated badge for a program status or type. */
export function Badge({ k }: { k: MessageKey }) {
  return <span class={`badge ${k.replace('.', '-').toLowerCase()}`}>{t(k)}</span>;
}
