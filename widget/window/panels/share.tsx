// The participant's home (issue #32) and the share panel it holds: the window's first view for a
// signed-in participant. Its own chunk, requested at boot beside the window payload when a
// participant token is stored (the sign-up form is the other one, signup.tsx): a visitor never
// downloads both at first paint (issue #24). The home draws from the window payload alone (no call
// of its own), so it paints with the link; its figures are their own chunk (figures.tsx), requested
// at boot beside this one, into a box that keeps their place.
import '../../i18n/en-share.ts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { trackShare } from '../actions.ts';
import type { ShareType } from '../api.ts';
import { me, programType, state } from '../state.ts';
import { nextAt, nextReward, nextText } from './next-reward.ts';
import { Note, Section, copy, design, dtext, shareLink, uid } from '../ui.tsx';

// The home's own rules: the offer set large, the link and Copy on one row, the figures as tiles (until
// their chunk fills the grid, a hidden box per tile as tall as a tile, 2 + 16 + 36 + 21 px); an icon
// keeps its 18 px box while the sprite is on its way.
const CSS = `.of{font-size:1.15em;font-weight:600;margin:0 0 4px}
.lk{display:flex;gap:8px;align-items:stretch;margin:2px 0 8px}.lk input{margin:0;min-width:0;flex:1}.lk button{flex:none}
.lk button,.sb .btn{display:inline-flex;gap:6px;align-items:center}.lk svg,.sb svg{flex:none}
.hs{margin-top:12px}.hs>u{visibility:hidden;min-height:75px}.hs .tile b{font-size:24px}
.pb{height:8px;border-radius:4px;background:#e5e7eb;overflow:hidden;margin:6px 0 0}.pb i{display:block;height:100%;background:var(--p)}`;

/** Channel → share URL (`{u}` the link, `{m}` the message); channels without a web share URL are not offered. */
const SHARE_URLS: Record<string, string> = {
  email: 'mailto:?subject={s}&body={m}',
  sms: 'sms:?&body={m}',
  facebook: 'https://www.facebook.com/sharer/sharer.php?u={u}',
  twitter: 'https://twitter.com/intent/tweet?text={m}',
  linkedin: 'https://www.linkedin.com/sharing/share-offsite/?url={u}',
  pinterest: 'https://pinterest.com/pin/create/button/?url={u}&description={m}',
  threads: 'https://www.threads.net/intent/post?text={m}',
  bluesky: 'https://bsky.app/intent/compose?text={m}',
  messenger: 'fb-messenger://share/?link={u}',
  whatsapp: 'https://wa.me/?text={m}',
  telegram: 'https://t.me/share/url?url={u}&text={m}',
  reddit: 'https://www.reddit.com/submit?url={u}&title={s}',
  tumblr: 'https://www.tumblr.com/widgets/share/tool?canonicalUrl={u}',
};

/**
 * The share buttons' styling from the design (`design.share.buttonStyle`, rules for the `.sb` row):
 * shape and label shown at once, since they set the buttons' size; brand colours, like the icons a
 * brand's look the text label does not need, once the sprite's chunk has brought them.
 */
function styles(): string {
  const style = design().share?.buttonStyle ?? {};
  const r = style.shape === 'SQUARE' ? '0' : style.shape === 'CIRCLE' ? '999px' : '';
  let css = r ? `.sb .btn{border-radius:${r}}` : '';
  if (style.isLabelShown === false) css += '.sb .btn .l{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.sb .btn{padding:8px}';
  if (style.isBrandColored && icons) for (const [c, v] of Object.entries(icons.BRAND)) css += `.sb [data-c=${c}]{background:${v};border-color:${v};color:#fff}`;
  return css;
}

/**
 * The icon sprite (icons.ts), its own chunk: boot requests it beside this one (registry.tsx
 * `preloadFirstPanel`), and the panel draws without it, each icon an empty box of its final size
 * until it arrives.
 */
let icons: typeof import('../icons.ts') | undefined;
export const loadIcons = () => import('../icons.ts').then((m) => (icons = m));

/** A decorative icon from the sprite (the button's text names it). */
const I = ({ n }: { n: string }) => (
  <svg width="18" height="18" aria-hidden="true">
    <use href={`#grsf-i-${n}`} />
  </svg>
);

