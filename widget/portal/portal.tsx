// The full-page participant portal of the hosted pages: the window's own panels (registry.tsx), state
// and sign-in, laid out for a page instead of a dialog. A visitor sees the sign-up form (landing page)
// or the email sign-in (portal page); a participant sees their home at the top and every other
// section the window would show below it: a side list on wide screens, the window's one-row tabs on
// narrow ones (issue #32).
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { t } from '../i18n/index.ts';
import { PANELS } from '../window/panels/registry.tsx';
import { me, programType, state } from '../window/state.ts';
import { shutdown } from '../window/actions.ts';
import { Ready, Root, copy } from '../window/ui.tsx';
import { Sections } from '../window/sections.tsx';

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
.pt .side{margin-top:24px}
@media (min-width:900px){.pt{padding:32px}
.pt [data-grsf-home]{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:8px 32px;align-items:start}.pt [data-grsf-home] .of{grid-column:1/-1}.pt .hs{margin-top:40px}
.side{display:grid;grid-template-columns:minmax(180px,220px) minmax(0,1fr);gap:32px;align-items:start}
.side [role=tablist]{flex-direction:column;overflow:visible;border:0;border-right:1px solid #e5e7eb;margin:0}
.side [role=tab]{white-space:normal;text-align:left;border-bottom:0;border-right:3px solid transparent;margin-right:-1px}
.side [role=tablist] [aria-selected=true]{border-color:var(--p)}}`;

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

/** The signed-in participant's page: who is signed in, their home, and the other sections. */
function Member({ mode, programId }: { mode: Mode; programId: string }) {
  const s = state.value;
  const p = me();
  if (s.status !== 'ready' || !p) return null;
  const panels = PANELS.filter((x) => x.shown());
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ') || p.email;
  const design = s.win.design;
  const Home = panels[0]!.C as ComponentType<{ inWindow?: boolean }>;
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
      {mode === 'landing' && (
        <p class="m">
          {t('portal.portalHint')} <a href={portalHref(programId)}>{t('portal.openPortal')}</a>
        </p>
      )}
      <Home inWindow />
      <Sections panels={panels.slice(1)} label={t(programType() === 'AFFILIATE' ? 'window.titleAffiliate' : 'window.title')} side />
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
            <Member mode={mode} programId={programId} />
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
