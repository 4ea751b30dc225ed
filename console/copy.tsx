// A block of code to paste somewhere else (the installation snippet) with a Copy button: the
// Clipboard API where the browser allows it, else the selection and `execCommand('copy')`, and
// the outcome announced either way.
import { useRef } from 'preact/hooks';
import { announce } from './ui.tsx';
import { t } from './i18n/index.ts';

/** The Universal Code for a program: the snippet every page of the owner's site loads. */
export function universalCode(programId: string, origin = location.origin): string {
  return `<script type="text/javascript">
(function(g,r,s,f){g.grsfSettings={campaignId:"${programId}",version:"2.0.0"};s=r.getElementsByTagName("head")[0];f=r.createElement("script");f.async=1;f.src="${origin}/growsurf.js"+"?v="+g.grsfSettings.version;f.setAttribute("grsf-campaign",g.grsfSettings.campaignId);!g.grsfInit?s.appendChild(f):"";})(window,document);
</script>`;
}

async function copyText(text: string, area: HTMLTextAreaElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!area) return false;
    area.focus();
    area.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/** `text` in a read-only, labelled text area with a Copy button. */
export function CopyBlock({ id, label, hint, text, button }: { id: string; label: string; hint?: string; text: string; button: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const copy = async () => {
    const ok = await copyText(text, area.current);
    if (!ok) {
      area.current?.focus();
      area.current?.select();
    }
    announce(ok ? t('copy.done') : t('copy.manual'));
  };
  return (
    <div class="field copy-block">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <textarea id={id} ref={area} class="code" readOnly rows={text.split('\n').length + 1} value={text} aria-describedby={hint ? `${id}-hint` : undefined} spellcheck={false} />
      <div class="buttons">
        <button type="button" onClick={copy}>
          {button}
        </button>
      </div>
    </div>
  );
}

/** A small Copy button for a value shown beside it (a participant's share link): named by what it copies. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const copy = async () => announce((await copyText(text, null)) ? t('copy.done') : t('copy.failed'));
  return (
    <button type="button" class="secondary small" aria-label={label} onClick={copy}>
      {t('copy.button')}
    </button>
  );
}
