// The referred-friend welcome (design.referredExperience, rest-v2 §2.18; web-sdk.md §10 item 4): the
// offer popup with a sign-up form, the sticky banner, the heading and tab-title motivators. A lazy
// chunk of the window: the attribution script's page stage (widget/attribution/launcher.ts, on every
// page, whether or not the corner launcher is drawn) boots the window and calls `growsurf.welcome()`
// only for a visitor who is not signed in, has a pending referral code, has not had the welcome yet
// (store key `welcomed`) and whose design turns one of the pieces on; `welcome()` checks again
// against the window payload. Each piece sits in its own shadow root or is plain text in the page;
// none blocks the page for longer than the visitor wants.
import '../i18n/en-signup.ts';
import '../i18n/panels.ts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { render } from 'preact';
import { t } from '../i18n/index.ts';
import { ctx, mayTakeFocus, me, referrer, state } from './state.ts';
import { checkReferrer } from './sign-ups.ts';
import { Root, copy, design, dtext, mount, uid } from './ui.tsx';

/** The store key that remembers a dismissed or completed welcome (widget/attribution/launcher.ts reads it too, as LAUNCHER_KEYS.welcomed). */
export const WELCOMED = 'welcomed';

const CSS = `.pov{position:fixed;inset:0;display:flex;align-items:center;padding:8px;z-index:2147483647;pointer-events:none}
.pov.dim{background:rgba(0,0,0,.45);pointer-events:auto}
.pop{pointer-events:auto;position:relative;background:var(--b);color:var(--t);border-radius:var(--r);padding:20px;width:min(100%,400px);max-height:calc(100vh - 16px);overflow:auto;box-shadow:0 10px 40px rgba(0,0,0,.3);animation:fi .2s}
.pop img{max-width:100%;max-height:160px;display:block;margin:0 auto 8px}
.pop .x{position:absolute;top:8px;right:8px;min-height:32px;padding:0 10px}
.bar{display:flex;gap:8px;align-items:center;justify-content:center;padding:8px 12px;background:var(--p);color:var(--bt)}
.bar button{background:transparent;border-color:var(--bt);color:var(--bt)}`;

const PLACE: Record<string, string> = { CENTER: 'center', TOP: 'center;align-items:flex-start', BOTTOM: 'center;align-items:flex-end', BOTTOM_RIGHT: 'flex-end;align-items:flex-end', BOTTOM_LEFT: 'flex-start;align-items:flex-end' };

// Through the page's `growsurf` methods (the real ones by now), exactly as a page calls them:
// `addParticipant` fetches the sign-up form's chunk, which holds the sign-up code (sign-ups.ts).
const g = () => (window as unknown as { growsurf: { open(): unknown; addParticipant(f: { email: string }): Promise<unknown> } }).growsurf;
const openWindow = () => void g().open();

const remember = () => ctx.rt.store.set(WELCOMED, Date.now());

/** The referred friend's reward, as the program describes it (the double-sided reward's friend side). */
function friendReward(): { text: string; image?: string | null } | null {
  const s = state.value;
  if (s.status !== 'ready') return null;
  // A starter reward is a switched-off placeholder: no offer to make with it.
  const on = s.win.rewards.filter((x) => !x.isStarter);
  const r = on.find((x) => x.type === 'DOUBLE_SIDED' && x.referralDescription) ?? on.find((x) => x.referralDescription);
  return r ? { text: r.referralDescription!, image: r.imageUrl } : null;
}

/** Shows what the design's referred experience turns on, once per visitor (until dismissed or signed up). */
export async function welcome(): Promise<void> {
  const s = state.value;
  if (s.status !== 'ready' || !s.referred || me() || (await ctx.rt.store.get(WELCOMED))) return;
  const rx = design().referredExperience ?? {};
  await referrerName();
  const title = dtext(rx.pageTitleReplacement);
  if (title) document.title = title;
  if (rx.isHeadingEnabled) heading(rx);
  if (rx.isBannerEnabled) banner(rx);
  // The popup greets the landing page; on later pages only when the design says so.
  if (rx.isOfferPopupEnabled && (rx.isOfferPopupShownOnAllPages || /[?&](grsf|ref|referredBy)=/.test(location.search)))
    setTimeout(popup, import.meta.env.DEV ? 0 : (rx.offerPopupDelaySeconds ?? 0) * 1000);
}

