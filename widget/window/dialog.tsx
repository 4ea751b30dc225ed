// The participant window: a modal dialog in its own shadow root, with a focus trap, Escape to
// close, focus returned to the opener, and the home with the other sections as tabs or a list per
// design.window.navigationMode (sections.tsx).
import { render } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { t } from '../i18n/index.ts';
import { PANELS } from './panels/registry.tsx';
import { ctx, mayTakeFocus, programType, refresh, safely, state, subscribe } from './state.ts';
import { effect } from '@preact/signals';
import { hooks, init, shutdown } from './actions.ts';
import { Ready, Root, copy, dtext, mount, themeOverride, uid, type Theme } from './ui.tsx';
import { Sections } from './sections.tsx';

const FOCUSABLE = 'a[href],button:not([disabled]),input:not([disabled]),select,textarea,[tabindex]:not([tabindex="-1"])';

let host: HTMLElement | null = null;
let opener: HTMLElement | null = null;

/** The element focused in the page, looking through open shadow roots. */
function focused(): HTMLElement | null {
  let el = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el as HTMLElement | null;
}

/** Callbacks of `open` (issue #7), called besides the DOM events while this window is open. */
export interface Callbacks {
  onOpen?(): void;
  onClose?(): void;
  onParticipantCreated?(d: { participant: unknown; participantToken: string }): void;
  onShare?(type: string): void;
  onInvite?(d: unknown): void;
  onError?(error: unknown): void;
}
/** Options of `open`: the theme over the design's, who to show, and callbacks. */
export interface OpenOptions {
  theme?: Theme;
  identity?: { email: string; hash: string } | { participantToken: string };
  callbacks?: Callbacks;
}

let cb: Callbacks = {};
let offs: Array<() => void> = [];

/** Opens the window (again); returns a controller with `close()`. */
export function openWindow(opts: OpenOptions = {}): { close: () => void } {
  themeOverride.value = opts.theme ?? {};
  if (!host) {
    opener = focused();
    host = document.createElement('div');
    host.setAttribute('data-grsf-window', '');
    document.body.append(host);
    cb = opts.callbacks ?? {};
    hooks.created = cb.onParticipantCreated;
    offs = [
      subscribe('share', (d) => cb.onShare?.((d as { type: string }).type)),
      subscribe('invite', (d) => cb.onInvite?.(d)),
      effect(() => {
        const s = state.value;
        if (s.status === 'error') safely(() => cb.onError?.(s.error));
      }),
    ];
    ctx.rt.emit('grsfOpen');
    safely(() => cb.onOpen?.());
  }
  const id = opts.identity;
  if (id) {
    const signIn = 'participantToken' in id ? ctx.api.setToken(id.participantToken).then(refresh) : init(id);
    signIn.catch((e) => safely(() => cb.onError?.(e)));
  }
  mount(host, <Window />);
  return { close: closeWindow };
}

/** Closes the window and gives focus back to whatever opened it. */
export function closeWindow(): void {
  if (!host) return;
  render(null, host.shadowRoot!);
  host.remove();
  host = null;
  opener?.focus?.();
  opener = null;
  for (const off of offs) off();
  hooks.created = undefined;
  ctx.rt.emit('grsfClose');
  safely(() => cb.onClose?.());
}

function Window() {
  const dlg = useRef<HTMLDivElement>(null);
  const title = useRef(uid('t')).current;
  const s = state.value;
  const list = s.status === 'ready' && s.win.design?.window?.navigationMode === 'LIST';
  // As soon as the dialog is drawn, not a frame later (useEffect): a late first focus took it back from
  // a section the reader had already chosen (LIST navigation's Back button).
  useLayoutEffect(() => {
    if (mayTakeFocus()) dlg.current?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
  }, []);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      closeWindow();
    } else if (e.key === 'Tab' && dlg.current) {
      const all = [...dlg.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
      const active = (dlg.current.getRootNode() as ShadowRoot).activeElement;
      const first = all[0];
      const last = all[all.length - 1];
      if (e.shiftKey && (active === first || !dlg.current.contains(active))) {
        e.preventDefault();
        last?.focus();
      } else if (!e.shiftKey && (active === last || !dlg.current.contains(active))) {
        e.preventDefault();
        first?.focus();
      }
    }
  };
  const panels = s.status === 'ready' ? PANELS.filter((p) => p.shown()) : [];
  // A visitor's header sits above the sign-up form; a participant's is the offer their home opens with.
  const header = s.status === 'ready' && !s.win.participant ? dtext(s.win.design?.header?.preText) : '';
  return (
    <Root>
      <div class="ov" onClick={(e) => e.target === e.currentTarget && closeWindow()}>
        <div class="dlg" role="dialog" aria-modal="true" aria-labelledby={title} ref={dlg} onKeyDown={onKey}>
          <div class="hd">
            <h2 id={title}>{t(programType() === 'AFFILIATE' ? 'window.titleAffiliate' : 'window.title')}</h2>
            <button type="button" class="s" aria-label={t('window.close')} onClick={closeWindow}>
              ×
            </button>
          </div>
          {header && <p class="m">{header}</p>}
          <Ready>{null}</Ready>
          <Sections key={list ? 'l' : 't'} panels={panels} label={t('window.nav')} list={list} />
          {/* The language setting, when i18n/load.tsx is loaded (a program with more than English, issue #27). */}
          {ctx.L && <ctx.L />}
          {s.status === 'ready' && s.win.participant && s.win.design?.participantSettings?.isLogoutShown !== false && (
            <p>
              <button type="button" class="s" onClick={() => void shutdown()}>
                {copy(s.win.design?.participantSettings?.logoutText, 'settings.logout')}
              </button>
            </p>
          )}
        </div>
      </div>
    </Root>
  );
}
