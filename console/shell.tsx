// The console's frame (issue #32): a side navigation grouped by job, as owners know from Shopify's
// admin and Stripe's dashboard. At its top the brand and the program switcher (the team's programs,
// the current one with its own logo or colour); for a program its pages in groups (Program,
// Participants, Rewards and fraud, Affiliates, Integrations, Settings); then the team's pages and
// the account. Below 800 px it is a drawer behind a "Menu" button. The status line and the page
// sit beside it.
import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, session, type SessionInfo } from './api.ts';
import { here, Link } from './router.tsx';
import { notice, pageChanged } from './ui.tsx';
import { programType } from './program-type.ts';
import { loadPrograms, programs, programsAsked } from './programs.ts';
import { t, type MessageKey } from './i18n/index.ts';

/** What the switcher shows of a program's own brand (its design document): the logo and the main colour. */
interface Brand {
  logoUrl: string | null;
  color: string | null;
}

const brands = signal<Record<string, Brand>>({});

const brandAsked = new Set<string>();
function brandOf(id: string): Brand | undefined {
  if (!brandAsked.has(id)) {
    brandAsked.add(id);
    api<{ landingPages?: { company?: { logoUrl?: string | null } }; theme?: { primaryColor?: string | null } }>('GET', `/campaign/${encodeURIComponent(id)}/design`).then(
      (d) => (brands.value = { ...brands.value, [id]: { logoUrl: d.landingPages?.company?.logoUrl ?? null, color: d.theme?.primaryColor ?? null } }),
      () => undefined,
    );
  }
  return brands.value[id];
}

/** White or near-black, whichever reads better on `hex` (the initial on a program's colour). */
function inkOn(hex: string): string {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!m) return '#ffffff';
  const n = parseInt(m[1]!, 16);
  const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const l = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return (1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#1c1f24');
}

/** A program's mark: its logo, else its initial on its main colour (decorative: the name is beside it). */
function ProgramMark({ id, name, small }: { id: string; name: string; small?: boolean }) {
  const brand = brandOf(id);
  const cls = small ? 'program-mark small' : 'program-mark';
  if (brand?.logoUrl)
    return (
      <span class={cls} aria-hidden="true">
        <img src={brand.logoUrl} alt="" />
      </span>
    );
  const color = brand?.color && /^#[0-9a-f]{6}$/i.test(brand.color) ? brand.color : null;
  return (
    <span class={cls} aria-hidden="true" style={color ? { background: color, color: inkOn(color) } : undefined}>
      {name.trim().charAt(0).toUpperCase() || '·'}
    </span>
  );
}

function Chevron() {
  return (
    <svg class="chevron" viewBox="0 0 16 16" fill="none" aria-hidden="true" focusable="false">
      <path d="M5 6.5 8 3.5l3 3M5 9.5l3 3 3-3" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}

function ProgramSwitcher({ programId, page }: { programId: string | undefined; page: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const list = programs.value;
  const current = programId ? list?.find((p) => p.id === programId) : undefined;
  if (programId && list && !current) loadPrograms(`missing:${programId}`);
  useEffect(() => setOpen(false), [page]);
  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    }
  };
  return (
    <div class="switcher" ref={box} onKeyDown={onKeyDown}>
      <button type="button" class="switcher-button" ref={button} aria-expanded={open} aria-controls="program-menu" onClick={() => setOpen(!open)}>
        {current ? <ProgramMark id={current.id} name={current.name} /> : <span class="program-mark" aria-hidden="true">·</span>}
        <span class="switcher-text">
          <span class="switcher-label">{t('frame.program')}</span>
          <span class="switcher-name">{current?.name ?? t('frame.chooseProgram')}</span>
        </span>
        <Chevron />
      </button>
      <div class="switcher-menu" id="program-menu" hidden={!open}>
        <ul aria-label={t('frame.programs')}>
          {/* Drawn only while open: each mark reads its program's design, so a closed menu asks for none but the current one. */}
          {open &&
            (list ?? []).map((p) => (
            <li key={p.id}>
              <Link href={`/console/programs/${encodeURIComponent(p.id)}`} aria-current={p.id === programId ? 'page' : undefined}>
                <ProgramMark id={p.id} name={p.name} small />
                <span>{p.name}</span>
              </Link>
            </li>
            ))}
          <li class="sep">
            <Link href="/console">{t('frame.allPrograms')}</Link>
          </li>
          <li>
            <Link href="/console/setup">{t('frame.newProgram')}</Link>
          </li>
          <li>
            <Link href="/console/move-in">{t('frame.moveIn')}</Link>
          </li>
        </ul>
      </div>
    </div>
  );
}

