// The owner console (issue #23): reads the session, then shows the page of the address bar inside
// the console's frame. Pages load lazily (console/router.tsx); all data comes from the REST
// operations through console/api.ts.
import './styles.css';
import { render, type ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadSession, session, signedOutReason, type SessionInfo } from './api.ts';
import { here, match, type Page } from './router.tsx';
import { Shell } from './shell.tsx';
import { PageTitle, problem } from './ui.tsx';
import { ButtonLink, Card, EmptyState } from './components.tsx';
import { t } from './i18n/index.ts';

function Centered({ title, body, href, action }: { title: string; body: string; href: string; action: string }) {
  return (
    <main id="main" class="centered">
      <p class="brand">
        <span class="brand-mark" aria-hidden="true">
          r
        </span>
        {t('frame.brand')}
      </p>
      <PageTitle>{title}</PageTitle>
      <p>{body}</p>
      <p>
        <a class="button" href={href}>
          {action}
        </a>
      </p>
    </main>
  );
}

function RoutePage() {
  // A team that requires two-factor sign-in shows a member without it the Security page at any address (issue #35).
  const path = (session.value as SessionInfo | null)?.twoFactor?.mustEnrol ? '/console/security' : here.value;
  const route = match(path);
  const [loaded, setLoaded] = useState<{ path: string; page: Page } | { path: string; error: unknown } | null>(null);
  useEffect(() => {
    if (!route) return;
    let live = true;
    route.load().then(
      (m) => live && setLoaded({ path, page: m.default }),
      (error) => live && setLoaded({ path, error }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  if (!route)
    return (
      <Card id="not-found">
        <EmptyState level={1} title={t('app.notFound')} text={t('notFound.text')} action={<ButtonLink href="/console">{t('app.back')}</ButtonLink>} />
      </Card>
    );
  if (!loaded || loaded.path !== path) return <p aria-live="polite">{t('state.loading')}</p>;
  if ('error' in loaded) return <p role="alert">{t('state.error', { message: problem(loaded.error) })}</p>;
  const P = loaded.page;
  return <P params={route.params} />;
}

function App() {
  const s = session.value;
  if (s === null) return <p aria-live="polite">{t('app.loading')}</p>;
  if (s === false) {
    // The Owner changed this member's role (TM8): every session of theirs ended, and the page says why.
    const changed = signedOutReason.value === 'PRIVILEGES_CHANGED';
    return <Centered title={t(changed ? 'signedOut.privilegesTitle' : 'signedOut.title')} body={t(changed ? 'signedOut.privilegesBody' : 'signedOut.body')} href={`/signin?next=${encodeURIComponent(location.pathname + location.search)}`} action={t('signedOut.action')} />;
  }
  if (!s.team) return <Centered title={t('noTeam.title')} body={t('noTeam.body')} href="/signin/team" action={t('noTeam.action')} />;
  return (
    <Shell>
      {!s.team.emailVerified && <p class="warning app-banner">{t('unverified.body', { email: s.email })}</p>}
      {s.keyWaiting && (
        <p class="key-waiting app-banner">
          {t('keyWaiting.body')} <a href="/keys">{t('keyWaiting.link')}</a>
        </p>
      )}
      <RoutePage />
    </Shell>
  );
}

const root = document.getElementById('app')!;
// The server's "Loading the console…" line goes first: Preact renders beside markup it did not make.
const start = (page: ComponentChild) => {
  root.replaceChildren();
  render(page, root);
};
loadSession().then(
  () => start(<App />),
  (e) => start(<p role="alert">{t('state.error', { message: problem(e) })}</p>),
);