/**
 * The pending referral's referrer by name, as the design formats it (validateReferrer with the
 * `name` extension: the server applies `referrerNameFormat` and names nobody asked for by email).
 * Without a name (none on file, offline, a preview page) the texts keep the design's fallback.
 */
async function referrerName(): Promise<void> {
  const code = (await ctx.rt.pendingAttribution())?.referralCode;
  const r = await ctx.rt.receipts();
  const receipts = [r.firstVisit, r.lastVisit].filter((x): x is string => !!x);
  if (!code && !receipts.length) return;
  const v = await checkReferrer({ ...(code ? { referredBy: code } : { receipts }), name: true }).catch(() => null);
  if (v?.valid) referrer.value = { name: v.referrerName, first: v.referrerFirstName };
}

/** Confetti for a friend who claimed the offer, when the design asks (on unless switched off); drawn before the thank-you. */
async function celebrate(rx: Rx): Promise<void> {
  if (rx.isOfferPopupConfettiEnabled === false || matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  const p = design().theme?.primaryColor;
  await import('./confetti.ts').then((m) => m.confetti([typeof p === 'string' ? p : '#4f46e5', '#f59e0b', '#10b981', '#ef4444', '#3b82f6']), () => null);
}

type Rx = NonNullable<ReturnType<typeof design>['referredExperience']>;

/** The heading motivator: the design's text as text, before, after or instead of the page's first matching heading. */
function heading(rx: Rx): void {
  const h = document.querySelector((rx.headingTarget ?? 'H1').toLowerCase());
  const text = copy(rx.headingText, 'signup.referredHeading');
  if (!h || h.querySelector('[data-grsf-heading]')) return;
  const el = document.createElement(rx.isHeadingClickableToSignupUrl ? 'a' : 'span');
  el.setAttribute('data-grsf-heading', '');
  el.textContent = (rx.headingPlacement === 'APPEND' ? ' ' : '') + text + (rx.headingPlacement === 'PREPEND' ? ' ' : '');
  if (el instanceof HTMLAnchorElement) {
    el.href = '#';
    el.onclick = (e) => (e.preventDefault(), openWindow());
  }
  if (rx.isHeadingStyled) el.style.color = String(design().theme?.primaryColor ?? '');
  if (rx.headingPlacement === 'REPLACE') h.replaceChildren(el);
  else if (rx.headingPlacement === 'APPEND') h.append(el);
  else h.prepend(el);
}

/** The sticky banner: in the page's flow (sticky, not fixed), so it never covers the page's own controls. */
function banner(rx: Rx): void {
  const host = document.createElement('div');
  host.setAttribute('data-grsf-banner', '');
  const top = rx.bannerPlacement !== 'BOTTOM';
  host.style.cssText = `position:sticky;${top ? 'top' : 'bottom'}:0;z-index:2147483646`;
  document.body[top ? 'prepend' : 'append'](host);
  const close = () => {
    render(null, host.shadowRoot!);
    host.remove();
    void remember();
  };
  const text = copy(rx.bannerText, 'signup.referred');
  mount(
    host,
    <Root>
      <style>{CSS}</style>
      <div class="bar" role="region" aria-label={t('welcome.banner')}>
        {rx.isBannerClickableToSignupUrl ? (
          <button type="button" onClick={() => openWindow()}>
            {text}
          </button>
        ) : (
          <span>{text}</span>
        )}
        <button type="button" aria-label={t('welcome.dismiss')} onClick={close}>
          ×
        </button>
      </div>
    </Root>,
  );
}

function popup(): void {
  if (me() || document.querySelector('[data-grsf-offer]')) return;
  const host = document.createElement('div');
  host.setAttribute('data-grsf-offer', '');
  document.body.append(host);
  // Focus goes back to where the visitor was (looking through open shadow roots).
  let back = document.activeElement as HTMLElement | null;
  while (back?.shadowRoot?.activeElement) back = back.shadowRoot.activeElement as HTMLElement;
  const close = () => {
    render(null, host.shadowRoot!);
    host.remove();
    back?.focus?.();
    void remember();
  };
  mount(host, <Offer close={close} />);
}

function Offer({ close }: { close: () => void }) {
  const rx = design().referredExperience ?? {};
  const colours = design().theme?.referredExperienceOfferPopup;
  const box = useRef<HTMLDivElement>(null);
  const [ids] = useState(() => ({ title: uid('o'), desc: uid('d') }));
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState('');
  useEffect(() => {
    if (mayTakeFocus()) box.current?.querySelector<HTMLElement>('input,button:not(.x)')?.focus();
  }, [done]);
  const reward = friendReward();
  const name = dtext('{{referrerName}}');
  const image = rx.offerPopupImageUrl || reward?.image;
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') return e.stopPropagation(), close();
    if (e.key !== 'Tab' || !box.current) return;
    const all = [...box.current.querySelectorAll<HTMLElement>('a[href],button,input')];
    const at = (box.current.getRootNode() as ShadowRoot).activeElement;
    const edge = e.shiftKey ? all[0] : all[all.length - 1];
    if (at === edge || !box.current.contains(at)) {
      e.preventDefault();
      (e.shiftKey ? all[all.length - 1] : all[0])?.focus();
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email') ?? '').trim();
    setBusy(true);
    setErr('');
    try {
      await g().addParticipant({ email });
      await remember();
      await celebrate(rx);
      setDone(true);
    } catch {
      setErr(copy(rx.offerPopupSubmitError, 'welcome.error'));
    } finally {
      setBusy(false);
    }
  };
  const s = state.value;
  const company = s.status === 'ready' ? s.campaign.companyName || s.campaign.name : '';
  return (
    <Root>
      <style>{CSS}</style>
      <div class={rx.isOfferPopupOverlayDimmed !== false ? 'pov dim' : 'pov'} style={`justify-content:${PLACE[rx.offerPopupPlacement ?? 'CENTER'] ?? 'center'}`} onClick={(e) => e.target === e.currentTarget && close()}>
        <div
          class="pop"
          role="dialog"
          aria-modal={rx.isOfferPopupOverlayDimmed !== false}
          aria-labelledby={ids.title}
          aria-describedby={ids.desc}
          ref={(el) => {
            (box as { current: HTMLDivElement | null }).current = el;
            if (el && colours) for (const [k, v] of [['--t', colours.color], ['--b', colours.backgroundColor]] as const) if (v) el.style.setProperty(k, v);
          }}
          onKeyDown={onKey}
        >
          <button type="button" class="s x" aria-label={t('welcome.dismiss')} onClick={close}>
            ×
          </button>
          {image && !done && <img src={image} alt={reward?.text ?? ''} />}
          <h2 id={ids.title}>{copy(rx.offerPopupTitle, 'welcome.title', { name })}</h2>
          {done ? (
            <>
              <p id={ids.desc}>{copy(rx.offerPopupThankYouText, 'welcome.thanks')}</p>
              <button type="button" onClick={close}>
                {copy(rx.offerPopupThankYouButtonText, 'welcome.thanksButton')}
              </button>
            </>
          ) : (
            <>
              <p id={ids.desc}>{copy(rx.offerPopupDescription, reward ? 'welcome.reward' : 'welcome.noReward', { reward: reward?.text ?? '', company })}</p>
              <form onSubmit={submit}>
                <label>
                  {t('signup.email')}
                  <input type="email" name="email" required autocomplete="email" placeholder={dtext(rx.offerPopupEmailPlaceholder) || undefined} />
                </label>
                <p>
                  <button type="submit" disabled={busy}>
                    {copy(rx.offerPopupButtonText, 'welcome.button')}
                  </button>
                </p>
              </form>
              {err && <p role="alert">{err}</p>}
              {rx.offerPopupSecondaryLinkText && rx.offerPopupSecondaryLinkUrl && (
                <p>
                  <a href={rx.offerPopupSecondaryLinkUrl}>{dtext(rx.offerPopupSecondaryLinkText)}</a>
                </p>
              )}
            </>
          )}
        </div>
      </div>
    </Root>
  );
}