type Item = [href: string, label: MessageKey, match?: (path: string) => 'page' | 'true' | undefined];

function Group({ id, title, items }: { id: string; title: MessageKey; items: Array<Item | false> }) {
  const path = here.value.split('?')[0]!;
  return (
    <div class="nav-group">
      <h2 class="nav-heading" id={`nav-${id}`}>
        {t(title)}
      </h2>
      <ul class="nav-list" aria-labelledby={`nav-${id}`}>
        {items.map(
          (item) =>
            item && (
              <li key={item[0]}>
                <Link href={item[0]} aria-current={item[2] ? item[2](path) : path === item[0] ? 'page' : undefined}>
                  {t(item[1])}
                </Link>
              </li>
            ),
        )}
      </ul>
    </div>
  );
}

/** `page` on `href` itself (or any of `also`), `true` (a page inside it) on its descendants. */
const within =
  (href: string, ...also: string[]) =>
  (path: string) =>
    path === href || also.includes(path) ? 'page' : path.startsWith(`${href}/`) ? 'true' : undefined;

function ProgramGroups({ programId }: { programId: string }) {
  const base = `/console/programs/${encodeURIComponent(programId)}`;
  const type = programType(programId);
  const aff = `${base}/affiliates`;
  return (
    <>
      <Group id="program" title="frame.group.program" items={[[base, 'frame.home'], [`${base}/analytics`, 'program.analytics']]} />
      <Group id="participants" title="frame.group.participants" items={[[`${base}/participants`, 'program.participants', within(`${base}/participants`)], [`${base}/data`, 'program.data'], [`${base}/data/move-in`, 'program.moveIn']]} />
      <Group id="rewards" title="frame.group.rewards" items={[type === 'REFERRAL' && [`${base}/rewards`, 'frame.rewardsQueue'], [`${base}/fraud`, 'program.fraud']]} />
      {type === 'AFFILIATE' && (
        <Group
          id="affiliates"
          title="frame.group.affiliates"
          items={[
            [`${aff}/applications`, 'aff.applications', (p) => (p === aff || p === `${aff}/applications` ? 'page' : p.startsWith(`${aff}/applications/`) ? 'true' : undefined)],
            [`${aff}/invites`, 'aff.invites'],
            [`${aff}/commissions`, 'aff.commissions'],
            [`${aff}/payouts`, 'aff.payouts'],
          ]}
        />
      )}
      <Group id="integrations" title="frame.group.integrations" items={[[`${base}/integrations/stripe`, 'program.integrations', within(`${base}/integrations/stripe`, `${base}/integrations`)], [`${base}/integrations/paddle`, 'program.integrations.paddle'], [`${base}/webhooks`, 'program.webhooks']]} />
      <Group
        id="settings"
        title="frame.group.settings"
        items={[
          [`${base}/settings/options`, 'settings.options', within(`${base}/settings/options`, `${base}/settings`)],
          [`${base}/settings/design`, 'settings.design'],
          [`${base}/settings/emails`, 'settings.emails'],
          [`${base}/settings/rewards`, 'settings.rewards'],
          [`${base}/settings/installation`, 'settings.installation'],
        ]}
      />
    </>
  );
}

