// Every panel once: its id (the `data-grsf-block-<id>` element name), title, when the window shows
// it, and its component. Rarely used panels are separate chunks loaded with import().
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { t } from '../../i18n/index.ts';
import { me, programType, state } from '../state.ts';
import { Note, Section, copy, design } from '../ui.tsx';
/** Identity from an element's `data-grsf-email` / `-first-name` / `-last-name` (prefills the form). */
export interface Identity {
  email?: string;
  firstName?: string;
  lastName?: string;
}

type Props = { identity?: Identity; inWindow?: boolean };

/**
 * A component fetched as its own chunk the first time it is shown (or earlier, by `preload`).
 * Meanwhile a polite status says it is loading; in the window the tab panel keeps a minimum height,
 * so the dialog does not jump when the panel arrives.
 */
export function lazy(load: () => Promise<{ default: ComponentType<Props> }>): ComponentType<Props> & { preload(): Promise<unknown> } {
  let C: ComponentType<Props> | undefined;
  const preload = () => load().then((m) => (C = m.default));
  function Lazy(props: Props) {
    const [, set] = useState(0);
    const [failed, setFailed] = useState(false);
    // Drawn without the chunk: the effect runs a frame later, by which time an earlier preload may have
    // set C without anyone re-rendering, so it asks again whenever this render lacked it.
    const drawn = C;
    useEffect(() => {
      if (!drawn)
        preload().then(
          () => set(1),
          () => setFailed(true),
        );
    }, []);
    if (failed) return <Note text={t('state.error')} />;
    return C ? <C {...props} /> : <Note text={t('state.loading')} />;
  }
  return Object.assign(Lazy, { preload });
}

// The first panel is the sign-up form for a visitor and the share panel for a participant: two
// chunks, so nobody downloads both before the window can draw (issue #24).
const Signup = lazy(() => import('./signup.tsx').then((m) => ({ default: m.Signup })));
const Share = lazy(() => import('./share.tsx').then((m) => ({ default: m.Share })));
// The participant's home in the window (issue #32): the share panel's chunk, so one request paints
// it; its figures come in their own chunk (figures.tsx), which preloadFirstPanel requests beside it.
const Home = lazy(() => import('./share.tsx').then((m) => ({ default: m.Home })));

/**
 * Starts fetching the first panel's chunk (boot calls it before the window payload is asked for, so
 * both travel together): the share panel when a participant is (about to be) signed in, with the
 * icon sprite and the home's figures beside it (their own chunks, which the first paint does not
 * wait for: share.tsx), else the sign-up form. A wrong guess costs the other chunk later, never a wrong panel.
 */
export const preloadFirstPanel = (participant: boolean) => {
  if (participant) {
    import('../icons.ts').catch(() => undefined);
    import('./figures.tsx').catch(() => undefined);
  }
  (participant ? Share : Signup).preload().catch(() => undefined);
};

// Secondary panels are one chunk, fetched when the first of them is shown.
const lists = () => import('./lists.tsx');
const Invite = lazy(() => lists().then((m) => ({ default: m.Invite })));
const Leaderboard = lazy(() => lists().then((m) => ({ default: m.Leaderboard })));
const Rewards = lazy(() => lists().then((m) => ({ default: m.Rewards })));
const ReferralStatus = lazy(() => lists().then((m) => ({ default: m.ReferralStatus })));
const ReferralSummary = lazy(() => lists().then((m) => ({ default: m.ReferralSummary })));

// Affiliate panels are one chunk: referral programs never load it.
const affiliatePanels = () => import('./affiliate.tsx');
const AffiliateSummary = lazy(() => affiliatePanels().then((m) => ({ default: m.AffiliateSummary })));
const Commissions = lazy(() => affiliatePanels().then((m) => ({ default: m.Commissions })));
const Payouts = lazy(() => affiliatePanels().then((m) => ({ default: m.Payouts })));
const PayoutSettings = lazy(() => affiliatePanels().then((m) => ({ default: m.PayoutSettings })));

/**
 * Panels with the participant's own data: a visitor sees a sign-up hint under the panel's title (an
 * embedded element is then still a titled section, so the page needs no heading of its own); a new
 * sign-in reloads them.
 */
function own(C: ComponentType<Props>, title: () => string): ComponentType<Props> {
  return function Own(props: Props) {
    const p = me();
    return p ? (
      <C key={p.id} {...props} />
    ) : (
      <Section title={title()}>
        <p class="m">{t('state.signedOut')}</p>
      </Section>
    );
  };
}

