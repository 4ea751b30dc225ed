// Lazy chunk: program resources. A FILE asks for a fresh short-lived download URL on every open;
// LINK and TEXT resources are shown inline.
import '../../i18n/panels.ts';
import { t } from '../../i18n/index.ts';
import { downloadUrl, resources } from '../ops.ts';
import { useState } from 'preact/hooks';
import { Async } from '../kit.tsx';
import { Note, Section, copy, design } from '../ui.tsx';

const safeHref = (u: string | null) => (u && /^https?:\/\//i.test(u) ? u : undefined);

/** Opens a FILE resource through a newly signed link. */
export async function openFile(id: string): Promise<string> {
  const w = window.open('', '_blank');
  try {
    const { url } = await downloadUrl(id);
    if (!safeHref(url)) throw new Error('Not a web link.');
    if (w) {
      w.opener = null;
      w.location.href = url;
    }
    return url;
  } catch (e) {
    w?.close();
    throw e;
  }
}

/** The published resources (MRS2); a TEXT resource can be copied with the design's copy button. */
export default function Resources() {
  const [copied, setCopied] = useState('');
  const d = design().resources;
  const copyLabel = copy(d?.copyButtonText, 'resources.copy');
  const copyText = async (id: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard access the text stays on screen to select by hand.
    }
    setCopied(id);
  };
  return (
    <Section title={copy(d?.title, 'resources.title')}>
      <Async load={resources} empty={(l) => !l.resources.length} emptyText={copy(d?.emptyState, 'resources.empty')}>
        {(l) => (
          <ul>
            {l.resources.map((r) => (
              <li key={r.id}>
                <div>
                  <h3>{r.title}</h3>
                  {r.description && <p class="m">{r.description}</p>}
                  {r.type === 'TEXT' && <p>{r.text}</p>}
                </div>
                {r.type === 'TEXT' && r.text && (
                  <div>
                    <button type="button" class="s" aria-label={`${copyLabel}: ${r.title}`} onClick={() => copyText(r.id, r.text!)}>
                      {copyLabel}
                    </button>
                    {copied === r.id && <Note text={copy(d?.copiedText, 'share.copied')} />}
                  </div>
                )}
                {r.type === 'FILE' && (
                  <button type="button" onClick={() => openFile(r.id).catch(() => undefined)}>
                    {t('resources.download', { title: r.title })}
                  </button>
                )}
                {r.type === 'LINK' && safeHref(r.url) && (
                  <a class="btn" href={safeHref(r.url)} target="_blank" rel="noopener noreferrer">
                    {t('resources.open', { title: r.title })}
                  </a>
                )}
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Section>
  );
}