function MenuIcon() {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" fill="none" aria-hidden="true" focusable="false">
      <path d="M2.5 4h11M2.5 8h11M2.5 12h11" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
    </svg>
  );
}

const NARROW = '(max-width: 799.98px)';
let visits = 0;

/** The frame around every signed-in page. */
export function Shell({ children }: { children: ComponentChildren }) {
  const s = session.value as SessionInfo;
  const programId = /^\/console\/programs\/([^/?]+)/.exec(here.value)?.[1];
  const id = programId && decodeURIComponent(programId);
  const page = here.value.split('?')[0]!;
  const first = useRef(true);
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    loadPrograms(page.replace(/\/$/, '') === '/console' ? `home:${++visits}` : programs.value ? programsAsked() : 'start');
    if (first.current) first.current = false;
    else pageChanged();
    setOpen(false);
  }, [page]);
  useEffect(() => {
    if (!open) return;
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      menuButton.current?.focus();
    };
    const wide = matchMedia(NARROW);
    const onWide = () => !wide.matches && setOpen(false);
    document.addEventListener('keydown', onKey);
    wide.addEventListener('change', onWide);
    return () => {
      document.removeEventListener('keydown', onKey);
      wide.removeEventListener('change', onWide);
    };
  }, [open]);
  const close = () => {
    setOpen(false);
    menuButton.current?.focus();
  };
  const current = id ? programs.value?.find((p) => p.id === id) : undefined;
  return (
    <>
      <a class="skip" href="#main">
        {t('app.skip')}
      </a>
      <div class="frame">
        <header class="topbar">
          <button type="button" class="secondary small" ref={menuButton} aria-expanded={open} aria-controls="side-nav" onClick={() => setOpen(!open)}>
            <MenuIcon />
            {t('frame.menu')}
          </button>
          <Link href="/console" class="brand">
            <span class="brand-mark" aria-hidden="true">
              r
            </span>
            {t('frame.brand')}
          </Link>
          {current && <span class="topbar-program">{current.name}</span>}
        </header>
        <div class={open ? 'scrim open' : 'scrim'} onClick={close} />
        <aside id="side-nav" class={open ? 'side open' : 'side'} aria-label={t('frame.side')}>
          <div class="side-head">
            <Link href="/console" class="brand">
              <span class="brand-mark" aria-hidden="true">
                r
              </span>
              {t('frame.brand')}
            </Link>
            <button type="button" class="side-close plain small" ref={closeButton} onClick={close}>
              {t('frame.closeMenu')}
            </button>
          </div>
          <ProgramSwitcher programId={id} page={page} />
          <nav aria-label={t('app.nav')}>
            {id && <ProgramGroups programId={id} />}
            <Group
              id="team"
              title="frame.group.team"
              items={[['/console', 'nav.programs'], ['/console/team', 'nav.team'], ['/console/security', 'nav.security'], s.mailOutbox && s.team!.canInvite && ['/console/outbox', 'nav.outbox'], s.scopes.includes('team:read') && ['/console/audit', 'nav.audit']]}
            />
          </nav>
          <div class="account-block" aria-label={t('frame.account')} role="group">
            <span class="avatar" aria-hidden="true">
              {s.email.charAt(0)}
            </span>
            <p class="account-who">
              <strong>{t('app.signedInAs', { email: s.email })}</strong>
              <span>{t('app.team', { name: s.team!.name })}</span>
            </p>
            <div class="account-actions">
              {s.teams.length > 1 && (
                <a class="button plain small" href="/signin/team">
                  {t('app.switchTeam')}
                </a>
              )}
              <form method="post" action="/signout">
                <input type="hidden" name="csrf" value={s.csrf} />
                <button type="submit" class="secondary small">
                  {t('app.signOut')}
                </button>
              </form>
            </div>
          </div>
        </aside>
        <div class="page-col" inert={open}>
          <p role="status" class="notice" aria-live="polite">
            {notice.value}
          </p>
          <main id="main">{children}</main>
        </div>
      </div>
    </>
  );
}
