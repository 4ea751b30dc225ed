// The console's shared pieces: the page heading that takes focus, loading/error states around a
// request, the polite notice line, form fields and the error summary of a refused request, one
// request run with its busy flag and refusal, lists read page by page, and a secret shown once.
import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { cloneElement, isValidElement, toChildArray, type ComponentChildren } from 'preact';
import { api, ApiError } from './api.ts';
import { t, type MessageKey } from './i18n/index.ts';
import { fieldMessages } from './field-messages.ts';

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

/** The summary of a refused request: its message and each field's problem (the same as RefusalSummary). */
export function ErrorSummary({ error }: { error: unknown }) {
  return <RefusalSummary error={error} />;
}

/**
 * The summary above a refused form: a refusal with field problems says how many fields need
 * attention (each control shows its own plain message, see field-messages.ts) and moves focus to
 * the first refused control; problems no control on the form shows are listed here, in plain words.
 * A refusal no control shows at all gives our domain's own sentence (the API's message) when it has
 * one, else ("Invalid request body: …", the schema's words) the plain messages under a short lead.
 */
export function RefusalSummary({ error }: { error: unknown }) {
  const ref = useRef<HTMLDivElement>(null);
  const [seen, setSeen] = useState<{ covered: number; unshown: string[] }>({ covered: 0, unshown: [] });
  const all = fieldMessages(error);
  useLayoutEffect(() => {
    const scope = ref.current?.closest('form') ?? ref.current?.parentElement;
    if (!scope || !all.length) return setSeen({ covered: 0, unshown: [] });
    const shown = [...scope.querySelectorAll<HTMLElement>('[data-field]')].map((el) => el.dataset.field!);
    const covers = (f: string) => shown.some((s) => f === s || f.startsWith(`${s}.`) || f.startsWith(`${s}[`));
    setSeen({ covered: new Set(all.filter((m) => covers(m.field)).map((m) => m.field)).size, unshown: [...new Set(all.filter((m) => !covers(m.field)).map((m) => m.message))] });
    scope.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  if (!error) return null;
  const schemaRefusal = error instanceof ApiError && /^Invalid request\b/.test(error.message);
  const lead = seen.covered > 0 ? t('err.summary', { count: seen.covered }) : seen.unshown.length && schemaRefusal ? t('err.notAccepted') : problem(error);
  const list = seen.covered > 0 || schemaRefusal ? seen.unshown : [];
  return (
    <div role="alert" class="error" ref={ref}>
      <p>{lead}</p>
      {list.length > 0 && (
        <ul>
          {list.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * A labelled form control with an optional hint and its own error message below it (a plain
 * sentence): the control (`children`' first element) is described by both and marked invalid while
 * there is an error. Whatever else `children` holds follows the control.
 */
export function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error?: string | null; children: ComponentChildren }) {
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  const wire = (c: ComponentChildren, i: number): ComponentChildren =>
    i === 0 && isValidElement(c) && typeof c.type === 'string' && described
      ? cloneElement(c, { 'aria-describedby': (c.props as { 'aria-describedby'?: string })['aria-describedby'] ?? described, ...(error ? { 'aria-invalid': 'true' } : {}) })
      : c;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {toChildArray(children).map(wire)}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A translated badge for a program status or type. */
export function Badge({ k }: { k: MessageKey }) {
  return <span class={`badge ${k.replace('.', '-').toLowerCase()}`}>{t(k)}</span>;
}

/**
 * One request at a time with a busy flag and the refusal kept for display: `run(fn)` clears the
 * last error, runs `fn` and keeps what it throws; with `ask`, only after the owner confirms it.
 * It resolves true when `fn` ran and succeeded (a form's save), else false.
 */
export function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<void>, ask?: string): Promise<boolean> => {
    if (ask !== undefined && !confirm(ask)) return false;
    setError(null);
    setBusy(true);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, run };
}

/**
 * A list read page by page: `load(cursor, true)` starts it again from that page (an offset or a
 * `nextId`), `load(cursor, false)` adds the next page; a refusal is kept in `error`.
 */
export function usePages<P, C = string | null>(url: (cursor: C) => string) {
  const [pages, setPages] = useState<P[]>([]);
  const [error, setError] = useState<unknown>(null);
  const load = async (cursor: C, fresh: boolean) => {
    setError(null);
    try {
      const page = await api<P>('GET', url(cursor));
      setPages((p) => (fresh ? [page] : [...p, page]));
    } catch (e) {
      setError(e);
    }
  };
  return { pages, setPages, error, setError, load };
}

/** The button under a paged list that reads its next page; nothing when there is none. */
export function MoreButton({ show, label, onClick }: { show: unknown; label: string; onClick: () => void }) {
  if (!show) return null;
  return (
    <button type="button" class="secondary" onClick={onClick}>
      {label}
    </button>
  );
}

/** One button of a table row's actions: `label` names the row it acts on for screen readers; `kind` is its class. */
export interface RowButton {
  text: string;
  label: string;
  onClick: () => void;
  kind?: 'secondary' | 'danger';
  disabled?: boolean;
}

/** A table row's action buttons, side by side; a falsy entry is a button this row does not offer. */
export function RowButtons({ buttons }: { buttons: Array<RowButton | false> }) {
  return (
    <div class="buttons compact">
      {buttons.map(
        (b) =>
          b && (
            <button key={b.text} type="button" class={b.kind} disabled={b.disabled} aria-label={b.label} onClick={b.onClick}>
              {b.text}
            </button>
          ),
      )}
    </div>
  );
}

/**
 * A secret the API shows only this once (an API key, a webhook's signing secret): a warning card
 * that takes focus (the card, or its heading), the secret, Copy (without clipboard access the
 * secret is selected, to copy by hand) and Done.
 */
export function SecretBox(p: { titleId: string; level: 2 | 3; focus: 'card' | 'title'; role?: 'status'; title: string; body: string; secret: string; copyLabel: string; copied: string; doneLabel: string; onDone: () => void }) {
  const card = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const code = useRef<HTMLElement>(null);
  useEffect(() => (p.focus === 'card' ? card : heading).current?.focus(), [p.secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(p.secret);
      announce(p.copied);
    } catch {
      if (code.current) getSelection()?.selectAllChildren(code.current);
    }
  };
  const H = p.level === 2 ? 'h2' : 'h3';
  return (
    <section class="card warning-card" aria-labelledby={p.titleId} role={p.role} tabIndex={p.focus === 'card' ? -1 : undefined} ref={card}>
      <H id={p.titleId} tabIndex={p.focus === 'title' ? -1 : undefined} ref={heading}>
        {p.title}
      </H>
      <p>{p.body}</p>
      <p>
        <code class="secret" ref={code}>
          {p.secret}
        </code>
      </p>
      <div class="buttons">
        <button type="button" onClick={copy}>
          {p.copyLabel}
        </button>
        <button type="button" class="secondary" onClick={p.onDone}>
          {p.doneLabel}
        </button>
      </div>
    </section>
  );
}
