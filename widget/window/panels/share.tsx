// The share panel: the window's first panel for a signed-in participant. Its own chunk, requested at
// boot beside the window payload when a participant token is stored (the sign-up form is the other
// one, signup.tsx): a visitor never downloads both at first paint (issue #24).
import '../../i18n/en-share.ts';
import { useState } from 'preact/hooks';
import { t, type MessageKey } from '../../i18n/index.ts';
import { trackShare } from '../actions.ts';
import type { ShareType } from '../api.ts';
import { me, state } from '../state.ts';
import { Note, Section, copy, dtext, shareLink } from '../ui.tsx';
import { Sprite } from '../icons.tsx';

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

/** A decorative icon from the sprite (the button's text names it). */
const I = ({ n }: { n: string }) => (
  <svg width="18" height="18" aria-hidden="true">
    <use href={`#grsf-i-${n}`} />
  </svg>
);

/** Share panel: the link, copy, and the channels the window payload lists; every share is tracked. */
export function Share() {
  const [msg, setMsg] = useState('');
  const s = state.value;
  if (s.status !== 'ready') return null;
  const d = s.win.design?.share;
  const url = shareLink();
  const channels = s.win.share.channels.filter((c) => SHARE_URLS[c]);
  const message = copy(d?.message, 'share.message', { url });
  const subject = copy(d?.emailSubject, 'share.subject');
  const track = (type: ShareType) => (me() ? trackShare(type).catch(() => undefined) : undefined);
  const onCopy = async () => {
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
      <label>
        {copy(d?.linkLabel, 'share.linkLabel')}
        <input readOnly value={url} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      </label>
      <Sprite names={channels} />
      <div class="row sb">
        <button type="button" class="btn" onClick={onCopy}>
          <I n="copy" />
          <span class="l">{copy(d?.copyButtonText, 'share.copy')}</span>
        </button>
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