/** One panel. */
export interface Panel {
  id: string;
  /** The tab or list label: the design's title for the section, else the catalogue's. */
  title: () => string;
  /** Whether the window lists it for the current participant, program and design (elements always render). */
  shown: () => boolean;
  C: ComponentType<Props>;
}

const signedIn = () => !!me();
const referral = () => signedIn() && programType() === 'REFERRAL';
const affiliate = () => signedIn() && programType() === 'AFFILIATE';
const win = () => {
  const s = state.value;
  return s.status === 'ready' ? s.win : null;
};

const Application = lazy(() => import('./application.tsx'));

/**
 * The embedded form (web-sdk.md §4): the share panel for participants (in the window and the
 * portal, their home around it); for visitors, the sign-up form, or on an affiliate program the
 * application form (which also covers open enrollment).
 */
function Form(props: Props) {
  return me() ? props.inWindow ? <Home /> : <Share /> : programType() === 'AFFILIATE' ? <Application {...props} /> : <Signup {...props} />;
}

const d = design;
/** A section the design may switch off (`isEnabled: false`); absent means on. */
const on = (section: { isEnabled?: boolean } | undefined) => section?.isEnabled !== false;

/** Every panel, in window order. */
export const PANELS: Panel[] = ([
  // The first is the home: the participant's (issue #32) or the visitor's sign-up.
  { id: 'form', title: () => (me() ? t('window.home') : t(programType() === 'AFFILIATE' ? 'application.title' : 'signup.title')), shown: () => true, C: Form },
  // The design's `stats` panel (refloop's element name: data-grsf-block-progress). Its default title is the
  // referral list's ("Your referrals"): two tabs of one name would be ambiguous, so the catalogue's then.
  { id: 'progress', title: () => (d().stats?.title === d().referralStatus?.title ? t('progress.title') : copy(d().stats?.title, 'progress.title')), shown: referral, C: lazy(() => import('./progress.tsx')), own: 1 },
  { id: 'invite', title: () => copy(d().share?.invite?.title, 'invite.title'), shown: () => signedIn() && on(d().share?.invite), C: Invite, own: 1 },
  { id: 'rewards', title: () => copy(d().rewards?.title, 'rewards.title'), shown: referral, C: Rewards, own: 1 },
  { id: 'referral-status', title: () => copy(d().referralStatus?.title, 'referrals.title'), shown: signedIn, C: ReferralStatus, own: 1 },
  { id: 'referral-summary', title: () => copy(d().referralSummary?.title, 'summary.title'), shown: () => referral() && on(d().referralSummary), C: ReferralSummary, own: 1 },
  { id: 'affiliate-summary', title: () => copy(d().affiliateSummary?.title, 'affiliate.title'), shown: () => affiliate() && on(d().affiliateSummary), C: AffiliateSummary, own: 1 },
  { id: 'commissions', title: () => copy(d().commissions?.title, 'commissions.title'), shown: () => affiliate() && on(d().commissions), C: Commissions, own: 1 },
  { id: 'payouts', title: () => copy(d().payouts?.title, 'payouts.title'), shown: () => affiliate() && on(d().payouts), C: Payouts, own: 1 },
  { id: 'payout-settings', title: () => copy(d().participantSettings?.title, 'payoutSettings.title'), shown: affiliate, C: PayoutSettings, own: 1 },
  { id: 'tax', title: () => copy(d().participantSettings?.taxDetails?.label, 'tax.title'), shown: () => affiliate() && on(d().participantSettings?.taxDetails), C: lazy(() => import('./tax.tsx')), own: 1 },
  { id: 'traffic', title: () => copy(d().trafficInsights?.title, 'traffic.title'), shown: () => signedIn() && !!win()?.traffic, C: lazy(() => import('./traffic.tsx')), own: 1 },
  { id: 'leaderboard', title: () => copy(d().leaderboard?.title, 'leaderboard.title'), shown: () => !!win()?.leaderboard, C: Leaderboard },
  // The Resources destination is the design's to show (`resources.isPublicDisplayed`); its element always renders.
  { id: 'resources', title: () => copy(d().resources?.title, 'resources.title'), shown: () => signedIn() && d().resources?.isPublicDisplayed !== false, C: lazy(() => import('./resources.tsx')), own: 1 },
  // In the window the form panel already is the application form; this is its element.
  { id: 'application', title: () => t('application.title'), shown: () => false, C: Application },
] as Array<Panel & { own?: 1 }>).map((p) => (p.own ? { ...p, C: own(p.C, p.title) } : p));
