// The attribution script's page stage: `chunks/launcher-<hash>.js`, an ES module with no imports and
// no framework that the first stage (start.ts) loads on every page. It builds the runtime (the
// per-program store, this browser's instance id: widget/runtime.ts), loads the capture stage when the
// URL may carry attribution or a visit is still queued, and decides what the program's design asks of
// this page: it reads the design from the window payload once per CACHE_MS (kept in the store, so most
// page views make no request), loads the corner launcher's drawing (launcher-ui.ts, design.widget,
// rest-v2 §2.18) only where the launcher shows, boots the window for a signed-in participant, a
// sign-in link's way back or a referred visitor whose welcome the design turns on, and loads form
// capture (form.ts) only for FORM_DETECTION programs
// and the referrer's code into Stripe elements (stripe.ts) only while a referral is pending. Nothing here may throw into the host page.
import type { PendingAttribution, QueuedCall, StoredReceipts, WidgetRuntime } from '../runtime.ts';
import { INSTANCE_ID, LAUNCHER_KEYS, MAY_CARRY_ATTRIBUTION, PARTICIPANT_TOKEN, PENDING, RECEIPTS, VISITS, notSending } from './common.ts';
import type { FormFields } from './form.ts';
import type { LauncherWords } from '../../shared/i18n/launcher.ts';
import { openStore } from './store.ts';

/** design.widget as the launcher reads it (every field optional: a stored design may predate one). */
export interface LauncherDesign {
  isShownToNewVisitors?: boolean;
  isShownToParticipants?: boolean;
  appearance?: 'BUTTON' | 'CARD';
  isArtShown?: boolean;
  artImageUrl?: string | null;
  newVisitorText?: string;
  participantText?: string;
  buttonText?: string;
  newVisitorDescription?: string;
  participantDescription?: string;
  icon?: 'CUSTOM' | 'NONE' | 'DEFAULT';
  iconImageUrl?: string | null;
  placement?: string;
  offsetSide?: number;
  offsetEdge?: number;
  reveal?: 'IMMEDIATE' | 'DELAY' | 'SCROLL';
  returnAfterDays?: number;
  isHiddenOnMobile?: boolean;
  pageRules?: { mode?: 'ALL' | 'ONLY' | 'EXCEPT'; patterns?: string[] };
}

/** What the launcher keeps in the store: the design's pieces it needs and when they were read. */
export interface LauncherConfig {
  at: number;
  w?: LauncherDesign;
  /** design.theme (colours of `theme.widget`, the font). */
  th?: { widget?: { color?: string; backgroundColor?: string; borderRadius?: string }; primaryColor?: string; buttonTextColor?: string; fontFamily?: string };
  /** True when the design turns a referred-friend welcome on (offer popup, banner, heading or tab title). */
  r?: boolean;
  /** The window payload's formCapture (installation FORM_DETECTION): the form chunk is loaded and watches sign-up forms. */
  f?: FormFields | null;
  /** The window payload's stripeClientReferenceId (installation.stripe): the Stripe chunk tags Payment Links, Buy Buttons and Pricing Tables. */
  s?: 'FILL' | 'OVERWRITE' | null;
  /** The window payload's launcherTexts: the launcher's own words for a reader of a language other than English (issue #27). */
  l?: LauncherWords;
}

/** How long a read design is used before the launcher reads it again (an owner's change shows within this). */
const CACHE_MS = 600_000;

type Growsurf = Record<string, (...a: unknown[]) => Promise<unknown>>;

/**
 * Whether the launcher may show now: the audience and a dismissal within `returnAfterDays` (0: never
 * again). The page rules are the drawing's to check (launcher-ui.ts), so pages of programs without a
 * launcher do not carry them.
 */
export function launcherShown(w: LauncherDesign | undefined, o: { signedIn: boolean; hiddenAt?: number; now: number }): boolean {
  return !!w && !!(o.signedIn ? w.isShownToParticipants : w.isShownToNewVisitors) && !(o.hiddenAt && (!w.returnAfterDays || o.now - o.hiddenAt < w.returnAfterDays * 864e5));
}

/**
 * The design's pieces, read from the window payload through a session of this instance (shared with
 * the window through the store). A signed-in participant's token goes along, so the server picks
 * their own language for the design's default texts and the launcher's words, as for the window.
 */
async function readConfig(rt: WidgetRuntime, token?: string): Promise<LauncherConfig> {
  const now = Date.now();
  let s = await rt.store.get<{ token: string; expiresAt: number }>('sessionToken');
  if (!s || s.expiresAt - 60_000 < now) {
    const h: Record<string, string> = { 'X-Program-Id': rt.programId, 'Content-Type': 'application/json' };
    if (rt.publicKey) h['X-Public-Key'] = rt.publicKey;
    const res = await fetch(rt.apiBase + '/sessions', { method: 'POST', headers: h, body: JSON.stringify({ instanceId: rt.instanceId }) });
    const b = await res.json();
    if (!res.ok) throw 0;
    await rt.store.set('sessionToken', (s = { token: b.sessionToken, expiresAt: b.expiresAt }));
  }
  const res = await fetch(rt.apiBase + '/window', { headers: token ? { 'X-Session-Token': s.token, Authorization: 'Bearer ' + token } : { 'X-Session-Token': s.token } });
  if (!res.ok) throw 0;
  const body = await res.json();
  const d = body.design ?? {};
  const x = d.referredExperience ?? {};
  const c: LauncherConfig = { at: now, w: d.widget, th: d.theme, r: !!(x.isOfferPopupEnabled || x.isBannerEnabled || x.isHeadingEnabled || x.pageTitleReplacement), f: body.formCapture, s: body.stripeClientReferenceId, l: body.launcherTexts };
  await rt.store.set(LAUNCHER_KEYS.config, c);
  return c;
}