/** Share panel: the link, copy, and the channels the window payload lists; every share is tracked. */
export function Share() {
  const [msg, setMsg] = useState('');
  const [id] = useState(() => uid('l'));
  const [, drawn] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const have = icons;
  useEffect(() => {
    // Asked again whenever this render lacked the sprite: boot's request may have finished meanwhile.
    if (!have) loadIcons().then(() => drawn(1), () => undefined);
  }, []);
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.share;
  const url = shareLink();
  const channels = s.win.share.channels.filter((c) => SHARE_URLS[c]);
  const message = copy(d?.message, 'share.message', { url });
  const subject = copy(d?.emailSubject, 'share.subject');
  const track = (type: ShareType) => (me() ? trackShare(type).catch(() => undefined) : undefined);
  const onCopy = async () => {
    // Selected as well: where the page may not write the clipboard, the link is ready for Ctrl+C.
    input.current?.select();
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      // Without clipboard access the visible, selectable input still lets the visitor copy by hand.
    }
    setMsg(copy(d?.copiedText, 'share.copied'));
    await track('copyRefLink');
  };
  return (
    <Section title={copy(d?.title, 'share.title')}>
      {dtext(d?.description) && <p class="m">{dtext(d?.description)}</p>}
      <style>{CSS + styles()}</style>
      <label for={id}>{copy(d?.linkLabel, 'share.linkLabel')}</label>
      <div class="lk">
        <input id={id} ref={input} readOnly value={url} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <button type="button" onClick={onCopy}>
          <I n="copy" />
          {copy(d?.copyButtonText, 'share.copy')}
        </button>
      </div>
      {/* The one sprite: a symbol per enabled channel and the copy icon (icons.ts `drawSprite`). */}
      {icons && <svg aria-hidden="true" width="0" height="0" style="position:absolute" ref={(el) => void (el && icons!.drawSprite(el, channels))} />}
      <div class="row sb">
        {channels.map((c) => {
          const href = SHARE_URLS[c]!.replace('{u}', encodeURIComponent(url)).replace('{m}', encodeURIComponent(message)).replace('{s}', encodeURIComponent(subject));
          const name = t(`channel.${c}` as MessageKey);
          return (
            <a key={c} class="btn" data-c={c} href={href} target="_blank" rel="noopener noreferrer" aria-label={t('share.via', { channel: name })} onClick={() => void track(c)}>
              <I n={c} />
              <span class="l">{name}</span>
            </a>
          );
        })}
      </div>
      {msg && <Note text={msg} />}
    </Section>
  );
}

/**
 * The home's figures (figures.tsx), their own chunk: boot requests it beside this one (registry.tsx
 * `preloadFirstPanel`), so it normally arrives with it. The home paints without it, the figures' grid
 * holding a hidden tile-sized box (`.hs>u`) per tile to come (three for an affiliate program with
 * earnings, else two), so it has their rows at any width; the last box holds the next reward's text
 * and its bar's room (next-reward.ts, the few bytes of the arithmetic that text needs), so a reward
 * name that wraps to five lines at 390 px makes the box as tall as its tile and nothing moves when
 * the figures arrive (issue #32). It never shows a loading note for them.
 */
let figures: typeof import('./figures.tsx') | undefined;
export const loadFigures = () => import('./figures.tsx').then((m) => (figures = m));

/**
 * The signed-in participant's home: the offer (the design's header for participants), the link with
 * Copy and the share channels, and the figures that matter (figures.tsx).
 */
export function Home() {
  const [, drawn] = useState(0);
  const have = figures;
  useEffect(() => {
    // Asked again whenever this render lacked the figures: boot's request may have finished meanwhile.
    if (!have) loadFigures().then(() => drawn(1), () => undefined);
  }, []);
  const s = state.value;
  if (s.status !== 'ready' || !me()) return null;
  const offer = dtext(design().header?.postText);
  const F = figures?.Figures;
  const p = me()!;
  const affiliate = programType() === 'AFFILIATE';
  // As figures.tsx counts them: a starter reward is switched off.
  const rewards = s.win.rewards.filter((r) => !r.isStarter);
  const n = !affiliate && nextReward(p, rewards);
  return (
    <div data-grsf-home="">
      {offer && <p class="of">{offer}</p>}
      <Share />
      <div class="g hs">
        {F ? (
          <F />
        ) : (
          <>
            <u />
            {affiliate && s.win.affiliate && <u />}
            <u class="tile">
              {n && <span>{nextText(n.reward, n.remaining)}</span>}
              {n && rewards.some((r) => r.type === 'MILESTONE' && nextAt(p, r) != null) && <div class="pb" />}
            </u>
          </>
        )}
      </div>
    </div>
  );
}
