// The console's frame: skip link, header (who and which team, sign out), the console's navigation,
// the program's navigation on program pages, the status line and the page itself.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { session, type SessionInfo } from './api.ts';
import { here, Link } from './router.tsx';
import { notice, pageChanged } from './ui.tsx';
import { programType } from './program-type.ts';
import { t } from './i18n/index.ts';

function ProgramNav({ programId }: { programId: string }) {
  const base = `/console/programs/${encodeURIComponent(programId)}`;
  return (
    <nav aria-label={t('app.programNav')} class="subnav">
      <ul>
        <li>
          <Link href={base}>{t('program.overview')}</Link>
        </li>
        <li>
          <Link href={`${base}/participants`}>{t('program.participants')}</Link>
        </li>
        {programType(programId) === 'AFFILIATE' && (
          <li>
            <Link href={`${base}/affiliates`} aria-current={here.value.split('?')[0] === `${base}/affiliates` ? 'page' : here.value.startsWith(`${base}/affiliates/`) ? 'true' : undefined}>
              {t('program.affiliates')}
            </Link>
          </li>
        )}
        <li>
          <Link href={`${base}/analytics`}>{t('program.analytics')}</Link>
        </li>
        <li>
          <Link href={`${base}/webhooks`}>{t('program.webhooks')}</Link>
        </li>
        <li>
          <Link href={`${base}/integrations/stripe`}>{t('program.integrations')}</Link>
        </li>
        <li>
          <Link href={`${base}/integrations/paddle`}>{t('program.integrations.paddle')}</Link>
        </li>
        {programType(programId) === 'REFERRAL' && (
          <li>
            <Link href={`${base}/rewards`}>{t('program.rewardsQueue')}</Link>
          </li>
        )}
        <li>
          <Link href={`${base}/fraud`}>{t('program.fraud')}</Link>
        </li>
        <li>
          <Link href={`${base}/settings/options`} aria-current={here.value.startsWith(`${base}/settings`) ? 'page' : undefined}>
            {t('program.settings')}
          </Link>
        </li>
        <li>
          <Link href={`${base}/data`}>{t('program.data')}</Link>
        </li>
      </ul>
    </nav>
  );
}

/** The frame around every signed-in page. */
export function Shell({ children }: { children: ComponentChildren }) {
  const s = session.value as SessionInfo;
  const programId = /^\/console\/programs\/([^/?]+)/.exec(here.value)?.[1];
  const page = here.value.split('?')[0];
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else pageChanged();
  }, [page]);
  return (
    <>
      <a class="skip" href="#main">
        {t('app.skip')}
      </a>
      <header class="top">
        <Link href="/console" class="brand">
          {t('app.name')}
        </Link>
        <p class="who">
          <span>{t('app.signedInAs', { email: s.email })}</span> · <span>{t('app.team', { name: s.team!.name })}</span>
        </p>
        <div class="account">
          {s.teams.length > 1 && <a href="/signin/team">{t('app.switchTeam')}</a>}
          <form method="post" action="/signout">
            <input type="hidden" name="csrf" value={s.csrf} />
            <button type="submit">{t('app.signOut')}</button>
          </form>
        </div>
      </header>
      <nav aria-label={t('app.nav')} class="mainnav">
        <ul>
          <li>
            <Link href="/console">{t('nav.programs')}</Link>
          </li>
          <li>
            <Link href="/console/team">{t('nav.team')}</Link>
          </li>
          {s.mailOutbox && s.team!.canInvite && (
            <li>
              <Link href="/console/outbox">{t('nav.outbox')}</Link>
            </li>
          )}
        </ul>
      </nav>
      {programId && <ProgramNav programId={decodeURIComponent(programId)} />}
      <p role="status" class="notice" aria-live="polite">
        {notice.value}
      </p>
      <main id="main">{children}</main>
    </>
  );
}
