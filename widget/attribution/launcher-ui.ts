// The corner launcher's drawing (design.widget, rest-v2 §2.18): `chunks/launcher-ui-<hash>.js`, an
// ES module with no imports and no framework, loaded by the page stage (launcher.ts) only when the
// design shows the launcher on this page, so pages of programs without one never fetch it. It draws
// a floating button in its own shadow root that opens the window, with its own words in the
// reader's language: the payload's `launcherTexts` for a reader of another language, the English
// ones this chunk carries otherwise (issue #27). Nothing here may throw into the host page.
import type { WidgetRuntime } from '../runtime.ts';
import { enLauncher } from '../../shared/i18n/en-launcher.ts';
import { LAUNCHER_KEYS } from './common.ts';
import type { LauncherConfig, LauncherDesign } from './launcher.ts';

type Growsurf = Record<string, (...a: unknown[]) => Promise<unknown>>;

const MARK = 'M4 11h16v9H4zM3 7h18v4H3zM12 7v13M12 7c-2-4-6-4-6-1s4 1 6 1c2 0 6 2 6-1s-4-3-6 1';

const CSS = `:host{all:initial}
.l{position:fixed;z-index:2147483646;display:flex;flex-direction:column;align-items:flex-end;gap:6px;max-width:calc(100vw - 16px);font:14px/1.4 var(--f,system-ui,sans-serif);animation:i .2s}
.c{background:var(--lb);color:var(--lc);border-radius:var(--lr);padding:12px;max-width:280px;box-shadow:0 4px 16px rgba(0,0,0,.25)}
.c p{margin:4px 0}.c img{max-width:100%;display:block}
button{font:inherit;font-weight:600;cursor:pointer;border:0;background:var(--lb);color:var(--lc);border-radius:var(--lr);min-height:44px;min-width:44px;padding:0 16px;display:inline-flex;align-items:center;gap:8px;box-shadow:0 4px 16px rgba(0,0,0,.25)}
.c button{box-shadow:none;border:1px solid var(--lc)}
.x{order:-1;min-height:24px;min-width:24px;padding:0;font-size:16px;line-height:1;box-shadow:none}
button:focus-visible{outline:3px solid var(--lc);outline-offset:-6px;box-shadow:0 0 0 3px var(--lb)}
svg,.o img{width:20px;height:20px;flex:none}
@media (max-width:480px){.l{--s:8px}.t{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}.o{padding:0;width:48px}.c{display:none}}
@media (prefers-reduced-motion:reduce){.l{animation:none}}
@keyframes i{from{opacity:0;transform:translateY(8px)}}`;