/** What the first stage hands the page stage. */
export interface PageSettings {
  programId: string;
  /** The script's own origin (its widget files are under /widget/). */
  origin: string;
  /** The tag's data-api (the participant API's origin), if any. */
  api?: string;
  publicKey?: string;
  /** The stub's queued calls (the window drains them). */
  queue: QueuedCall[];
  /** Imports one of the widget's ES modules by absolute URL (tests pass their own). */
  load: (url: string) => Promise<any>;
  /** The first stage's one-time window loader (it settles or rejects the queued calls). */
  boot: () => Promise<void>;
}

/** What the page stage gives back: the window's import with this page's runtime, and when capture and the first send are done. */
export interface PageStage {
  window(): Promise<void>;
  done: Promise<void>;
}

const noop = () => {};

/** Builds this page's runtime, then captures and launches; never throws or rejects into the page. */
export function page(o: PageSettings): PageStage {
  const d = document;
  const store = openStore(o.programId + '/');
  // Settles once this page's attribution is stored (or there is none): the window, which may load
  // in parallel, reads the pending referral only after that.
  let noted!: () => void;
  const stored = new Promise<void>((r) => (noted = r));
  const ready = (async (): Promise<WidgetRuntime> => {
    let instanceId = await store.get<string>(INSTANCE_ID);
    // A blob URL ends in a random (version 4) UUID: fewer bytes than a generator, and unlike
    // crypto.randomUUID it exists on http pages too.
    if (!instanceId) await store.set(INSTANCE_ID, (instanceId = URL.createObjectURL(new Blob()).slice(-36).toLowerCase()));
    return {
      programId: o.programId,
      apiBase: new URL(o.api || o.origin).origin + '/mobile/v2',
      assetBase: o.origin + '/widget/',
      publicKey: o.publicKey,
      instanceId,
      queue: o.queue,
      store,
      pendingAttribution: () => stored.then(() => store.get<PendingAttribution>(PENDING)),
      receipts: async () => (await store.get<StoredReceipts>(RECEIPTS)) || {},
      clearPendingAttribution: async () => void (await Promise.all([PENDING, VISITS, RECEIPTS].map(store.del))),
      emit: (name, detail) => d.dispatchEvent(new CustomEvent(name, { bubbles: true, detail })),
    };
  })();
  return {
    window: () => ready.then(async (rt) => (await o.load(rt.assetBase + 'window.js')).boot(rt)),
    done: ready
      .then(async (rt) => {
        void launch(rt, o.boot, o.load);
        if (MAY_CARRY_ATTRIBUTION.test(location.href) || (await store.get<unknown[]>(VISITS))?.length)
          await (await o.load(rt.assetBase + (import.meta.env.DEV ? 'attribution/capture.ts' : __REFLOOP_CAPTURE__))).capture(rt, location.href, d.referrer, noted);
        else if (import.meta.env.DEV) notSending('no attribution in the URL and nothing queued');
      })
      .catch(import.meta.env.DEV ? (e) => notSending(`${e}`) : noop)
      .finally(noted),
  };
}

/**
 * What the design asks of this page: the launcher where it shows, the window for a signed-in
 * participant, a sign-in link's way back or a referred visitor whose welcome is on and not yet had,
 * and form capture under FORM_DETECTION. `boot` is the first stage's one-time window loader;
 * `window.growsurf` is the stub, then the real methods. Never rejects.
 */
async function launch(rt: WidgetRuntime, boot: () => Promise<void>, load: (url: string) => Promise<any>): Promise<void> {
  try {
    const g = (window as unknown as { growsurf: Growsurf }).growsurf;
    const st = rt.store;
    const token = await st.get<string>(PARTICIPANT_TOKEN);
    const signedIn = !!token;
    // A signed-in participant's badge and data, and a sign-in link's way back (grsfLogin): only the window can redeem it.
    if (signedIn || /grsfLogin=/.test(location.search)) void boot();
    let c = await st.get<LauncherConfig>(LAUNCHER_KEYS.config);
    if (!c || c.at + CACHE_MS < Date.now() || c.at > Date.now()) c = await readConfig(rt, token);
    const ui = c;
    // Form capture only for programs that detect sign-up forms (form.ts); other programs' pages never fetch it.
    if (c.f) load(rt.assetBase + (import.meta.env.DEV ? 'attribution/form.ts' : __REFLOOP_FORM__)).then((m) => m.watch(rt, ui.f), noop);
    // The referrer's code into Stripe's client reference id (stripe.ts): only for a pending referral of a
    // program that asks for it; the chunk waits for Stripe elements (its 570 B are cheaper than the
    // page stage's bytes a MutationObserver here would cost every page).
    const code = (c.r || c.s) && (await rt.pendingAttribution())?.referralCode;
    if (code && c.s) load(rt.assetBase + (import.meta.env.DEV ? 'attribution/stripe.ts' : __REFLOOP_STRIPE__)).then((m) => m.watch(code, ui.s), noop);
    if (code && c.r && !signedIn && !(await st.get(LAUNCHER_KEYS.welcomed))) boot().then(() => g.welcome!()).catch(noop);
    if (launcherShown(c.w, { signedIn, hiddenAt: await st.get<number>(LAUNCHER_KEYS.hiddenAt), now: Date.now() }))
      (await load(rt.assetBase + (import.meta.env.DEV ? 'attribution/launcher-ui.ts' : __REFLOOP_LAUNCHER_UI__))).draw(rt, ui, signedIn);
  } catch {
    // The API, the store or a chunk failed: no launcher on this page, and the host page carries on.
  }
}
