// Lazy chunk: tax information. The form itself lives on the hosted page the API returns; tax id
// numbers never pass through the widget.
import '../../i18n/panels.ts';
import { useState } from 'preact/hooks';
import { t } from '../../i18n/index.ts';
import { taxSession } from '../ops.ts';
import { Note, Section, copy, design, errorText } from '../ui.tsx';

/** Opens the hosted tax form in a new tab. */
export default function Tax() {
  const [msg, setMsg] = useState('');
  const d = design().participantSettings?.taxDetails;
  const open = async () => {
    // Opened synchronously inside the click so popup blockers allow it; pointed at the URL once known.
    const w = window.open('', '_blank');
    try {
      const session = await taxSession();
      if (!/^https?:\/\//.test(session.hostedUrl)) throw new Error(t('state.error'));
      if (w) {
        w.opener = null;
        w.location.href = session.hostedUrl;
      } else window.location.assign(session.hostedUrl);
      setMsg(t('tax.status', { status: t(`tax.${session.taxStatus.status}`) }));
    } catch (e) {
      w?.close();
      setMsg(errorText(e));
    }
  };
  return (
    <Section title={copy(d?.label, 'tax.title')}>
      <p class="m">{copy(d?.helpText, 'tax.description')}</p>
      <button type="button" onClick={open}>
        {t('tax.open')}
      </button>
      {msg && <Note text={msg} />}
    </Section>
  );
}
