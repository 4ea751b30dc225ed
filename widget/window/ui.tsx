// Small shared primitives: shadow-root mounting with the themed stylesheet, sections,
// the loading/error/empty wrapper and money/date formatting. Everything renders data as text.
import { render, type ComponentChildren, type VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { locale, t, type MessageKey } from '../i18n/index.ts';
import { ApiError } from './api.ts';
import type { CampaignDesign } from '../../shared/schemas/program-config-design.ts';
import type { DeepPartial } from '../../shared/schemas/program-config.ts';
import { designText } from '../../shared/merge-tags.ts';
import { loads, referrer, state } from './state.ts';

/** Theme keys the design's `theme` section and `open({theme})` may set. */
export type Theme = Partial<Record<'primaryColor' | 'textColor' | 'mutedTextColor' | 'backgroundColor' | 'buttonTextColor' | 'borderRadius' | 'fontFamily', string>> & {
  isShadowEnabled?: boolean;
};
/** The page's `open({theme})` overrides, applied over the design's theme. */
export const themeOverride = signal<Theme>({});

const FONTS: Record<string, string> = { SYSTEM: 'system-ui,sans-serif', SERIF: 'Georgia,serif', MONOSPACE: 'ui-monospace,monospace', INHERIT: 'inherit' };
const VARS: Array<[keyof Theme, string]> = [
  ['primaryColor', '--p'],
  ['textColor', '--t'],
  ['mutedTextColor', '--m'],
  ['backgroundColor', '--b'],
  ['buttonTextColor', '--bt'],
  ['borderRadius', '--r'],
];

// The tab strip is one row at any width (issue #32, which undid #19's wrapping: five tabs on two
// rows read as clutter): where it does not fit it scrolls sideways, a thin scrollbar showing there
// is more. The dialog is as tall as its content, but a tab panel is at least 240 px, so a lazy panel's
// arrival after its loading note does not make the dialog jump (issue #24; registry.tsx `lazy`).
const CSS = `:host{all:initial;display:block}
.r{--p:#4f46e5;--t:#111827;--m:#6b7280;--b:#fff;--bt:#fff;--r:8px;color:var(--t);background:var(--b);font:14px/1.5 var(--f,system-ui,sans-serif)}
.r,.r *{box-sizing:border-box}
h2{font-size:16px;margin:0 0 8px}
p{margin:4px 0}.m{color:var(--m)}
button,.btn{font:inherit;cursor:pointer;border:1px solid var(--p);background:var(--p);color:var(--bt);border-radius:var(--r);padding:8px 12px;min-height:36px;text-decoration:none;display:inline-block}
button.s{background:transparent;color:var(--p)}
button:disabled{opacity:.5;cursor:default}
:focus-visible{outline:2px solid var(--p);outline-offset:2px}
label{display:block;margin:6px 0}
input,textarea,select{display:block;width:100%;font:inherit;color:inherit;background:var(--b);border:1px solid var(--m);border-radius:var(--r);padding:8px;margin-top:2px}
ul{list-style:none;margin:0;padding:0}
.row{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin:8px 0}
.g{display:grid;grid-template-columns:repeat(auto-fit,minmax(120px,1fr));gap:8px}
.tile{border:1px solid #e5e7eb;border-radius:var(--r);padding:8px}.tile b{display:block;font-size:20px}
.ban{background:var(--p);color:var(--bt);padding:8px;border-radius:var(--r);margin-bottom:8px}
.ov{position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:2147483647;animation:fi .15s}
.dlg{background:var(--b);width:min(100vw,540px);max-height:100vh;overflow:auto;padding:16px 20px;border-radius:var(--r);position:relative}
.sh .dlg{box-shadow:0 10px 40px rgba(0,0,0,.3)}
.hd{display:flex;justify-content:space-between;align-items:center;gap:8px}
[role=tablist]{display:flex;gap:2px;margin:8px 0 12px;border-bottom:1px solid #e5e7eb;overflow-x:auto;scrollbar-width:thin}
[role=tab]{flex:none;white-space:nowrap;max-width:16em;overflow:hidden;text-overflow:ellipsis;background:transparent;color:var(--t);border:0;border-bottom:2px solid transparent;border-radius:0;padding:8px 10px}
[role=tab][aria-selected=true]{border-color:var(--p);color:var(--p);font-weight:600}
[role=tabpanel]{min-height:240px}
.nav{margin-top:12px;border-top:1px solid #e5e7eb}.nav li{border-bottom:1px solid #e5e7eb}
.nav button{display:flex;justify-content:space-between;width:100%;text-align:left;border:0;border-radius:0;padding:10px 4px}.nav button:after{content:'›'/''}
@keyframes fi{from{opacity:0}}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important}}`;

/** Applies the design theme plus overrides as custom properties (setProperty: no CSS can be injected). */
export function applyTheme(el: HTMLElement): void {
  const s = state.value;
  const theme: Theme = { ...(s.status === 'ready' ? (s.win.design?.theme as Theme | undefined) : undefined), ...themeOverride.value };
  for (const [k, v] of VARS) if (typeof theme[k] === 'string') el.style.setProperty(v, theme[k] as string);
  if (theme.fontFamily) el.style.setProperty('--f', FONTS[theme.fontFamily] ?? 'inherit');
  el.classList.toggle('sh', theme.isShadowEnabled !== false);
}

/** Renders `vnode` into `host`'s own open shadow root with the widget stylesheet. */
export function mount(host: Element, vnode: VNode | null): ShadowRoot {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  if (!root.querySelector('style')) {
    const style = document.createElement('style');
    style.textContent = CSS;
    root.append(style);
  }
  render(vnode, root);
  return root;
}

/** The themed root every element and the window render inside. */
export function Root({ children }: { children: ComponentChildren }) {
  return (
    <div
      class="r"
      // The reader's language, not always the page's (the window, which renders it, re-renders on a language change).
      lang={locale()}
      ref={(el) => {
        if (el) applyTheme(el);
      }}
    >
      {children}
    </div>
  );
}

/** Shows the shared state's loading and error states, and `children` once it is ready. */
export function Ready({ children }: { children: ComponentChildren }) {
  const s = state.value;
  if (s.status === 'loading') return <Note text={t('state.loading')} />;
  if (s.status === 'error') return <p role="alert">{errorText(s.error)}</p>;
  return <>{children}</>;
}

let ids = 0;
/** A unique id for aria wiring inside one shadow root. */
export const uid = (p: string) => `grsf-${p}-${++ids}`;

/** A titled section: the heading labels it. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const [id] = useState(() => uid('s'));
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A polite live region for results and errors of an action. */
export function Note({ text }: { text: string }) {
  return (
    <p role="status" aria-live="polite">
      {text}
    </p>
  );
}

/** The text shown for a failed call: the server's message, or a generic one. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError && e.status === 404) return t('state.unavailable');
  return e instanceof ApiError && e.status < 500 && e.message ? e.message : t('state.error');
}

/** The program's design document from the window payload (empty before it has loaded). */
export function design(): DeepPartial<CampaignDesign> {
  const s = state.value;
  return (s.status === 'ready' && s.win.design) || {};
}

type Vars = Record<string, string | number | null | undefined>;

/**
 * Merge-tag values the window knows (the server's email tags where they apply): the signed-in
 * participant, the program and the link. `{{referrerName}}` is the pending referrer's name by the
 * design's format once the welcome chunk asked for it (validateReferrer with `name`), else the
 * design's `referrerNameFallback` ("A friend").
 */
function tagValues(): Vars {
  const s = state.value;
  if (s.status !== 'ready') return {};
  const p = s.win.participant;
  const friend = s.win.design?.referredExperience?.referrerNameFallback?.trim() || t('referrer.fallback');
  return {
    firstName: p?.firstName,
    lastName: p?.lastName,
    email: p?.email,
    referralCount: p?.referralCount,
    shareUrl: shareLink(),
    companyName: s.campaign.companyName || s.campaign.name,
    campaignName: s.campaign.name,
    referrerName: referrer.value.name || friend,
    referrerFirstName: referrer.value.first || friend,
  };
}

/** A design text as plain text with its merge tags filled, by the emails' rules (shared/merge-tags.ts). */
export const plain = designText;

/** A design text as plain text with its merge tags filled; '' when the design has none. */
export function dtext(value: unknown, vars?: Record<string, string | number>): string {
  return typeof value === 'string' ? plain(value, { ...tagValues(), ...vars }) : '';
}

/** A design text when the program set a non-empty one, else the catalogue's message. */
export function copy(value: unknown, key: MessageKey, vars?: Record<string, string | number>): string {
  return dtext(value, vars) || t(key, vars);
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

/** The referral link (mobile rule 12): participant.shareUrl, then share.preferredUrl, then share.fallbackUrl. */
export function shareLink(): string {
  const s = state.value;
  if (s.status !== 'ready') return '';
  return s.win.participant?.shareUrl || s.win.share.preferredUrl || s.win.share.fallbackUrl;
}