/** Whether `design.widget.pageRules` lets the launcher show on `href` (`*` is a wildcard; the query and hash are ignored). */
export function pageAllowed(rules: LauncherDesign['pageRules'], href: string): boolean {
  const mode = rules?.mode ?? 'ALL';
  if (mode === 'ALL') return true;
  const u = new URL(href);
  const hit = (rules?.patterns ?? []).some((p) => {
    const rx = new RegExp('^' + p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$', 'i');
    return rx.test(u.origin + u.pathname) || rx.test(u.pathname) || rx.test(u.host + u.pathname);
  });
  return mode === 'ONLY' ? hit : !hit;
}

/** Draws the launcher `c.w` describes where its page rules allow (the page stage checked the audience and a dismissal). */
export function draw(rt: WidgetRuntime, c: LauncherConfig, signedIn: boolean): void {
  const g = (window as unknown as { growsurf: Growsurf }).growsurf;
  const st = rt.store;
  const w = c.w;
  if (!pageAllowed(w?.pageRules, location.href)) return;
  const d = document;
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string) => {
    const e = d.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  };
  const host = el('div');
  host.setAttribute('data-grsf-launcher', '');
  const root = host.attachShadow({ mode: 'open' });
  const style = el('style', '', CSS);
  const box = el('div', 'l');
  const th = c.th ?? {};
  const set = (k: string, v?: string) => v && box.style.setProperty(k, v);
  set('--lb', th.widget?.backgroundColor ?? th.primaryColor ?? '#4f46e5');
  set('--lc', th.widget?.color ?? th.buttonTextColor ?? '#fff');
  set('--lr', th.widget?.borderRadius ?? '24px');
  if (th.fontFamily && th.fontFamily !== 'INHERIT') set('--f', th.fontFamily === 'SERIF' ? 'Georgia,serif' : th.fontFamily === 'MONOSPACE' ? 'ui-monospace,monospace' : '');
  // A corner (or an edge's centre) with the design's offsets, never closer than 8 px to the edge
  // and at most 16 px from it on narrow screens, where the label folds into the icon.
  const p = (w!.placement ?? 'BOTTOM_RIGHT').split('_');
  const off = (n: number | undefined) => `max(8px,min(${n ?? 24}px,var(--s,400px)))`;
  box.style.setProperty(p[0] === 'TOP' ? 'top' : 'bottom', off(w!.offsetEdge));
  if (p[1] === 'CENTER') box.style.cssText += ';left:50%;transform:translateX(-50%);align-items:center';
  else box.style.setProperty(p[1] === 'LEFT' ? 'left' : 'right', off(w!.offsetSide));
  if (p[1] === 'LEFT') box.style.alignItems = 'flex-start';
  const words = c.l ?? enLauncher;
  // The launcher's words and the design's texts are in the reader's language, which need not be the page's.
  box.lang = c.l?.lang || 'en';
  const txt = (v: string | undefined, k: keyof typeof enLauncher) => v?.trim() || words[k];
  const label = signedIn ? txt(w!.participantText, 'participant') : txt(w!.newVisitorText, 'visitor');
  const open = el('button', 'o');
  open.type = 'button';
  if (w!.icon === 'CUSTOM' && w!.iconImageUrl) {
    const img = el('img');
    img.src = w!.iconImageUrl;
    img.alt = '';
    open.append(img);
  } else if (w!.icon !== 'NONE') open.innerHTML = `<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" aria-hidden="true"><path d="${MARK}"/></svg>`;
  open.append(el('span', 't', label), el('slot'));
  open.onclick = () => void g.open!().catch(() => {});
  const hide = el('button', 'x', '×');
  hide.type = 'button';
  hide.setAttribute('aria-label', `${words.hide}: ${label}`);
  hide.onclick = () => {
    host.remove();
    void st.set(LAUNCHER_KEYS.hiddenAt, Date.now());
  };
  if (w!.appearance === 'CARD') {
    const card = el('div', 'c');
    if (w!.isArtShown && w!.artImageUrl) {
      const art = el('img');
      art.src = w!.artImageUrl;
      art.alt = '';
      card.append(art);
    }
    const desc = signedIn ? w!.participantDescription : w!.newVisitorDescription;
    const go = el('button', '', txt(w!.buttonText, 'button'));
    go.type = 'button';
    go.onclick = open.onclick;
    card.append(el('p', '', label), ...(desc?.trim() ? [el('p', '', desc)] : []), go);
    box.append(card);
  }
  // Open first in the tab order; Hide after it, drawn above it (order:-1).
  box.append(open, hide);
  // The media query hides it on phones when the design says so: a resize shows it again.
  if (w!.isHiddenOnMobile) style.textContent += '@media (max-width:767px){.l{display:none}}';
  root.append(style, box);
  const show = () => d.body.append(host);
  if (w!.reveal === 'SCROLL') {
    const on = () => scrollY > 100 && (removeEventListener('scroll', on), show());
    addEventListener('scroll', on, { passive: true });
  } else show();
  // The window paints the unread count into the host (a light-DOM badge shown through the slot).
  if (signedIn) g.initUnreadNotificationsBadge!('[data-grsf-launcher]').catch(() => {});
}
