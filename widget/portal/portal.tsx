// The full-page participant portal of the hosted pages: the window's own panels (registry.tsx), state
// and sign-in, laid out for a page instead of a dialog. A visitor sees the sign-up form (landing page)
// or the email sign-in (portal page); a participant sees every panel the window would show, as tabs.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { t } from '../i18n/index.ts';
import { PANELS } from '../window/panels/registry.tsx';
import { me, programType, state } from '../window/state.ts';
import { shutdown } from '../window/actions.ts';
import { Ready, Root, copy, dtext, uid } from '../window/ui.tsx';

/** Which page the portal is on: the landing page opens on sign-up, the portal page on sign-in. */
export type Mode = 'landing' | 'portal';

/** The portal page's address for this program (the landing page links to it once someone is signed in). */
const portalHref = (programId: string) => `/p/${encodeURIComponent(programId)}/portal`;

type LoginModule = typeof import('../window/panels/login.tsx');

/** The portal's layout rules, added to the window's stylesheet in the same shadow root. */
export const PORTAL_CSS = `.pt{font-size:16px;padding:20px;border-radius:var(--r);background:var(--b)}
.sh .pt{box-shadow:0 4px 24px rgba(0,0,0,.12)}
.pt h2{font-size:20px}
.pt [role=tab]{padding:10px 14px;min-height:44px}
.pt .who{display:flex;flex-wrap:wrap;gap:8px;align-items:center;justify-content:space-between;margin-bottom:8px}
.pt a:not(.btn){color:var(--p)}
@media (min-width:900px){.pt{padding:32px}}`;

/** The sign-in form, fetched as the window's own login chunk. */
function SignIn({ back }: { back: () => void }) {
  const [m, setM] = useState<LoginModule | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    import('../window/panels/login.tsx').then(
      (mod) => setM(() => mod),
      () => setFailed(true),
    );
  }, []);
  if (failed) return <p role="alert">{t('state.error')}</p>;
  return m ? <m.Login back={back} /> : <p role="status">{t('state.loading')}</p>;
}

/** The signed-in participant's panels as tabs (arrow keys, Home and End move between them), as in the window. */
function Tabs({ mode, programId }: { mode: Mode; programId: string }) {
  const [tab, setTab] = useState<string | null>(null);
  const [ids] = useState(() => ({ panel: uid('pp') }));
  const s = state.value;
  const p = me();
  if (s.status !== 'ready' || !p) return null;
  const panels = PANELS.filter((x) => x.shown());
  const active = panels.find((x) => x.id === tab) ?? panels[0];
  const onKey = (e: KeyboardEvent) => {
    const i = panels.findIndex((x) => x === active);
    const k = e.key;
    const next = k === 'ArrowRight' || k === 'ArrowDown' ? i + 1 : k === 'ArrowLeft' || k === 'ArrowUp' ? i - 1 : k === 'Home' ? 0 : k === 'End' ? panels.length - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const to = panels[(next + panels.length) % panels.length]!;
    setTab(to.id);
    const root = (e.currentTarget as HTMLElement).getRootNode() as ShadowRoot;
    requestAnimationFrame(() => (root.getElementById(`${ids.panel}-${to.id}`) as HTMLElement | null)?.focus());
  };
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email;
  const design = s.win.design;
  const C = active?.C as ComponentType<{ inWindow?: boolean }> | undefined;
  return (
    <>
      <div class="who">
        <p class="m">{t('portal.signedInAs', { name })}</p>
        {design?.participantSettings?.isLogoutShown !== false && (
          <button type="button" class="s" onClick={() => void shutdown()}>
            {copy(design?.participantSettings?.logoutText, 'settings.logout')}
          </button>
        )}
      </div>
      {dtext(design?.header?.postText) && <p class="m">{dtext(design?.header?.postText)}</p>}
      {mode === 'landing' && (
        <p class="m">
          {t('portal.portalHint')} <a href={portalHref(programId)}>{t('portal.openPortal')}</a>
        </p>
      )}
      {panels.length > 1 && (
        <div role="tablist" aria-label={t(programType() === 'AFFILIATE' ? 'window.titleAffiliate' : 'window.title')} onKeyDown={onKey}>
          {panels.map((x) => (
            <button
              type="button"
              role="tab"
              key={x.id}
              id={`${ids.panel}-${x.id}`}
              aria-selected={x === active}
              aria-controls={ids.panel}
              tabIndex={x === active ? 0 : -1}
              onClick={() => setTab(x.id)}
            >
              {x.title()}
            </button>
          ))}
        </div>
      )}
      {active && C && (
        <div id={ids.panel} role={panels.length > 1 ? 'tabpanel' : undefined} aria-labelledby={panels.length > 1 ? `${ids.panel}-${active.id}` : undefined}>
          <C inWindow />
        </div>
      )}
    </>
  );
}

/** The portal: sign-up or sign-in for a visitor, the participant's panels once signed in. */
export function Portal({ mode, programId }: { mode: Mode; programId: string }) {
  const [view, setView] = useState<'signin' | 'signup'>(mode === 'portal' ? 'signin' : 'signup');
  const Form = PANELS[0]!.C as ComponentType<{ inWindow?: boolean }>;
  return (
    <Root>
      <div class="pt">
        <Ready>
          {me() ? (
            <Tabs mode={mode} programId={programId} />
          ) : view === 'signin' ? (
            <SignIn back={() => setView('signup')} />
          ) : (
            <Form inWindow />
          )}
        </Ready>
      </div>
    </Root>
  );
}
